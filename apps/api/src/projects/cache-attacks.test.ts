/**
 * Attacks on the answers the API keeps in memory and lets caches keep
 * (issue 14): another project's copy, odd project ids, query variants,
 * ETags across projects, per-client data in a public answer, memory.
 */
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import { createDbAdmin } from '../admin/admin.js'
import { createApp } from '../app.js'
import { runProjectCommand } from '../commands.js'
import type { Db } from '../db/db.js'
import { maxCachedWalletPages } from '../explorer/routes.js'

let testDb: TestDb
beforeAll(async () => {
  testDb = await createTestDb()
  for (const [id, origin] of [
    ['red-a', 'https://a.example.com'],
    ['red-b', 'https://b.example.com'],
  ] as const) {
    const code = await runProjectCommand(['create', '--id', id, '--name', id, '--origin', origin], {
      admin: createDbAdmin({ db: testDb.db, rpcUpstreams: {} }),
      out: () => {},
      err: () => {},
    })
    expect(code).toBe(0)
  }
})
afterAll(() => testDb?.close())

/** `db`, counting the queries that match `pattern`. */
function counting(db: Db, pattern: RegExp) {
  const counter = { n: 0 }
  const wrapped: Db = {
    ...db,
    query: ((sql: string, params?: unknown[]) => {
      if (pattern.test(sql)) counter.n++
      return db.query(sql, params)
    }) as Db['query'],
  }
  return { db: wrapped, counter }
}

const frozen = () => 0

async function get(app: Hono, path: string, headers: Record<string, string> = {}) {
  const response = await app.request(path, { headers })
  return { response, text: await response.text() }
}

describe('inv-04/05 one project’s cached answer is never another’s', () => {
  test('If-None-Match with project A’s ETag on project B gets B’s own answer', async () => {
    const app = createApp({ config: testDb.config, db: testDb.db, cacheNow: frozen })
    for (const path of ['/projects/v1/origins', '/appkit/v1/config']) {
      const a = await get(app, `${path}?projectId=red-a`)
      const b = await get(app, `${path}?projectId=red-b`, {
        'if-none-match': a.response.headers.get('etag') ?? '',
      })
      if (path.includes('origins')) {
        expect(b.response.status).toBe(200)
        expect(JSON.parse(b.text)).toEqual({ allowedOrigins: ['https://b.example.com'] })
      } else {
        // Two projects with the same config share the bytes, so the tag: a 304 gives B nothing of A's.
        expect(a.text).toBe((await get(app, `${path}?projectId=red-b`)).text)
      }
    }
  })

  test.each([
    'RED-A',
    'red-a%00',
    'red-a%20',
    '%20red-a',
    'red-a&projectId=red-b',
    'red-b&projectId=red-a',
    '__proto__',
    'constructor',
    'red-a/../red-b',
    encodeURIComponent('réd-a'),
    'a'.repeat(65),
  ])('projectId=%s never gets red-a’s origins', async (id) => {
    const app = createApp({ config: testDb.config, db: testDb.db, cacheNow: frozen })
    await get(app, '/projects/v1/origins?projectId=red-a')
    const { response, text } = await get(app, `/projects/v1/origins?projectId=${id}`)
    expect([400, 403]).toContain(response.status)
    expect(text).not.toContain('a.example.com')
    expect(response.headers.get('cache-control')).toBeNull()
  })

  test('extra or repeated query parameters are refused, never a cache key of their own', async () => {
    const app = createApp({ config: testDb.config, db: testDb.db, cacheNow: frozen })
    for (const query of ['projectId=red-a&x=1', 'projectId=red-a&projectId=red-a']) {
      const { response } = await get(app, `/appkit/v1/config?${query}`)
      expect(response.status).toBe(400)
      expect(response.headers.get('cache-control')).toBeNull()
    }
  })

  test('a public answer carries nothing of the caller: same bytes, tag and headers whatever the clientId', async () => {
    const app = createApp({ config: testDb.config, db: testDb.db, cacheNow: frozen })
    for (const path of [
      '/projects/v1/origins?projectId=red-a',
      '/appkit/v1/config?projectId=red-a',
      '/getWallets?projectId=red-a&page=1&entries=4',
    ]) {
      const one = await get(app, `${path}&clientId=11111111-1111-4111-8111-111111111111`)
      const two = await get(app, `${path}&clientId=22222222-2222-4222-8222-222222222222`, {
        'x-forwarded-for': '203.0.113.9',
      })
      expect(one.text).toBe(two.text)
      expect(one.text).not.toContain('1111')
      for (const response of [one.response, two.response]) {
        expect(response.headers.get('set-cookie')).toBeNull()
        expect(response.headers.get('vary')).toMatch(/\bOrigin\b/)
      }
      expect(one.response.headers.get('etag')).toBe(two.response.headers.get('etag'))
    }
  })
})

describe('inv-22 the caches stay bounded, whatever a caller asks for', () => {
  test('thousands of unknown project ids keep nothing: a real project stays cached', async () => {
    const { db, counter } = counting(testDb.db, /FROM projects WHERE id/)
    const app = createApp({ config: testDb.config, db, cacheNow: frozen })
    await get(app, '/projects/v1/origins?projectId=red-a')
    const before = counter.n
    for (let i = 0; i < 1_500; i++) {
      const { response } = await get(app, `/projects/v1/origins?projectId=unknown-${i}`)
      expect(response.status).toBe(403)
    }
    // Each unknown id asked the database once (as before issue 14), and kept nothing.
    expect(counter.n - before).toBe(1_500)
    await get(app, '/projects/v1/origins?projectId=red-a')
    expect(counter.n - before).toBe(1_500)
  })

  test('wallet-page variants beyond the bound evict the oldest; the largest page is small', async () => {
    const { db, counter } = counting(testDb.db, /FROM wallets\s+(WHERE|ORDER)/)
    const app = createApp({ config: testDb.config, db, cacheNow: frozen })
    const page = (n: number, entries = 1) =>
      get(app, `/getWallets?projectId=red-a&page=${n}&entries=${entries}`)
    await page(1)
    const first = counter.n
    await page(1)
    expect(counter.n).toBe(first)
    for (let n = 2; n <= maxCachedWalletPages + 1; n++) await page(n)
    const filled = counter.n
    await page(1)
    // Page 1 was the least recently used: gone, asked again.
    expect(counter.n).toBe(filled + 1)
    const largest = await page(1, 100)
    // 256 of the largest pages: well under 64 MB.
    expect(largest.text.length * maxCachedWalletPages).toBeLessThan(64 * 1024 * 1024)
  })
})
