/**
 * SECURITY.md 25 against the API: DNS rebinding. A page a developer visits
 * while `npm start` runs can point its own name at 127.0.0.1 and then call
 * the API as same-origin, with `Host: attacker.example:5173`. Every request
 * whose Host is not one of the API's names gets 421 before any route runs
 * (no mail, no row, no share); the dev outbox sits under an unguessable path.
 */
import { ErrorBody } from '@porthole/protocol/Api'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import {
  createMemoryMailer,
  createTestClient,
  fakeWallet,
  newDeviceId,
  newEmail,
  newIp,
  signUp,
} from '../../test/embedded.js'
import { createApp } from '../app.js'
import { devOutboxPath } from '../auth/email/devOutbox.js'
import type { Config } from './config.js'

const secureFrame = 'http://secure.localhost:5172'
/** The host of the default `PUBLIC_API_URL`. */
const apiHost = 'api.localhost:5173'

/** Host headers of the rebinding attacker and of malformed requests. */
const foreignHosts = [
  'attacker.example',
  'attacker.example:5173',
  'api.localhost.attacker.example',
  'api.localhost.attacker.example:5173',
  'api.localhost:5174',
  'api.localhost:80',
  '',
  'user@api.localhost:5173',
  'api.localhost:5173@attacker.example',
  'api.localhost:5173, attacker.example',
  'api.localhost:',
]

let testDb: TestDb
let config: Config
/** Mail goes to the dev outbox table, as under `npm start`. */
let app: Hono
/** A user's session, whose wallet the attacker wants. */
let token: string
let wallet: ReturnType<typeof fakeWallet>

beforeAll(async () => {
  testDb = await createTestDb({ devOutbox: true, smtpUrl: undefined })
  config = testDb.config
  app = createApp({ config, db: testDb.db })
  // Signed up through a memory mailer; the wallet stored under the API's own name.
  const mailer = createMemoryMailer()
  const setup = createApp({ config, db: testDb.db, mailer })
  token = (await signUp(createTestClient(setup), mailer)).token
  wallet = fakeWallet()
  const stored = await call(setup, apiHost, 'PUT', '/wallet/v1/shares?projectId=porthole-dev', {
    body: wallet,
    token,
  })
  expect(stored.status).toBe(201)
})
afterAll(() => testDb?.close())

/** Calls `on` as a browser on `host` would (`Host` set), from the secure frame's origin. */
async function call(
  on: Hono,
  host: string | undefined,
  method: string,
  path: string,
  { body, token, origin = secureFrame }: { body?: unknown; token?: string; origin?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { origin }
  if (host !== undefined) headers.host = host
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  if (method === 'OPTIONS') headers['access-control-request-method'] = 'POST'
  return on.request(
    path,
    { method, headers, body: body === undefined ? undefined : JSON.stringify(body) },
    { incoming: { socket: { remoteAddress: newIp() } } },
  )
}

async function outboxRows(): Promise<number> {
  const [row] = await testDb.db.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM dev_outbox',
  )
  return row?.count ?? -1
}

async function expectMisdirected(response: Response): Promise<void> {
  expect(response.status).toBe(421)
  const body = ErrorBody.parse(await response.json())
  expect(body.error.code).toBe('misdirected_request')
  expect(response.headers.get('access-control-allow-origin')).toBeNull()
}

describe('inv-25 the API answers only its own host names', () => {
  test.each(foreignHosts)('Host %j: 421 on every route, nothing happens', async (host) => {
    const rows = await outboxRows()

    await expectMisdirected(await call(app, host, 'GET', '/health'))
    await expectMisdirected(
      await call(app, host, 'OPTIONS', '/auth/v1/login/email?projectId=porthole-dev'),
    )
    await expectMisdirected(
      await call(app, host, 'POST', '/auth/v1/login/email?projectId=porthole-dev', {
        body: { email: newEmail(), deviceId: newDeviceId() },
      }),
    )
    const shares = await call(
      app,
      host,
      'GET',
      '/wallet/v1/shares?recovery=true&projectId=porthole-dev',
      { token },
    )
    const text = await shares.clone().text()
    expect(text).not.toContain(wallet.authShare)
    expect(text).not.toContain(wallet.recoveryShare)
    await expectMisdirected(shares)
    await expectMisdirected(await call(app, host, 'GET', `${devOutboxPath(config)}?format=json`))
    await expectMisdirected(await call(app, host, 'GET', '/no-such-path'))
    // No mail was recorded: the rebinding page never gets a code.
    expect(await outboxRows()).toBe(rows)
  })

  test('the name of PUBLIC_API_URL passes, in any case and with a trailing dot', async () => {
    for (const host of [apiHost, 'API.LOCALHOST:5173', 'api.localhost.:5173']) {
      const response = await call(app, host, 'GET', '/health')
      expect(response.status).toBe(200)
    }
    const email = newEmail()
    const rows = await outboxRows()
    const login = await call(app, apiHost, 'POST', '/auth/v1/login/email?projectId=porthole-dev', {
      body: { email, deviceId: newDeviceId() },
    })
    expect(login.status).toBe(200)
    expect(await outboxRows()).toBe(rows + 1)
    // The session the attack tests use is good: only the Host stops them.
    const shares = await call(app, apiHost, 'GET', '/wallet/v1/shares?projectId=porthole-dev', {
      token,
    })
    expect(shares.status).toBe(200)
    expect(await shares.text()).toContain(wallet.authShare)
  })

  test('a default port may be omitted: https://api.example.com is api.example.com and :443', async () => {
    const https = createApp({
      config: { ...config, publicApiUrl: 'https://api.example.com', apiHosts: [] },
      db: testDb.db,
    })
    for (const host of ['api.example.com', 'api.example.com:443', 'Api.Example.Com.']) {
      expect((await call(https, host, 'GET', '/health')).status).toBe(200)
    }
    for (const host of ['api.example.com:80', 'api.example.com:8443', 'example.com']) {
      await expectMisdirected(await call(https, host, 'GET', '/health'))
    }
  })

  test('API_HOSTS adds names; each keeps its port', async () => {
    const several = createApp({
      config: {
        ...config,
        publicApiUrl: 'https://api.example.com',
        apiHosts: ['api.example.net', 'internal-api:8080'],
      },
      db: testDb.db,
    })
    for (const host of ['api.example.com', 'api.example.net:443', 'internal-api:8080']) {
      expect((await call(several, host, 'GET', '/health')).status).toBe(200)
    }
    for (const host of ['internal-api', 'internal-api:8081', 'api.example.net:8080']) {
      await expectMisdirected(await call(several, host, 'GET', '/health'))
    }
  })

  test('loopback names on the API port pass in development only', async () => {
    const loopback = ['127.0.0.1:5173', 'localhost:5173', '[::1]:5173', '[0:0:0:0:0:0:0:1]:5173']
    const development = createApp({ config: { ...config, apiHosts: [] }, db: testDb.db })
    for (const host of loopback) {
      expect((await call(development, host, 'GET', '/health')).status).toBe(200)
    }
    for (const host of ['127.0.0.1:5174', 'localhost', '127.0.0.2:5173', 'localhost.:5174']) {
      await expectMisdirected(await call(development, host, 'GET', '/health'))
    }

    const production = createApp({
      config: { ...config, portholeEnv: 'production', devOutbox: false, apiHosts: [] },
      db: testDb.db,
    })
    for (const host of loopback) {
      await expectMisdirected(await call(production, host, 'GET', '/health'))
    }
    expect((await call(production, apiHost, 'GET', '/health')).status).toBe(200)

    // A production operator may list a loopback name (a health check on the same machine).
    const listed = createApp({
      config: {
        ...config,
        portholeEnv: 'production',
        devOutbox: false,
        apiHosts: ['127.0.0.1:5173'],
      },
      db: testDb.db,
    })
    expect((await call(listed, '127.0.0.1:5173', 'GET', '/health')).status).toBe(200)
    await expectMisdirected(await call(listed, 'localhost:5173', 'GET', '/health'))
  })
})

describe('inv-25 the dev outbox sits under an unguessable path', () => {
  test('only /dev/outbox/<token> serves it; /dev/outbox and other tokens are unknown paths', async () => {
    const path = devOutboxPath(config)
    expect(path).toMatch(/^\/dev\/outbox\/[A-Za-z0-9_-]{22,}$/)
    const email = newEmail()
    await call(app, apiHost, 'POST', '/auth/v1/login/email?projectId=porthole-dev', {
      body: { email, deviceId: newDeviceId() },
    })
    const outbox = await call(app, apiHost, 'GET', `${path}?format=json`)
    expect(outbox.status).toBe(200)
    const { messages } = (await outbox.json()) as { messages: { to: string }[] }
    expect(messages[0]?.to).toBe(email)

    const token = path.split('/').at(-1) ?? ''
    const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`
    for (const guess of [
      '/dev/outbox',
      '/dev/outbox/',
      '/dev/outbox?format=json',
      `/dev/outbox/${wrong}?format=json`,
      `/dev/outbox/${token.slice(0, 8)}`,
      `/dev/outbox/${token}/x`,
    ]) {
      const response = await call(app, apiHost, 'GET', guess)
      expect(response.status, guess).toBe(404)
      expect(await response.text()).not.toContain(email)
    }
  })

  test('is not mounted without DEV_OUTBOX', async () => {
    const off = createApp({ config: { ...config, devOutbox: false }, db: testDb.db })
    expect((await call(off, apiHost, 'GET', devOutboxPath(config))).status).toBe(404)
  })
})
