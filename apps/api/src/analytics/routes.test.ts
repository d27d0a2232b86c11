import { randomUUID } from 'node:crypto'
import * as Api from '@porthole/protocol/Api'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { behindProxy, createTestDb, type TestDb } from '../../test/db.js'
import { createApp } from '../app.js'
import { defaultFeatures } from '../http/schemas.js'
import { createProject } from '../projects/projects.js'
import { eventIpLimit, eventPrefixLimit, maxEventBytes } from './routes.js'

let testDb: TestDb
let app: Hono

beforeAll(async () => {
  testDb = await createTestDb()
  app = createApp({ config: testDb.config, db: testDb.db })
  await createProject(testDb.db, {
    id: 'quiet',
    name: 'No analytics',
    features: { ...defaultFeatures, analytics: false },
  })
})
afterAll(() => testDb?.close())

function event(props: Record<string, unknown> = { type: 'track', event: 'MODAL_OPEN' }) {
  return {
    eventId: randomUUID(),
    url: 'http://widget.localhost:5171/',
    domain: 'widget.localhost:5171',
    timestamp: Date.now(),
    props,
  }
}

const errorReport = () =>
  event({
    type: 'error',
    event: 'ERROR',
    errorType: 'TypeError',
    errorMessage: 'x is undefined',
    stackTrace: 'TypeError: x is undefined\n    at y (widget.js:1:1)',
  })

function post(
  body: unknown,
  query = 'projectId=porthole-dev&st=porthole&sv=0.1.0&clientId=c1',
  on = app,
) {
  return on.request(`/e?${query}`, {
    method: 'POST',
    // As the widget sends it (SECURITY.md 21).
    headers: { 'content-type': 'application/json', origin: 'http://widget.localhost:5171' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

async function storedEvents(eventId: string) {
  return testDb.db.query<Record<string, unknown>>(
    'SELECT * FROM analytics_events WHERE event_id = $1',
    [eventId],
  )
}

describe('GET /getAnalyticsConfig', () => {
  test('follows features.analytics', async () => {
    const on = await app.request('/getAnalyticsConfig?projectId=porthole-dev&clientId=c1')
    expect(on.status).toBe(200)
    expect(Api.AnalyticsConfig.parse(await on.json())).toEqual({ isAnalyticsEnabled: true })
    const off = await app.request('/getAnalyticsConfig?projectId=quiet')
    expect(await off.json()).toEqual({ isAnalyticsEnabled: false })
  })
})

describe('POST /e', () => {
  test('stores an analytics event and answers 202', async () => {
    const body = event({
      type: 'track',
      event: 'CONNECT_SUCCESS',
      properties: { method: 'qrcode' },
    })
    const response = await post(body)
    expect(response.status).toBe(202)
    expect(await response.json()).toEqual({ accepted: true })
    const [row] = await storedEvents(body.eventId)
    expect(row).toMatchObject({
      project_id: 'porthole-dev',
      client_id: 'c1',
      sdk_type: 'porthole',
      sdk_version: '0.1.0',
      url: body.url,
      domain: body.domain,
      type: 'track',
      event: 'CONNECT_SUCCESS',
      props: { type: 'track', event: 'CONNECT_SUCCESS', properties: { method: 'qrcode' } },
    })
    expect(Number(row?.client_timestamp)).toBe(body.timestamp)
  })

  test('stores a repeated eventId once', async () => {
    const body = event()
    expect((await post(body)).status).toBe(202)
    expect((await post(body)).status).toBe(202)
    expect(await storedEvents(body.eventId)).toHaveLength(1)
  })

  test('refuses analytics events when the project has analytics off', async () => {
    const body = event()
    const response = await post(body, 'projectId=quiet&clientId=c1')
    expect(response.status).toBe(403)
    expect(Api.ErrorBody.parse(await response.json()).error.code).toBe('analytics_disabled')
    expect(await storedEvents(body.eventId)).toHaveLength(0)
  })

  test('checks the projectId', async () => {
    expect((await post(event(), 'clientId=c1')).status).toBe(400)
    expect((await post(event(), 'projectId=nobody')).status).toBe(403)
  })
})

describe('inv-18 POST /e parses strictly', () => {
  test.each([
    ['an unknown top-level key', { ...event(), extra: 1 }, /Unrecognized key/],
    ['an unknown props key', event({ type: 'track', event: 'X', secret: 'y' }), /Unrecognized key/],
    ['a missing eventId', { ...event(), eventId: undefined }, /eventId/],
    ['a non-uuid eventId', { ...event(), eventId: 'not-a-uuid' }, /eventId/],
    ['a non-numeric timestamp', { ...event(), timestamp: '2024-01-01' }, /timestamp/],
    ['a javascript: url', { ...event(), url: 'javascript:alert(1)' }, /url/],
    // Printed by `stats` to an operator's terminal: names only (red team, issue 16).
    [
      'an event name with markup and escape sequences',
      event({ type: 'track', event: '<img src=x>\u001b[2J\u001b]0;pwn\u0007\nFAKE 9999' }),
      /event/,
    ],
    ['a lower-case event name', event({ type: 'track', event: 'modal_open' }), /event/],
    [
      'a long errorMessage',
      event({ type: 'error', event: 'E', errorMessage: 'x'.repeat(4097) }),
      /errorMessage/,
    ],
    [
      'nested properties',
      event({ type: 'track', event: 'X', properties: { a: { b: 1 } } }),
      /properties/,
    ],
    ['an array body', [event()], /object/],
    ['a null body', null, /object/],
  ])('refuses %s', async (_, body, message) => {
    const response = await post(body)
    expect(response.status).toBe(400)
    const error = Api.ErrorBody.parse(await response.json()).error
    expect(error.code).toBe('invalid_body')
    expect(error.message).toMatch(message)
  })

  test('refuses a body that is not JSON', async () => {
    const response = await post('{"eventId":')
    expect(response.status).toBe(400)
    expect(Api.ErrorBody.parse(await response.json()).error.code).toBe('invalid_json')
  })

  test('a __proto__ key is refused and pollutes nothing', async () => {
    const top = `{"__proto__":{"polluted":true},${JSON.stringify(event()).slice(1)}`
    const inProps = JSON.stringify(event()).replace(
      '"props":{',
      '"props":{"__proto__":{"polluted":true},',
    )
    const inProperties = JSON.stringify(
      event({ type: 'track', event: 'X', properties: { ok: 1 } }),
    ).replace('"properties":{', '"properties":{"__proto__":"x",')
    for (const body of [top, inProps, inProperties]) {
      const response = await post(body)
      expect(response.status).toBe(400)
      expect(Api.ErrorBody.parse(await response.json()).error.message).toMatch(
        /Unrecognized key|properties/,
      )
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.prototype).not.toHaveProperty('polluted')
  })

  test(`refuses a body over ${maxEventBytes} bytes with 413`, async () => {
    const response = await post(
      event({ type: 'track', event: 'X', pad: 'x'.repeat(maxEventBytes) }),
    )
    expect(response.status).toBe(413)
    expect(Api.ErrorBody.parse(await response.json()).error.code).toBe('payload_too_large')
  })
})

describe('inv-13 error reports are limited to 5 per 60 s per client, in the database', () => {
  test('the sixth report within a minute answers 429 with Retry-After', async () => {
    const query = 'projectId=porthole-dev&clientId=limited-1'
    for (let i = 0; i < 5; i++) expect((await post(errorReport(), query)).status).toBe(202)
    const refused = errorReport()
    const response = await post(refused, query)
    expect(response.status).toBe(429)
    const retryAfter = Number(response.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    const body = Api.ErrorBody.parse(await response.json())
    expect(body.error.code).toBe('rate_limited')
    expect(body.error.message).toMatch(/at most 5 every 60 seconds per client/)
    expect(await storedEvents(refused.eventId)).toHaveLength(0)
  })

  test('analytics events and other clients are not limited by one client', async () => {
    const query = 'projectId=porthole-dev&clientId=limited-2'
    for (let i = 0; i < 5; i++) expect((await post(errorReport(), query)).status).toBe(202)
    expect((await post(errorReport(), query)).status).toBe(429)
    expect((await post(event(), query)).status).toBe(202)
    expect((await post(errorReport(), 'projectId=porthole-dev&clientId=limited-3')).status).toBe(
      202,
    )
  })

  test('the limit is per project', async () => {
    const query = (projectId: string) => `projectId=${projectId}&clientId=limited-4`
    for (let i = 0; i < 5; i++)
      expect((await post(errorReport(), query('porthole-dev'))).status).toBe(202)
    expect((await post(errorReport(), query('porthole-dev'))).status).toBe(429)
    expect((await post(errorReport(), query('quiet'))).status).toBe(202)
  })

  test('two API instances over one database share the limit', async () => {
    const replicaDb = await testDb.openReplica()
    const second = createApp({ config: testDb.config, db: replicaDb })
    const query = 'projectId=porthole-dev&clientId=limited-5'
    for (let i = 0; i < 5; i++) {
      expect((await post(errorReport(), query, i % 2 === 0 ? app : second)).status).toBe(202)
    }
    expect((await post(errorReport(), query, second)).status).toBe(429)
    expect((await post(errorReport(), query, app)).status).toBe(429)
  })

  test('concurrent reports never exceed the limit', async () => {
    const replicaDb = await testDb.openReplica()
    const second = createApp({ config: testDb.config, db: replicaDb })
    const query = 'projectId=porthole-dev&clientId=limited-6'
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => post(errorReport(), query, i % 2 ? app : second)),
    ).then((responses) => responses.map((response) => response.status))
    expect(statuses.filter((status) => status === 202)).toHaveLength(5)
    expect(statuses.filter((status) => status === 429)).toHaveLength(7)
  })

  test('reports are accepted again once the window has passed', async () => {
    const query = 'projectId=porthole-dev&clientId=limited-7'
    for (let i = 0; i < 5; i++) expect((await post(errorReport(), query)).status).toBe(202)
    expect((await post(errorReport(), query)).status).toBe(429)
    // Move the recorded hits 61 seconds into the past.
    await testDb.db.query(
      `UPDATE rate_limits SET window_start = window_start - interval '61 seconds' WHERE key LIKE $1`,
      ['%:limited-7'],
    )
    expect((await post(errorReport(), query)).status).toBe(202)
  })

  test('the window slides: a hit 30 s old still counts', async () => {
    const query = 'projectId=porthole-dev&clientId=limited-8'
    for (let i = 0; i < 5; i++) expect((await post(errorReport(), query)).status).toBe(202)
    await testDb.db.query(
      `UPDATE rate_limits SET window_start = window_start - interval '30 seconds' WHERE key LIKE $1`,
      ['%:limited-8'],
    )
    const response = await post(errorReport(), query)
    expect(response.status).toBe(429)
    expect(Number(response.headers.get('retry-after'))).toBeLessThanOrEqual(31)
  })
})

describe('inv-22 POST /e is limited per IP, then per prefix, whatever the clientId', () => {
  /** An app behind the proxy 10.0.0.1, which names each client in `X-Forwarded-For`. */
  let proxied: Hono
  beforeAll(() => {
    proxied = createApp({ config: behindProxy(testDb.config), db: testDb.db })
  })
  const postFrom = (ip: string, body: unknown, query: string) =>
    proxied.request(
      `/e?${query}`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: 'http://widget.localhost:5171',
          'x-forwarded-for': ip,
        },
        body: JSON.stringify(body),
      },
      { incoming: { socket: { remoteAddress: '10.0.0.1' } } },
    )

  test(`a new clientId for each report buys nothing: 429 with Retry-After after ${eventIpLimit.limit}`, async () => {
    const query = () => `projectId=porthole-dev&clientId=${randomUUID()}`
    // The address's earlier events (each with a new clientId too), then ten more.
    await testDb.db.query(
      'INSERT INTO rate_limits (key, window_start, count) VALUES ($1, now(), $2)',
      ['event-ip:198.51.100.30', eventIpLimit.limit - 10],
    )
    for (let i = 0; i < 10; i++)
      expect((await postFrom('198.51.100.30', errorReport(), query())).status).toBe(202)
    const refused = errorReport()
    const response = await postFrom('198.51.100.30', refused, query())
    expect(response.status).toBe(429)
    const retryAfter = Number(response.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(eventIpLimit.windowSeconds)
    expect(Api.ErrorBody.parse(await response.json()).error.code).toBe('rate_limited')
    expect(await storedEvents(refused.eventId)).toHaveLength(0)
    // Analytics events share the bucket, in any project; another address does not.
    expect((await postFrom('198.51.100.30', event(), query())).status).toBe(429)
    expect(
      (await postFrom('198.51.100.30', errorReport(), `projectId=quiet&clientId=${randomUUID()}`))
        .status,
    ).toBe(429)
    expect((await postFrom('198.51.100.31', event(), query())).status).toBe(202)
  })

  test('once a /24 has spent its bucket, a fresh address in it is refused; another /24 is not', async () => {
    // The /24 has sent its whole allowance from many addresses.
    await testDb.db.query(
      'INSERT INTO rate_limits (key, window_start, count) VALUES ($1, now(), $2)',
      ['event-prefix:192.0.2.0/24', eventPrefixLimit.limit],
    )
    const query = `projectId=porthole-dev&clientId=${randomUUID()}`
    const response = await postFrom('192.0.2.77', event(), query)
    expect(response.status).toBe(429)
    expect(Api.ErrorBody.parse(await response.json()).error.message).toMatch(/this network/)
    expect((await postFrom('192.0.3.77', event(), query)).status).toBe(202)
  })
})
