import * as Api from '@porthole/protocol/Api'
import fc from 'fast-check'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../test/db.js'
import { createMemoryMailer, createTestClient, newDeviceId, signUp } from '../test/embedded.js'
import { createApp } from './app.js'
import type { Db } from './db/db.js'
import { testConfig } from './http/config.js'

let testDb: TestDb
let app: Hono

beforeAll(async () => {
  testDb = await createTestDb()
  app = createApp({ config: testDb.config, db: testDb.db })
})
afterAll(() => testDb?.close())

const widget = 'http://widget.localhost:5171'
const secure = 'http://secure.localhost:5172'

/** A database that fails every call, with a message that must never reach a client. */
function brokenDb(): Db {
  const fail = async (): Promise<never> => {
    throw new Error('connect ECONNREFUSED postgres://admin:hunter2@db.internal:5432')
  }
  return {
    kind: 'postgres',
    query: fail,
    exec: fail,
    transaction: fail,
    notify: fail,
    listen: async () => {},
    close: async () => {},
  }
}

describe('GET /health', () => {
  test('answers { ok: true }', async () => {
    const response = await app.request('/health')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: true })
  })

  test('answers 503 when the database is down', async () => {
    const errors: unknown[] = []
    const broken = createApp({
      config: testConfig(),
      db: brokenDb(),
      onError: (error) => errors.push(error),
    })
    const response = await broken.request('/health')
    expect(response.status).toBe(503)
    expect(Api.ErrorBody.parse(await response.json()).error.code).toBe('database_unavailable')
    expect(errors).toHaveLength(1)
  })
})

describe('errors', () => {
  test('an unknown path answers 404 JSON', async () => {
    const response = await app.request('/nope?projectId=porthole-dev')
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({
      error: { code: 'not_found', message: 'No such endpoint: GET /nope' },
    })
  })

  test('an unexpected failure answers a bare 500: no message, stack or secret', async () => {
    const errors: unknown[] = []
    const broken = createApp({
      config: testConfig(),
      db: brokenDb(),
      onError: (error) => errors.push(error),
    })
    const response = await broken.request('/appkit/v1/config?projectId=porthole-dev')
    expect(response.status).toBe(500)
    const text = await response.text()
    expect(JSON.parse(text)).toEqual({
      error: {
        code: 'internal_error',
        message: 'Something went wrong on our side; try again later',
      },
    })
    expect(text).not.toMatch(/hunter2|ECONNREFUSED|at /)
    expect(errors).toHaveLength(1)
  })
})

describe('CORS', () => {
  test.each([widget, secure])('echoes the allowed origin %s, with Vary: Origin', async (origin) => {
    const response = await app.request('/appkit/v1/config?projectId=porthole-dev', {
      headers: { Origin: origin },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBe(origin)
    expect(response.headers.get('vary')).toMatch(/Origin/)
  })

  test('answers errors with CORS headers too, so the widget can read them', async () => {
    const response = await app.request('/appkit/v1/config?projectId=nobody', {
      headers: { Origin: widget },
    })
    expect(response.status).toBe(403)
    expect(response.headers.get('access-control-allow-origin')).toBe(widget)
  })

  test.each([
    'http://evil.localhost:5171',
    'http://127.0.0.1:5170',
    'http://widget.localhost:5172',
    'https://widget.localhost:5171',
    'null',
  ])('gives no Access-Control-Allow-Origin to %s', async (origin) => {
    const response = await app.request('/appkit/v1/config?projectId=porthole-dev', {
      headers: { Origin: origin },
    })
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
    expect(response.headers.get('vary')).toMatch(/Origin/)
  })

  test('answers an allowed preflight', async () => {
    const response = await app.request('/e?projectId=porthole-dev', {
      method: 'OPTIONS',
      headers: {
        Origin: widget,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe(widget)
    expect(response.headers.get('access-control-allow-methods')).toBe(
      'GET, POST, PUT, DELETE, OPTIONS',
    )
    expect(response.headers.get('access-control-allow-headers')).toBe(
      'Content-Type, Authorization, If-None-Match',
    )
    expect(response.headers.get('access-control-max-age')).toBe('600')
  })

  test('gives a preflight from another origin nothing to go on', async () => {
    const response = await app.request('/v1/?chainId=eip155:31337&projectId=porthole-dev', {
      method: 'OPTIONS',
      headers: { Origin: 'http://evil.localhost:5171', 'Access-Control-Request-Method': 'POST' },
    })
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
    expect(response.headers.get('access-control-allow-methods')).toBeNull()
  })

  test('follows CORS_ORIGINS', async () => {
    const custom = createApp({
      config: { ...testDb.config, corsOrigins: ['https://widget.example.com'] },
      db: testDb.db,
    })
    const allowed = await custom.request('/health', {
      headers: { Origin: 'https://widget.example.com' },
    })
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://widget.example.com')
    const dropped = await custom.request('/health', { headers: { Origin: widget } })
    expect(dropped.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('sends nosniff on every answer', async () => {
    const response = await app.request('/health')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  })
})

describe('inv-18 fuzzing finds no crash and no state change', () => {
  const keys = [
    'projectId',
    'clientId',
    'page',
    'entries',
    'search',
    'include',
    'exclude',
    'chains',
    'badge_type',
    'chainId',
    '__proto__',
    'constructor',
    'eventId',
    'props',
    'type',
    'jsonrpc',
    'method',
    'params',
    'id',
  ]
  const key = fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 }))
  const value = fc.oneof(
    fc.constantFrom('porthole-dev', 'nobody', '', '0', '1', '101', 'eip155:31337', 'error', '2.0'),
    fc.string({ maxLength: 40 }),
  )
  const jsonish: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      fc.jsonValue({ maxDepth: 2 }),
      fc.dictionary(key, tie('node'), { maxKeys: 6 }),
      fc.array(tie('node'), { maxLength: 4 }),
    ),
  })).node

  const toQuery = (record: Record<string, string>) =>
    Object.entries(record)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
      .join('&')

  test('GET endpoints answer JSON with a 2xx/4xx status to any query', async () => {
    const paths = [
      '/getWallets',
      '/appkit/v1/config',
      '/projects/v1/origins',
      '/getAnalyticsConfig',
      '/getWalletImage/1ae92b26df02f0abca6304df07debccd18262fdf5fe82daa81593582dac9a369',
    ]
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.dictionary(key, value, { maxKeys: 6 }),
        async (path, query) => {
          const response = await app.request(`${path}?${toQuery(query)}`)
          expect([200, 304, 400, 403, 404]).toContain(response.status)
          if (response.headers.get('content-type')?.includes('json')) await response.json()
        },
      ),
      { numRuns: 150 },
    )
    expect(Object.prototype).not.toHaveProperty('polluted')
  })

  test('POST /e stores only what it accepts', async () => {
    const count = async () => {
      const [row] = await testDb.db.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM analytics_events',
      )
      return Number(row?.count)
    }
    const before = await count()
    let accepted = 0
    await fc.assert(
      fc.asyncProperty(jsonish, fc.dictionary(key, value, { maxKeys: 3 }), async (body, query) => {
        const response = await app.request(`/e?projectId=porthole-dev&${toQuery(query)}`, {
          method: 'POST',
          body: JSON.stringify(body) ?? 'null',
        })
        expect([202, 400, 403, 429]).toContain(response.status)
        const json = (await response.json()) as { accepted?: boolean }
        if (response.status === 202 && json.accepted) accepted++
      }),
      { numRuns: 150 },
    )
    expect(await count()).toBe(before + accepted)
    expect(Object.prototype).not.toHaveProperty('polluted')
  })

  test('POST /v1/ answers every body in JSON-RPC form without crashing', async () => {
    // No upstream is reachable here: a valid request ends at 502, never at the node.
    const rpcApp = createApp({
      config: { ...testDb.config, rpcUpstreams: { 'eip155:31337': 'http://127.0.0.1:9/' } },
      db: testDb.db,
    })
    await fc.assert(
      fc.asyncProperty(jsonish, async (body) => {
        const response = await rpcApp.request('/v1/?chainId=eip155:31337&projectId=porthole-dev', {
          method: 'POST',
          body: JSON.stringify(body) ?? 'null',
        })
        expect([400, 502]).toContain(response.status)
        const json = (await response.json()) as { jsonrpc?: string }
        expect(json.jsonrpc).toBe('2.0')
      }),
      { numRuns: 150 },
    )
  })

  test('embedded-wallet endpoints answer every body with a 4xx and create no account, session or wallet', async () => {
    const mailer = createMemoryMailer()
    const embedded = createApp({ config: testDb.config, db: testDb.db, mailer })
    const client = createTestClient(embedded)
    const { token } = await signUp(client, mailer)
    const tables = [
      'users',
      'identities',
      'devices',
      'embedded_sessions',
      'wallet_shares',
      'email_updates',
    ]
    const counts = async () =>
      Promise.all(
        tables.map(async (table) => {
          const [row] = await testDb.db.query<{ count: number }>(
            `SELECT count(*)::int AS count FROM ${table}`,
          )
          return Number(row?.count)
        }),
      )
    const before = await counts()
    const calls = [
      ['POST', '/auth/v1/login/email/verify'],
      ['POST', '/auth/v1/device/status'],
      ['POST', '/auth/v1/email/update/primary'],
      ['POST', '/auth/v1/email/update/secondary'],
      ['POST', '/auth/v1/social/start'],
      ['POST', '/auth/v1/social/result'],
      ['PUT', '/wallet/v1/shares'],
    ] as const
    const fields = fc.dictionary(
      fc.oneof(
        fc.constantFrom(
          'email',
          'otp',
          'deviceId',
          'state',
          'provider',
          'authShare',
          'recoveryShare',
          'addresses',
          '__proto__',
        ),
        fc.string({ maxLength: 8 }),
      ),
      fc.oneof(
        fc.constantFrom('user@example.com', '123456', newDeviceId(), 'google', 'AAAA'),
        jsonish,
      ),
      { maxKeys: 4 },
    )
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...calls),
        fc.oneof(fields, jsonish),
        async ([method, path], body) => {
          const response = await embedded.request(`${path}?projectId=porthole-dev`, {
            method,
            headers: {
              'content-type': 'application/json',
              authorization: `Bearer ${token}`,
              origin: secure,
            },
            body: JSON.stringify(body) ?? 'null',
          })
          // Only the read-only device status may answer 200 (to a well-formed body by chance).
          const allowed = path === '/auth/v1/device/status' ? [200, 400, 429] : []
          expect([...allowed, 400, 401, 403, 404, 409, 410, 413, 429]).toContain(response.status)
          await response.json()
        },
      ),
      { numRuns: 300 },
    )
    expect(await counts()).toEqual(before)
    expect(Object.prototype).not.toHaveProperty('polluted')
  })
})
