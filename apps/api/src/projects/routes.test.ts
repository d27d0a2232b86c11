import * as Api from '@porthole/protocol/Api'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import { createApp } from '../app.js'
import { StoredOriginsError } from '../http/errors.js'
import { maxPatterns } from '../http/origins.js'
import { createProject, getProject, listProjects, setProjectOrigins } from './projects.js'

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
  return Api.OriginsResponse.parse(await response.json()).allowedOrigins
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

describe('inv-05 stored patterns are checked again when read', () => {
  /** Writes a project as raw SQL (or a migration) would: no validation. */
  async function insertRaw(id: string, allowedOrigins: unknown[]) {
    await testDb.db.query(
      `INSERT INTO projects (id, name, allowed_origins, features) VALUES ($1, $1, $2::jsonb, '{}'::jsonb)`,
      [id, JSON.stringify(allowedOrigins)],
    )
  }

  test('a public-suffix wildcard inserted with raw SQL is never served', async () => {
    await insertRaw('raw-vercel', [
      'https://*.vercel.app',
      'https://App.Example.com/',
      'https://*.pages.dev',
    ])
    expect(await origins('raw-vercel')).toEqual(['https://app.example.com'])
    // Whatever reads projects sees the same list.
    expect((await getProject(testDb.db, 'raw-vercel'))?.allowedOrigins).toEqual([
      'https://app.example.com',
    ])
    const listed = (await listProjects(testDb.db)).find((project) => project.id === 'raw-vercel')
    expect(listed).toMatchObject({
      allowedOrigins: ['https://app.example.com'],
      refusedOrigins: ['https://*.vercel.app', 'https://*.pages.dev'],
    })
  })

  test('a list of refused patterns only fails (500), never [] (the dev defaults)', async () => {
    await insertRaw('only-vercel', ['https://*.vercel.app', 42])
    const onError = vi.fn()
    const strictApp = createApp({ config: testDb.config, db: testDb.db, onError })
    const response = await strictApp.request('/projects/v1/origins?projectId=only-vercel')
    expect(response.status).toBe(500)
    expect(Api.ErrorBody.parse(await response.json()).error.code).toBe('internal_error')
    expect(onError).toHaveBeenCalledWith(expect.any(StoredOriginsError))
  })

  test(`an over-long stored list is cut to the ${maxPatterns} Api.OriginsResponse allows`, async () => {
    const many = Array.from({ length: maxPatterns + 50 }, (_, i) => `https://a${i}.example.com`)
    await insertRaw('raw-many', many)
    expect(await origins('raw-many')).toEqual(many.slice(0, maxPatterns))
  })
})
