/**
 * SECURITY.md 21 against the API: a state-changing browser endpoint called
 * from another site (a form post, a no-cors fetch, a sandboxed frame's
 * `null` origin, a server with no Origin), or with another body type, is
 * refused (403 or 415) and changes nothing: no mail, no row.
 */
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import {
  createMemoryMailer,
  createTestClient,
  errorOf,
  type MemoryMailer,
  newDeviceId,
  newEmail,
  newIp,
  signUp,
  type TestClient,
} from '../../test/embedded.js'
import { createApp } from '../app.js'
import { browserEndpoints, crossSiteExempt, findBrowserEndpoint, mediaType } from './crossSite.js'

const secureFrame = 'http://secure.localhost:5172'
const widget = 'http://widget.localhost:5171'
const apiOrigin = 'http://api.localhost:5173'
/** Another site, as e2e's attacker page is served (`evil.localhost`). */
const evil = 'http://evil.localhost:5179'

let testDb: TestDb
let app: Hono
let mailer: MemoryMailer
let client: TestClient

beforeAll(async () => {
  testDb = await createTestDb({ devOutbox: true })
  mailer = createMemoryMailer()
  // With the admin on, so its routes are among those checked.
  app = createApp({
    config: { ...testDb.config, adminToken: 'a'.repeat(32) },
    db: testDb.db,
    mailer,
  })
  client = createTestClient(app)
})
afterAll(() => testDb?.close())

/** A fingerprint of every table's rows: equal before and after means nothing was written. */
async function snapshot(): Promise<Record<string, string>> {
  const tables = await testDb.db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  )
  const result: Record<string, string> = {}
  for (const { name } of tables) {
    const [row] = await testDb.db.query<{ digest: string | null }>(
      `SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM "${name}" t`,
    )
    result[name] = String(row?.digest)
  }
  return result
}

/** A body each endpoint would take, so that only the refusal can stop it. */
function plausibleBody(path: string): unknown {
  const deviceId = newDeviceId()
  switch (path) {
    case '/auth/v1/login/email':
    case '/auth/v1/device/status':
      return { email: newEmail(), deviceId }
    case '/auth/v1/login/email/verify':
      return { email: newEmail(), otp: '123456', deviceId }
    case '/auth/v1/email/update':
      return { email: newEmail() }
    case '/auth/v1/social/start':
      return { provider: 'google', deviceId }
    case '/siwx/sessions':
      return { message: 'x', signature: '0x00' }
    default:
      return {}
  }
}

/** Sends `body` as the given content type, as a form or a no-cors fetch would. */
function encode(body: unknown, type: string): string | FormData {
  const json = JSON.stringify(body)
  if (type === 'multipart/form-data') {
    const form = new FormData()
    form.set(json, '')
    return form
  }
  return json
}

const jsonEndpoints = browserEndpoints.filter((endpoint) => endpoint.body === 'json')

describe('inv-21 the list of browser endpoints', () => {
  test('names every POST, PUT and DELETE route of the app, or says why it is left out', () => {
    const changing = app.routes.filter((route) =>
      ['POST', 'PUT', 'DELETE', 'PATCH'].includes(route.method),
    )
    expect(changing.length).toBeGreaterThan(10)
    const listed = new Set([...browserEndpoints, ...crossSiteExempt].map((e) => e.method + e.path))
    const missing = changing.filter((route) => !listed.has(route.method + route.path))
    expect(missing.map((route) => `${route.method} ${route.path}`)).toEqual([])
  })

  test('the approval form is the only non-JSON endpoint, and the API page its only caller', () => {
    expect(browserEndpoints.filter((e) => e.body !== 'json' || e.caller === 'apiPage')).toEqual([
      { method: 'POST', path: '/auth/v1/device/approve', caller: 'apiPage', body: 'form' },
    ])
  })

  test.each([
    ['application/json', 'application/json'],
    ['Application/JSON; charset=UTF-8', 'application/json'],
    ['text/plain;charset=UTF-8', 'text/plain'],
    ['text/plain; application/json', 'text/plain'],
    ['application/json, text/plain', 'application/json, text/plain'],
    [undefined, undefined],
  ])('mediaType(%j) is %j', (header, type) => {
    expect(mediaType(header)).toBe(type)
  })
})

describe('inv-21 POST /auth/v1/login/email from another site mails nothing', () => {
  const path = '/auth/v1/login/email'

  test('positive control: the secure frame, with JSON, gets a code mailed', async () => {
    const email = newEmail()
    const response = await client.post(path, { email, deviceId: newDeviceId() })
    expect(response.status).toBe(200)
    expect(mailer.code(email)).toMatch(/^\d{6}$/)
  })

  test.each([
    ['text/plain (a form with enctype=text/plain, or a no-cors fetch)', 'text/plain', evil, 403],
    ['text/plain from the right origin', 'text/plain;charset=UTF-8', secureFrame, 415],
    ['a urlencoded form', 'application/x-www-form-urlencoded', evil, 403],
    [
      'a urlencoded body from the right origin',
      'application/x-www-form-urlencoded',
      secureFrame,
      415,
    ],
    ['a multipart form', 'multipart/form-data', evil, 403],
    ['a multipart body from the right origin', 'multipart/form-data', secureFrame, 415],
    ['JSON with no Origin (not a browser, or an old one)', 'application/json', null, 403],
    ['JSON from another site', 'application/json', evil, 403],
    ['JSON from a sandboxed frame or a data: URL (Origin: null)', 'application/json', 'null', 403],
    ['JSON from the widget (not its caller)', 'application/json', widget, 403],
    [
      'JSON from the same host on another port',
      'application/json',
      'http://secure.localhost:5179',
      403,
    ],
    ['JSON from https on the same host', 'application/json', 'https://secure.localhost:5172', 403],
    ['JSON from a look-alike host', 'application/json', `${secureFrame}.evil.localhost`, 403],
    ['JSON from the API’s own page', 'application/json', apiOrigin, 403],
    ['text/plain with JSON in a parameter', 'text/plain; application/json', secureFrame, 415],
    ['a JSON-like type', 'application/json-seq', secureFrame, 415],
    ['no Content-Type from the right origin', undefined, secureFrame, 415],
  ] as const)('%s: %i, no mail, no row', async (_, type, origin, status) => {
    const email = newEmail()
    const body = { email, deviceId: newDeviceId() }
    const before = await snapshot()
    const sent = mailer.sent.length
    const headers: Record<string, string> = { 'x-test': '1' }
    if (type !== undefined && type !== 'multipart/form-data') headers['content-type'] = type
    if (origin !== null) headers.origin = origin
    const response = await app.request(
      `${path}?projectId=porthole-dev`,
      { method: 'POST', headers, body: encode(body, type ?? '') },
      { incoming: { socket: { remoteAddress: newIp() } } },
    )
    expect(response.status).toBe(status)
    expect((await errorOf(response)).code).toBe(
      status === 403 ? 'origin_not_allowed' : 'unsupported_media_type',
    )
    expect(mailer.sent.length).toBe(sent)
    expect(mailer.last(email)).toBeUndefined()
    expect(await snapshot()).toEqual(before)
  })

  test.each([
    '/auth/v1/login/%65mail',
    '/auth/v1/login/email/',
    '//auth/v1/login/email',
    '/auth/v1/login/./email',
    '/AUTH/v1/login/email',
  ])('a path spelt %s from another site is refused too', async (spelt) => {
    const email = newEmail()
    const before = await snapshot()
    const response = await app.request(`${spelt}?projectId=porthole-dev`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: evil },
      body: JSON.stringify({ email, deviceId: newDeviceId() }),
    })
    expect([403, 404]).toContain(response.status)
    expect(mailer.last(email)).toBeUndefined()
    expect(await snapshot()).toEqual(before)
  })
})

describe('inv-21 every state-changing browser endpoint refuses other sites and other types', () => {
  let token: string
  beforeAll(async () => {
    ;({ token } = await signUp(client, mailer))
  })

  test.each(
    jsonEndpoints.flatMap((endpoint) =>
      [
        { origin: evil, type: 'text/plain', status: 403 },
        { origin: 'null', type: 'application/json', status: 403 },
        { origin: null, type: 'application/json', status: 403 },
        {
          origin: endpoint.caller === 'widget' ? secureFrame : widget,
          type: 'application/json',
          status: 403,
        },
        { origin: 'caller', type: 'text/plain', status: 415 },
        { origin: 'caller', type: 'application/x-www-form-urlencoded', status: 415 },
        { origin: 'caller', type: 'multipart/form-data; boundary=x', status: 415 },
      ].map((attack) => ({ ...endpoint, ...attack })),
    ),
  )('$method $path from $origin as $type: $status, nothing written', async (attack) => {
    const before = await snapshot()
    const sent = mailer.sent.length
    const origin =
      attack.origin === 'caller'
        ? attack.caller === 'widget'
          ? widget
          : secureFrame
        : attack.origin
    const options = { token, origin, contentType: attack.type }
    const body = JSON.stringify(plausibleBody(attack.path))
    const response = await (attack.method === 'DELETE'
      ? client.delete(attack.path, options)
      : attack.method === 'PUT'
        ? client.put(attack.path, body, options)
        : client.post(attack.path, body, options))
    expect(response.status).toBe(attack.status)
    expect(mailer.sent.length).toBe(sent)
    expect(await snapshot()).toEqual(before)
  })

  test('positive control: the same calls from their callers, as JSON, are served', async () => {
    const nonce = await client.post('/siwx/nonce', undefined)
    expect(nonce.status).toBe(200)
    const status = await client.post('/auth/v1/device/status', {
      email: newEmail(),
      deviceId: newDeviceId(),
    })
    expect(status.status).toBe(200)
    expect((await client.get('/auth/v1/session', { token })).status).toBe(200)
    expect((await client.delete('/auth/v1/session', { token })).status).toBe(204)
    expect((await client.get('/auth/v1/session', { token })).status).toBe(401)
  })

  test('a CORS preflight from a caller is still answered', async () => {
    const response = await app.request('/auth/v1/login/email?projectId=porthole-dev', {
      method: 'OPTIONS',
      headers: {
        origin: secureFrame,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe(secureFrame)
  })
})

describe('inv-21 the device approval form is taken only from the API’s own page', () => {
  async function approvalLink(): Promise<URL> {
    const { email } = await signUp(client, mailer)
    // The sign-up's mail started the 30 s wait: this is not about it.
    await testDb.db.query('DELETE FROM email_send_throttle WHERE email = $1', [email])
    const login = await client.post('/auth/v1/login/email', { email, deviceId: newDeviceId() })
    // A code's answer, as for any address (SECURITY.md 26): the mail holds the link.
    expect(await login.json()).toEqual({ action: 'VERIFY_OTP' })
    return mailer.link(email)
  }

  function post(token: string, headers: Record<string, string>) {
    return app.request('/auth/v1/device/approve', {
      method: 'POST',
      headers,
      body: new URLSearchParams({ token }).toString(),
    })
  }

  test.each([
    ['another site', { origin: evil }, 403],
    ['a no-referrer page or sandboxed frame (Origin: null)', { origin: 'null' }, 403],
    ['no Origin', {}, 403],
    ['the secure frame', { origin: secureFrame }, 403],
    ['text/plain from the API page', { origin: apiOrigin, 'content-type': 'text/plain' }, 415],
  ] as const)('from %s: %i, a page, the device not approved', async (_, headers, status) => {
    const link = await approvalLink()
    const token = link.searchParams.get('token') ?? ''
    const before = await snapshot()
    const sent = mailer.sent.length
    const response = await post(token, {
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    })
    expect(response.status).toBe(status)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await response.text()).toContain('This request was refused')
    expect(mailer.sent.length).toBe(sent)
    expect(await snapshot()).toEqual(before)

    // Positive control: the page's own form, from the API's origin, approves.
    const approved = await post(token, {
      'content-type': 'application/x-www-form-urlencoded',
      origin: apiOrigin,
    })
    expect(approved.status).toBe(200)
    expect(await approved.text()).toContain('This device is approved')
  })

  test('the page with the form sends its origin with the POST (referrer policy same-origin)', async () => {
    const link = await approvalLink()
    const page = await app.request(`${link.pathname}${link.search}`)
    expect(page.headers.get('referrer-policy')).toBe('same-origin')
    expect(await page.text()).toContain('<meta name="referrer" content="same-origin">')
  })
})

describe('findBrowserEndpoint', () => {
  test('finds by method and exact path', () => {
    expect(findBrowserEndpoint('post', '/auth/v1/login/email')?.caller).toBe('secureFrame')
    expect(findBrowserEndpoint('DELETE', '/siwx/sessions')?.caller).toBe('widget')
    expect(findBrowserEndpoint('GET', '/auth/v1/session')).toBeUndefined()
    expect(findBrowserEndpoint('POST', '/v1/')).toBeUndefined()
  })
})
