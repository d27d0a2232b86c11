import * as Api from '@porthole/protocol/Api'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createApp } from '../app.js'
import { createTestDb, type TestDb } from '../db/testing.js'
import { createProject } from '../projects.js'

let testDb: TestDb
let app: Hono

beforeAll(async () => {
  testDb = await createTestDb()
  app = createApp({ config: testDb.config, db: testDb.db })
  await createProject(testDb.db, {
    id: 'with-features',
    name: 'Features on',
    features: {
      email: true,
      socials: ['google', 'github'],
      onramp: true,
      swaps: false,
      history: true,
      analytics: false,
    },
  })
})
afterAll(() => testDb?.close())

describe('GET /appkit/v1/config', () => {
  test('serves the dev project features', async () => {
    const response = await app.request('/appkit/v1/config?projectId=porthole-dev&clientId=abc')
    expect(response.status).toBe(200)
    expect(Api.ProjectConfig.parse(await response.json())).toEqual({
      features: {
        email: false,
        socials: [],
        onramp: false,
        swaps: false,
        history: false,
        analytics: true,
      },
    })
  })

  test("serves each project's own features", async () => {
    const response = await app.request('/appkit/v1/config?projectId=with-features')
    expect(await response.json()).toEqual({
      features: {
        email: true,
        socials: ['google', 'github'],
        onramp: true,
        swaps: false,
        history: true,
        analytics: false,
      },
    })
  })

  test('refuses unknown query parameters', async () => {
    const response = await app.request('/appkit/v1/config?projectId=porthole-dev&debug=1')
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      error: { code: 'invalid_query', message: 'Invalid query: Unrecognized key: "debug"' },
    })
  })
})
