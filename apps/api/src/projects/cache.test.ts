import * as Api from '@porthole/protocol/Api'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import { type LocalPostgres, startLocalPostgres } from '../../test/process.js'
import { createDbAdmin } from '../admin/admin.js'
import { createApp } from '../app.js'
import { runProjectCommand } from '../commands.js'
import type { Db } from '../db/db.js'
import { migrate } from '../db/migrations.js'
import { createPostgresDb } from '../db/postgres.js'
import { searchCacheControl, walletsCacheControl } from '../explorer/routes.js'
import { projectCacheControl, projectTtlMs } from './cache.js'

let testDb: TestDb
beforeAll(async () => {
  testDb = await createTestDb()
})
afterAll(() => testDb?.close())

/** `npm run project -- <argv>` against `db`, as the CLI runs it; throws unless it succeeds. */
async function cli(db: Db, ...argv: string[]) {
  const err: string[] = []
  const code = await runProjectCommand(argv, {
    admin: createDbAdmin({ db, rpcUpstreams: {} }),
    out: () => {},
    err: (line) => err.push(line),
  })
  if (code !== 0) throw new Error(`npm run project -- ${argv.join(' ')}: ${err.join('\n')}`)
}

/** `npm run project -- create` of project `id` with `origins` (and any other options). */
function create(db: Db, id: string, origins: string[], ...options: string[]) {
  const originOptions = origins.flatMap((origin) => ['--origin', origin])
  return cli(db, 'create', '--id', id, '--name', id, ...originOptions, ...options)
}

/** A clock the test moves; frozen at 0 it never lets a cached project expire. */
function testClock() {
  let ms = 0
  return { now: () => ms, advance: (by: number) => (ms += by) }
}

async function allowedOrigins(app: Hono, projectId: string) {
  const response = await app.request(`/projects/v1/origins?projectId=${projectId}`)
  expect(response.status).toBe(200)
  return Api.OriginsResponse.parse(await response.json()).allowedOrigins
}

describe('inv-05 a removed origin stops being served', () => {
  test('at once in the process, when the CLI removes it', async () => {
    const app = createApp({ config: testDb.config, db: testDb.db, cacheNow: testClock().now })
    await create(testDb.db, 'removed-at-once', [
      'https://keep.example.com',
      'https://gone.example.com',
    ])
    expect(await allowedOrigins(app, 'removed-at-once')).toContain('https://gone.example.com')
    await cli(
      testDb.db,
      'set-origins',
      '--id',
      'removed-at-once',
      '--origin',
      'https://keep.example.com',
    )
    expect(await allowedOrigins(app, 'removed-at-once')).toEqual(['https://keep.example.com'])
  })

  test(`within ${projectTtlMs / 1000} s when the announcement never arrives`, async () => {
    const clock = testClock()
    // A replica whose LISTEN hears nothing: only the TTL can drop its copy.
    const deaf: Db = { ...testDb.db, listen: async () => {} }
    const app = createApp({ config: testDb.config, db: deaf, cacheNow: clock.now })
    await create(testDb.db, 'removed-by-ttl', [
      'https://keep.example.com',
      'https://gone.example.com',
    ])
    expect(await allowedOrigins(app, 'removed-by-ttl')).toHaveLength(2)
    await cli(
      testDb.db,
      'set-origins',
      '--id',
      'removed-by-ttl',
      '--origin',
      'https://keep.example.com',
    )
    clock.advance(projectTtlMs - 1)
    expect(await allowedOrigins(app, 'removed-by-ttl')).toHaveLength(2)
    clock.advance(1)
    expect(await allowedOrigins(app, 'removed-by-ttl')).toEqual(['https://keep.example.com'])
  })

  test('the HTTP freshness adds at most 30 s: 40 s in all, under 60 s', () => {
    const seconds = (name: string) =>
      Number(new RegExp(`(?:^|, )${name}=(\\d+)`).exec(projectCacheControl)?.[1])
    expect(seconds('max-age')).toBe(0)
    // A CDN: fresh for s-maxage, then stale once more; the browser: stale once more after that.
    const worst = projectTtlMs / 1000 + seconds('s-maxage') + 2 * seconds('stale-while-revalidate')
    expect(worst).toBe(40)
  })
})

describe('answers are cached per project, never another project', () => {
  test('two projects read back to back each get their own origins and config', async () => {
    const app = createApp({ config: testDb.config, db: testDb.db, cacheNow: testClock().now })
    await create(testDb.db, 'first-shop', ['https://a.example.com'])
    await create(testDb.db, 'second-shop', ['https://b.example.com'], '--networks', 'eip155:8453')
    for (let round = 0; round < 2; round++) {
      expect(await allowedOrigins(app, 'first-shop')).toEqual(['https://a.example.com'])
      expect(await allowedOrigins(app, 'second-shop')).toEqual(['https://b.example.com'])
      const config = await app.request('/appkit/v1/config?projectId=second-shop')
      expect(Api.ProjectConfig.parse(await config.json()).networks).toEqual(['eip155:8453'])
    }
  })

  test('an unknown project is asked again each time: created later, it is served at once', async () => {
    const app = createApp({ config: testDb.config, db: testDb.db, cacheNow: testClock().now })
    for (let i = 0; i < 3; i++) {
      const response = await app.request('/projects/v1/origins?projectId=created-later')
      expect(response.status).toBe(403)
      expect(response.headers.get('cache-control')).toBeNull()
      expect(response.headers.get('etag')).toBeNull()
    }
    await create(testDb.db, 'created-later', ['https://l.example.com'])
    expect(await allowedOrigins(app, 'created-later')).toEqual(['https://l.example.com'])
  })
})

describe('ETag, If-None-Match and Cache-Control', () => {
  test.each([
    ['/projects/v1/origins?projectId=porthole-dev', projectCacheControl],
    ['/appkit/v1/config?projectId=porthole-dev', projectCacheControl],
    ['/getWallets?projectId=porthole-dev&page=1&entries=40', walletsCacheControl],
    // A search carries the visitor's client id in its URL: kept by their browser only.
    ['/getWallets?projectId=porthole-dev&page=1&entries=40&search=rain', searchCacheControl],
  ])('%s: a strong ETag, then 304 with the same CORS headers', async (path, cacheControl) => {
    const app = createApp({ config: testDb.config, db: testDb.db })
    const origin = testDb.config.widgetOrigin
    const first = await app.request(path, { headers: { origin } })
    expect(first.status).toBe(200)
    const etag = first.headers.get('etag')
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/)
    expect(first.headers.get('cache-control')).toBe(cacheControl)
    expect(first.headers.get('content-type')).toMatch(/^application\/json/)
    expect(first.headers.get('access-control-expose-headers')).toMatch(/\bETag\b/)
    const body = await first.text()
    expect(JSON.parse(body)).toBeTruthy()

    const again = await app.request(path, { headers: { origin } })
    expect(again.headers.get('etag')).toBe(etag)
    expect(await again.text()).toBe(body)

    for (const ifNoneMatch of [etag ?? '', `W/${etag}`, `"other", ${etag}`]) {
      const notModified = await app.request(path, {
        headers: { origin, 'if-none-match': ifNoneMatch },
      })
      expect(notModified.status).toBe(304)
      expect(await notModified.text()).toBe('')
      for (const name of [
        'etag',
        'cache-control',
        'access-control-allow-origin',
        'access-control-expose-headers',
        'vary',
      ]) {
        expect(notModified.headers.get(name)).toBe(first.headers.get(name))
      }
    }
    const changed = await app.request(path, { headers: { origin, 'if-none-match': '"other"' } })
    expect(changed.status).toBe(200)
  })

  test('the ETag changes with the answer', async () => {
    const app = createApp({ config: testDb.config, db: testDb.db })
    await create(testDb.db, 'etag-shop', ['https://e.example.com'])
    const before = await app.request('/projects/v1/origins?projectId=etag-shop')
    await cli(testDb.db, 'set-origins', '--id', 'etag-shop', '--origin', 'https://f.example.com')
    const after = await app.request('/projects/v1/origins?projectId=etag-shop', {
      headers: { 'if-none-match': before.headers.get('etag') ?? '' },
    })
    expect(after.status).toBe(200)
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'))
  })

  test('a preflight allows If-None-Match from the widget', async () => {
    const app = createApp({ config: testDb.config, db: testDb.db })
    const response = await app.request('/projects/v1/origins?projectId=porthole-dev', {
      method: 'OPTIONS',
      headers: {
        origin: testDb.config.widgetOrigin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'if-none-match',
      },
    })
    expect(response.headers.get('access-control-allow-headers')).toMatch(/\bIf-None-Match\b/)
  })
})

describe('on PostgreSQL, the CLI in another process', () => {
  let pg: LocalPostgres | undefined
  beforeAll(async () => {
    pg = await startLocalPostgres()
  }, 60_000)
  afterAll(() => pg?.stop())

  test('drops the project of every API process at once (LISTEN/NOTIFY), and a lost LISTEN drops all', async () => {
    if (pg === undefined)
      throw new Error(
        "PostgreSQL is not installed (initdb, postgres): npm test's pretest installs it",
      )
    const errors: Error[] = []
    const apiDb = await createPostgresDb(pg.url, { onError: (error) => errors.push(error) })
    const cliDb = await createPostgresDb(pg.url)
    try {
      await migrate(apiDb)
      // The clock never moves: only an announcement can drop a cached project.
      const app = createApp({ config: testDb.config, db: apiDb, cacheNow: testClock().now })
      // The API's LISTEN, issued (createApp does not wait for it): a change before it would go unheard.
      const listening = () =>
        expect
          .poll(
            async () =>
              (
                await cliDb.query(
                  `SELECT 1 FROM pg_stat_activity WHERE application_name = 'porthole-api-listen' AND query LIKE 'LISTEN%'`,
                )
              ).length,
            { timeout: 10_000 },
          )
          .toBe(1)
      await listening()
      await create(cliDb, 'pg-shop', ['https://a.example.com', 'https://b.example.com'])
      expect(await allowedOrigins(app, 'pg-shop')).toHaveLength(2)
      await cli(cliDb, 'set-origins', '--id', 'pg-shop', '--origin', 'https://a.example.com')
      await expect
        .poll(() => allowedOrigins(app, 'pg-shop'), { timeout: 5_000 })
        .toEqual(['https://a.example.com'])

      // The LISTEN connection dies: every project is dropped, and it listens again.
      await cliDb.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'porthole-api-listen'`,
      )
      await expect.poll(() => errors.length, { timeout: 5_000 }).toBeGreaterThan(0)
      await cliDb.query(
        `UPDATE projects SET allowed_origins = '["https://c.example.com"]'::jsonb WHERE id = 'pg-shop'`,
      )
      expect(await allowedOrigins(app, 'pg-shop')).toEqual(['https://c.example.com'])
      // Listening again.
      await listening()
      await cli(cliDb, 'set-origins', '--id', 'pg-shop', '--origin', 'https://d.example.com')
      await expect
        .poll(() => allowedOrigins(app, 'pg-shop'), { timeout: 5_000 })
        .toEqual(['https://d.example.com'])
    } finally {
      await apiDb.close()
      await cliDb.close()
    }
  }, 120_000)
})
