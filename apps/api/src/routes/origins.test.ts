import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createApp } from '../app.js'
import { createTestDb, type TestDb } from '../db/testing.js'
import { createProject, setProjectOrigins } from '../projects.js'
import { OriginsResponse } from './origins.js'

let testDb: TestDb
let app: Hono

beforeAll(async () => {
  testDb = await createTestDb()
  app = createApp({ config: testDb.config, db: testDb.db })
})
afterAll(() => testDb?.close())

async function origins(projectId: string) {
  const response = await app.request(`/projects/v1/origins?projectId=${projectId}`)
  expect(response.status).toBe(200)
  return OriginsResponse.parse(await response.json()).allowedOrigins
}

describe('GET /projects/v1/origins', () => {
  test('serves the dev project origins', async () => {
    expect(await origins('porthole-dev')).toEqual([
      'http://127.0.0.1:5170',
      'http://localhost:5170',
    ])
  })

  test('serves a new project origins in canonical form, and follows updates', async () => {
    await createProject(testDb.db, {
      id: 'shop',
      name: 'Shop',
      allowedOrigins: ['https://Shop.Example.com/', 'https://*.shop.example.com'],
    })
    expect(await origins('shop')).toEqual([
      'https://shop.example.com',
      'https://*.shop.example.com',
    ])
    await setProjectOrigins(testDb.db, 'shop', ['https://checkout.example.com:8443'])
    expect(await origins('shop')).toEqual(['https://checkout.example.com:8443'])
  })

  test('serves an empty list as empty (the widget then fails closed)', async () => {
    await createProject(testDb.db, { id: 'empty', name: 'No origins' })
    expect(await origins('empty')).toEqual([])
  })
})

describe('inv-05 projects refuse unsafe origin patterns', () => {
  test.each([
    'https://*.vercel.app',
    'https://*.pages.dev',
    'https://*.ngrok-free.app',
    'https://*.com',
  ])('creating a project with %s fails and stores nothing', async (pattern) => {
    await expect(
      createProject(testDb.db, { id: 'bad-wildcard', name: 'Bad', allowedOrigins: [pattern] }),
    ).rejects.toThrow(/public suffix/)
    expect((await app.request('/projects/v1/origins?projectId=bad-wildcard')).status).toBe(403)
  })

  test('updating to a public-suffix wildcard fails and keeps the old list', async () => {
    await createProject(testDb.db, {
      id: 'keeps',
      name: 'Keeps',
      allowedOrigins: ['https://keeps.example.com'],
    })
    await expect(setProjectOrigins(testDb.db, 'keeps', ['https://*.co.uk'])).rejects.toThrow(
      /co\.uk is a public suffix/,
    )
    expect(await origins('keeps')).toEqual(['https://keeps.example.com'])
  })
})
