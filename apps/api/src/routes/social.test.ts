import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { inspect } from 'node:util'
import { serve } from '@hono/node-server'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, type MockInstance, test, vi } from 'vitest'
import {
  createOidcProvider,
  defaultOidcUser,
  type OidcStandIn,
} from '../../../../e2e/support/oidcProvider.js'
import { createApp } from '../app.js'
import type { Config } from '../config.js'
import { createTestDb, type TestDb } from '../db/testing.js'
import {
  createMemoryMailer,
  createTestClient,
  errorOf,
  type MemoryMailer,
  newDeviceId,
  signUp,
  type TestClient,
} from '../embeddedTesting.js'
import { OAuthProviderError } from '../errors.js'
import { pageCsp } from '../pages.js'
import { sha256Hex } from '../users.js'
import { socialLoginTtlSeconds } from './social.js'

const publicApiUrl = 'http://api.test'
const redirectUri = `${publicApiUrl}/auth/v1/social/callback`
const secureFrame = 'http://secure.localhost:5172'
const oauthClient = { clientId: 'porthole-api', clientSecret: 'api-secret-value' }
const bob = { sub: '104729451982374651020', email: 'bob@example.com', name: 'Bob Example' }
/** Google says nothing about Carol's address being hers. */
const carol = {
  sub: '200000000000000000001',
  email: 'carol@example.com',
  email_verified: false,
  name: 'Carol',
}

let op: OidcStandIn
let testDb: TestDb
let app: Hono
let client: TestClient
let mailer: MemoryMailer
/** Added to the real time: the ID tokens are checked against the real clock, expiry against this. */
let offset = 0
const now = () => new Date(Date.now() + offset)
const onError = vi.fn()
const consoleSpies: MockInstance[] = []
/** States, device ids, tokens and the client secret: none may reach a log. */
const secrets = new Set<string>([oauthClient.clientSecret])

beforeAll(async () => {
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    consoleSpies.push(vi.spyOn(console, method))
  }
  op = await createOidcProvider({
    clients: [{ ...oauthClient, redirectUris: [redirectUri] }],
    users: [defaultOidcUser, bob, carol],
  })
  testDb = await createTestDb({
    publicApiUrl,
    socialProviders: { google: { ...oauthClient, issuer: op.issuer } },
  })
  mailer = createMemoryMailer()
  app = createApp({ config: testDb.config, db: testDb.db, mailer, now, onError })
  client = createTestClient(app)
})
afterAll(async () => {
  await testDb?.close()
  await op?.close()
  for (const spy of consoleSpies) spy.mockRestore()
})

function newState(): string {
  const state = randomBytes(18).toString('base64url')
  secrets.add(state)
  return state
}

function newDevice(): string {
  const deviceId = newDeviceId()
  secrets.add(deviceId)
  return deviceId
}

function start(body: unknown, { on = client, origin = secureFrame as string | undefined } = {}) {
  return on.post('/auth/v1/social/start', body, origin === undefined ? {} : { origin })
}

function result(state: string, deviceId: string, { origin = secureFrame } = {}) {
  return client.post('/auth/v1/social/result', { state, deviceId }, { origin })
}

/**
 * Follows the provider's redirects from `uri`, with its cookies, as a browser
 * would, to the first URL that leaves the provider: the API's callback.
 */
async function authorize(uri: string, issuer = op.issuer): Promise<URL> {
  const cookies = new Map<string, string>()
  let url = new URL(uri)
  for (let hops = 0; url.origin === issuer; hops++) {
    if (hops === 10) throw new Error(`no way out of the provider after ${url}`)
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const equals = pair.indexOf('=')
      cookies.set(pair.slice(0, equals), pair.slice(equals + 1))
    }
    const location = response.headers.get('location')
    if (response.status < 300 || response.status > 399 || location === null) {
      throw new Error(`${url} answered ${response.status}: ${await response.text()}`)
    }
    url = new URL(location, url)
  }
  return url
}

/** The popup landing on the callback. */
function land(callback: URL) {
  return app.request(`${callback.pathname}${callback.search}`)
}

/** A whole social login on `deviceId`: start, the provider, the callback, the result. */
async function socialLogin(deviceId = newDevice(), { loginHint }: { loginHint?: string } = {}) {
  const state = newState()
  const started = await start({ provider: 'google', deviceId, state })
  expect(started.status).toBe(200)
  const { uri } = (await started.json()) as { uri: string }
  const url = new URL(uri)
  if (loginHint !== undefined) url.searchParams.set('login_hint', loginHint)
  const landed = await land(await authorize(url.href))
  const answer = await result(state, deviceId)
  const body = (await answer.json()) as { token: string; user: { id: string; email?: string } }
  secrets.add(body.token)
  return { state, deviceId, landed, answer, ...body }
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await testDb.db.query<{ count: number }>(sql, params)
  return Number(row?.count)
}

describe('POST /auth/v1/social/start', () => {
  test("answers the provider's authorization URL: PKCE S256, state, nonce, our redirect URI", async () => {
    const state = newState()
    const deviceId = newDevice()
    const response = await start({ provider: 'google', deviceId, state })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const uri = new URL(((await response.json()) as { uri: string }).uri)
    expect(`${uri.origin}${uri.pathname}`).toBe(`${op.issuer}/auth`)
    const params = Object.fromEntries(uri.searchParams)
    expect(params).toEqual({
      client_id: oauthClient.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid email profile',
      state,
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge_method: 'S256',
      nonce: expect.stringMatching(/^[\w-]{43}$/),
    })
    // Stored by the state's hash, for 10 minutes, with the device's hash.
    const [row] = await testDb.db.query(
      `SELECT provider, device_id_sha256, extract(epoch FROM expires_at - created_at)::int AS ttl
       FROM social_logins WHERE state_sha256 = $1`,
      [sha256Hex(state)],
    )
    expect(row).toEqual({
      provider: 'google',
      device_id_sha256: sha256Hex(deviceId),
      ttl: socialLoginTtlSeconds,
    })
    const all = JSON.stringify(await testDb.db.query('SELECT * FROM social_logins'))
    expect(all).not.toContain(state)
    expect(all).not.toContain(deviceId)
  })

  test('refuses a provider that is not configured, saying so', async () => {
    const response = await start({ provider: 'github', deviceId: newDevice(), state: newState() })
    expect(response.status).toBe(400)
    expect(await errorOf(response)).toEqual({
      code: 'provider_not_configured',
      message:
        "Sign-in with GitHub is not configured on this server (SOCIAL_PROVIDERS has no 'github')",
    })
  })

  test('refuses a state used before (409 state_in_use)', async () => {
    const state = newState()
    expect((await start({ provider: 'google', deviceId: newDevice(), state })).status).toBe(200)
    const again = await start({ provider: 'google', deviceId: newDevice(), state })
    expect(again.status).toBe(409)
    expect((await errorOf(again)).code).toBe('state_in_use')
  })

  test('refuses another browser origin than the secure frame; a server-side call has none', async () => {
    const body = () => ({ provider: 'google', deviceId: newDevice(), state: newState() })
    for (const origin of ['http://widget.localhost:5171', 'https://evil.example', 'null']) {
      const refused = await start(body(), { origin })
      expect(refused.status).toBe(403)
      expect(await errorOf(refused)).toEqual({
        code: 'origin_not_allowed',
        message: 'Only the secure frame may start or collect a social login',
      })
    }
    expect((await start(body(), { origin: undefined })).status).toBe(200)
  })

  test.each([
    ['farcaster', { provider: 'farcaster' }],
    ['an unknown provider', { provider: 'myspace' }],
    ['a short state', { state: 'abc' }],
    ['a state with a dot', { state: `${'a'.repeat(30)}.` }],
    ['an unknown key', { redirectUri: 'https://evil.example/cb' }],
    ['no device id', { deviceId: undefined }],
  ])('refuses a body with %s (400)', async (_, change) => {
    const response = await start({
      provider: 'google',
      deviceId: newDevice(),
      state: newState(),
      ...change,
    })
    expect(response.status).toBe(400)
    expect((await errorOf(response)).code).toBe('invalid_body')
  })
})

describe('a social login, end to end', () => {
  test('pending until the callback; then the login once; then 410 login_expired', async () => {
    const state = newState()
    const deviceId = newDevice()
    const { uri } = (await (await start({ provider: 'google', deviceId, state })).json()) as {
      uri: string
    }
    const pending = await result(state, deviceId)
    expect(pending.status).toBe(202)
    expect(await pending.json()).toEqual({ status: 'pending' })

    const callback = await authorize(uri)
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri)
    const page = await land(callback)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toBe(pageCsp)
    const html = await page.text()
    expect(html).toContain('You are signed in. You can close this window.')
    expect(html).not.toMatch(/<script/i)

    const done = await result(state, deviceId)
    expect(done.status).toBe(200)
    const login = (await done.json()) as { token: string; user: { id: string } }
    secrets.add(login.token)
    expect(login).toEqual({
      token: expect.stringMatching(/^[\w-]{43}$/),
      user: { id: expect.any(String), email: defaultOidcUser.email },
    })
    const session = await client.get('/auth/v1/session', { token: login.token })
    expect(await session.json()).toEqual({ user: login.user })
    // The provider login verified the device: an email login there needs no approval.
    const status = await client.post('/auth/v1/device/status', {
      email: defaultOidcUser.email,
      deviceId,
    })
    expect(await status.json()).toEqual({ verified: true })

    const again = await result(state, deviceId)
    expect(again.status).toBe(410)
    expect(await errorOf(again)).toEqual({
      code: 'login_expired',
      message: 'This login has expired or was already collected: start again',
    })
    // The popup reloaded: nothing more happens.
    const reloaded = await land(callback)
    expect(reloaded.status).toBe(410)
  })

  test('the same Google account finds the same user on every device', async () => {
    const first = await socialLogin(newDevice(), { loginHint: bob.sub })
    const second = await socialLogin(newDevice(), { loginHint: bob.sub })
    expect(first.answer.status).toBe(200)
    expect(second.user.id).toBe(first.user.id)
    expect(
      await count(
        `SELECT count(*)::int AS count FROM identities WHERE provider = 'google' AND subject = $1`,
        [bob.sub],
      ),
    ).toBe(1)
  })

  test('a verified Google email joins the user who signed up with that email', async () => {
    const email = `dana-${randomBytes(4).toString('hex')}@example.com`
    const dana = { sub: `3${randomBytes(8).toString('hex')}`, email, name: 'Dana' }
    const google = await createOidcProvider({
      clients: [{ ...oauthClient, redirectUris: [redirectUri] }],
      users: [dana],
    })
    try {
      const byEmail = await signUp(client, mailer, { email })
      secrets.add(byEmail.token)
      const withGoogle = createApp({
        config: {
          ...testDb.config,
          socialProviders: { google: { ...oauthClient, issuer: google.issuer } },
        },
        db: testDb.db,
        mailer,
        now,
      })
      const other = createTestClient(withGoogle)
      const state = newState()
      const deviceId = newDevice()
      const started = await other.post(
        '/auth/v1/social/start',
        { provider: 'google', deviceId, state },
        {},
      )
      const { uri } = (await started.json()) as { uri: string }
      const callback = await authorize(uri, google.issuer)
      expect((await withGoogle.request(`${callback.pathname}${callback.search}`)).status).toBe(200)
      const login = (await (
        await other.post('/auth/v1/social/result', { state, deviceId })
      ).json()) as { token: string; user: { id: string } }
      secrets.add(login.token)
      expect(login.user).toEqual({ id: byEmail.user.id, email })
    } finally {
      await google.close()
    }
  })

  test('an unverified email links nothing and is not kept', async () => {
    const byEmail = await signUp(client, mailer, { email: carol.email })
    secrets.add(byEmail.token)
    const login = await socialLogin(newDevice(), { loginHint: carol.sub })
    expect(login.answer.status).toBe(200)
    expect(login.user.id).not.toBe(byEmail.user.id)
    expect(login.user).toEqual({ id: login.user.id })
  })

  test('a refusal at the provider is stored as a failure: the page and the result say so', async () => {
    const state = newState()
    const deviceId = newDevice()
    const { uri } = (await (await start({ provider: 'google', deviceId, state })).json()) as {
      uri: string
    }
    const url = new URL(uri)
    url.searchParams.set('login_hint', 'nobody@example.com')
    const callback = await authorize(url.href)
    expect(callback.searchParams.get('error')).toBe('access_denied')
    const page = await land(callback)
    expect(page.status).toBe(403)
    expect(await page.text()).toContain('Sign-in with Google was cancelled')
    const failed = await result(state, deviceId)
    expect(failed.status).toBe(403)
    expect(await errorOf(failed)).toEqual({
      code: 'social_login_failed',
      message: 'Sign-in with Google was cancelled',
    })
    expect((await result(state, deviceId)).status).toBe(410)
  })

  test('a forged callback (bad code) fails at the exchange, and no one is signed in', async () => {
    const state = newState()
    const deviceId = newDevice()
    await start({ provider: 'google', deviceId, state })
    onError.mockClear()
    const page = await app.request(`/auth/v1/social/callback?code=forged-code&state=${state}`)
    expect(page.status).toBe(502)
    expect(await page.text()).toContain('Sign-in with Google failed')
    expect(onError).toHaveBeenCalledWith(expect.any(OAuthProviderError))
    const failed = await result(state, deviceId)
    expect(await errorOf(failed)).toEqual({
      code: 'social_login_failed',
      message: 'Sign-in with Google failed: try again',
    })
  })

  test.each([
    ['the stored PKCE verifier', 'db', 'code_verifier'],
    ['the stored nonce', 'db', 'nonce'],
    ['the code challenge sent', 'url', 'code_challenge'],
    ['the nonce sent', 'url', 'nonce'],
  ])('the exchange fails when %s was altered', async (_, where, name) => {
    const state = newState()
    const deviceId = newDevice()
    const { uri } = (await (await start({ provider: 'google', deviceId, state })).json()) as {
      uri: string
    }
    const altered = randomBytes(32).toString('base64url')
    const url = new URL(uri)
    if (where === 'db') {
      await testDb.db.query(`UPDATE social_logins SET ${name} = $2 WHERE state_sha256 = $1`, [
        sha256Hex(state),
        altered,
      ])
    } else {
      url.searchParams.set(name, altered)
    }
    const page = await land(await authorize(url.href))
    expect(page.status).toBe(502)
    expect((await errorOf(await result(state, deviceId))).code).toBe('social_login_failed')
    expect(
      await count('SELECT count(*)::int AS count FROM devices WHERE device_id_sha256 = $1', [
        sha256Hex(deviceId),
      ]),
    ).toBe(0)
  })

  test('the result needs the device that started the login, and its project', async () => {
    const state = newState()
    const deviceId = newDevice()
    const { uri } = (await (await start({ provider: 'google', deviceId, state })).json()) as {
      uri: string
    }
    await land(await authorize(uri))
    const stranger = await result(state, newDevice())
    expect(stranger.status).toBe(403)
    expect(await errorOf(stranger)).toEqual({
      code: 'device_mismatch',
      message: 'This login was started on another device',
    })
    const otherOrigin = await result(state, deviceId, { origin: 'https://evil.example' })
    expect(otherOrigin.status).toBe(403)
    // Neither consumed it: the right device still collects it.
    expect((await result(state, deviceId)).status).toBe(200)
  })

  test(`a login not finished within ${socialLoginTtlSeconds / 60} minutes expires`, async () => {
    const state = newState()
    const deviceId = newDevice()
    const { uri } = (await (await start({ provider: 'google', deviceId, state })).json()) as {
      uri: string
    }
    const callback = await authorize(uri)
    offset += socialLoginTtlSeconds * 1000
    try {
      const page = await land(callback)
      expect(page.status).toBe(410)
      expect(await page.text()).toContain('This sign-in has expired')
      expect((await errorOf(await result(state, deviceId))).code).toBe('login_expired')
      expect(
        await count('SELECT count(*)::int AS count FROM devices WHERE device_id_sha256 = $1', [
          sha256Hex(deviceId),
        ]),
      ).toBe(0)
    } finally {
      offset -= socialLoginTtlSeconds * 1000
    }
  })

  test("a finished login must be collected within 10 minutes of the provider's answer", async () => {
    const state = newState()
    const deviceId = newDevice()
    const { uri } = (await (await start({ provider: 'google', deviceId, state })).json()) as {
      uri: string
    }
    await land(await authorize(uri))
    offset += socialLoginTtlSeconds * 1000
    try {
      expect((await errorOf(await result(state, deviceId))).code).toBe('login_expired')
    } finally {
      offset -= socialLoginTtlSeconds * 1000
    }
  })

  test('accepts the callback as a form post (response_mode=form_post, as Apple answers)', async () => {
    const state = newState()
    const deviceId = newDevice()
    const { uri } = (await (await start({ provider: 'google', deviceId, state })).json()) as {
      uri: string
    }
    const callback = await authorize(uri)
    const page = await app.request('/auth/v1/social/callback', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: callback.searchParams.toString(),
    })
    expect(page.status).toBe(200)
    expect((await result(state, deviceId)).status).toBe(200)
  })

  test.each([
    ['no state', 'code=abc'],
    ['a malformed state', 'code=abc&state=x'],
    ['an unknown state', `code=abc&state=${'A'.repeat(30)}`],
    ['an unknown parameter', `code=abc&state=${'A'.repeat(30)}&redirect=https://evil.example`],
    ['two states', `state=${'A'.repeat(30)}&state=${'B'.repeat(30)}`],
  ])('answers a callback with %s with a 400 page', async (_, query) => {
    const page = await app.request(`/auth/v1/social/callback?${query}`)
    expect(page.status).toBe(400)
    expect(page.headers.get('content-security-policy')).toBe(pageCsp)
    expect(await page.text()).toContain('This sign-in is not valid')
  })
})

describe('social providers', () => {
  /** A fetch that fails every request, to show nothing is fetched. */
  const offline = vi.fn(async () => {
    throw new TypeError('fetch failed')
  })

  function appWith(socialProviders: Config['socialProviders'], fetch: typeof globalThis.fetch) {
    const configured = createApp({
      config: { ...testDb.config, socialProviders },
      db: testDb.db,
      mailer,
      now,
      fetch,
      onError,
    })
    return { app: configured, client: createTestClient(configured) }
  }

  test.each([
    ['google', 'https://accounts.google.com/o/oauth2/v2/auth', 'openid email profile', true],
    ['apple', 'https://appleid.apple.com/auth/authorize', 'openid email', true],
    ['github', 'https://github.com/login/oauth/authorize', 'read:user user:email', false],
    ['facebook', 'https://www.facebook.com/v21.0/dialog/oauth', 'public_profile email', false],
    ['x', 'https://x.com/i/oauth2/authorize', 'users.read tweet.read', false],
    ['discord', 'https://discord.com/oauth2/authorize', 'identify email', false],
  ] as const)(
    '%s defaults to its public endpoints, fetching nothing',
    async (provider, endpoint, scope, oidc) => {
      offline.mockClear()
      const configured = appWith(
        { [provider]: { clientId: 'id', clientSecret: 'secret' } },
        offline,
      )
      const response = await start(
        { provider, deviceId: newDevice(), state: newState() },
        { on: configured.client },
      )
      expect(response.status).toBe(200)
      const uri = new URL(((await response.json()) as { uri: string }).uri)
      expect(`${uri.origin}${uri.pathname}`).toBe(endpoint)
      expect(uri.searchParams.get('scope')).toBe(scope)
      expect(uri.searchParams.get('code_challenge_method')).toBe('S256')
      expect(uri.searchParams.get('redirect_uri')).toBe(redirectUri)
      expect(uri.searchParams.has('nonce')).toBe(oidc)
      if (provider === 'apple') expect(uri.searchParams.get('response_mode')).toBe('form_post')
      expect(offline).not.toHaveBeenCalled()
    },
  )

  test('an unreachable issuer is discovered on first use, not at start-up: 502, then works', async () => {
    offline.mockClear()
    let online = false
    const flaky: typeof globalThis.fetch = (input, init) =>
      online ? fetch(input, init) : offline()
    const configured = appWith({ google: { ...oauthClient, issuer: op.issuer } }, flaky)
    expect(offline).not.toHaveBeenCalled()
    const body = () => ({ provider: 'google', deviceId: newDevice(), state: newState() })
    const down = await start(body(), { on: configured.client })
    expect(down.status).toBe(502)
    expect(await errorOf(down)).toEqual({
      code: 'provider_unavailable',
      message: 'Google cannot be reached right now: try again later',
    })
    online = true
    expect((await start(body(), { on: configured.client })).status).toBe(200)
  })

  test('GitHub: the primary email, verified, links to the email user; the code exchange uses PKCE', async () => {
    const email = `erin-${randomBytes(4).toString('hex')}@example.com`
    const byEmail = await signUp(client, mailer, { email })
    secrets.add(byEmail.token)
    const tokenRequests: URLSearchParams[] = []
    const github: typeof globalThis.fetch = async (input, init) => {
      const url = String(input)
      const json = (body: unknown) =>
        new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } })
      if (url === 'https://github.com/login/oauth/access_token') {
        tokenRequests.push(new URLSearchParams(String(init?.body)))
        return json({ access_token: 'gho_testtoken', token_type: 'bearer', scope: 'read:user' })
      }
      if (url === 'https://api.github.com/user') return json({ id: 4242, login: 'erin' })
      if (url === 'https://api.github.com/user/emails') {
        return json([
          { email: 'old@example.com', primary: false, verified: true },
          { email: email.toUpperCase(), primary: true, verified: true },
        ])
      }
      return new Response('not found', { status: 404 })
    }
    const configured = appWith({ github: { clientId: 'gh-id', clientSecret: 'gh-secret' } }, github)
    const state = newState()
    const deviceId = newDevice()
    await start({ provider: 'github', deviceId, state }, { on: configured.client })
    const page = await configured.app.request(
      `/auth/v1/social/callback?code=gh-code&state=${state}`,
    )
    expect(page.status).toBe(200)
    expect(tokenRequests).toHaveLength(1)
    expect(Object.fromEntries(tokenRequests[0] ?? [])).toMatchObject({
      grant_type: 'authorization_code',
      code: 'gh-code',
      redirect_uri: redirectUri,
      client_id: 'gh-id',
      client_secret: 'gh-secret',
      code_verifier: expect.stringMatching(/^[\w-]{43,128}$/),
    })
    const login = (await (
      await configured.client.post('/auth/v1/social/result', { state, deviceId })
    ).json()) as { token: string; user: unknown }
    secrets.add(login.token)
    expect(login.user).toEqual({ id: byEmail.user.id, email })
  })
})

describe('a social login through real HTTP servers', () => {
  test('the popup follows the provider back to the API, which signs the user in', async () => {
    let handler: Hono['fetch'] = () => new Response(null, { status: 503 })
    const server = serve({ fetch: (request) => handler(request), port: 0, hostname: '127.0.0.1' })
    await new Promise((resolve) => server.once('listening', resolve))
    const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const provider = await createOidcProvider({
      clients: [{ ...oauthClient, redirectUris: [`${apiUrl}/auth/v1/social/callback`] }],
    })
    try {
      const real = createApp({
        config: {
          ...testDb.config,
          publicApiUrl: apiUrl,
          socialProviders: { google: { ...oauthClient, issuer: provider.issuer } },
        },
        db: testDb.db,
        mailer,
      })
      handler = real.fetch
      const state = newState()
      const deviceId = newDevice()
      const post = (path: string, body: unknown) =>
        fetch(`${apiUrl}${path}?projectId=porthole-dev`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: secureFrame },
          body: JSON.stringify(body),
        })
      const started = await post('/auth/v1/social/start', { provider: 'google', deviceId, state })
      expect(started.headers.get('access-control-allow-origin')).toBe(secureFrame)
      const { uri } = (await started.json()) as { uri: string }
      const callback = await authorize(uri, provider.issuer)
      expect(callback.origin).toBe(apiUrl)
      const page = await fetch(callback)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('You are signed in. You can close this window.')
      const login = await post('/auth/v1/social/result', { state, deviceId })
      expect(login.status).toBe(200)
      const body = (await login.json()) as { token: string; user: { email: string } }
      secrets.add(body.token)
      expect(body.user.email).toBe(defaultOidcUser.email)
    } finally {
      await provider.close()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe('inv-11 no state, device id, token or client secret in the logs', () => {
  test('console output and reported errors never hold a secret', () => {
    expect(secrets.size).toBeGreaterThan(10)
    const logged = [...consoleSpies.flatMap((spy) => spy.mock.calls), ...onError.mock.calls].map(
      (args) => inspect(args, { depth: 5 }),
    )
    expect(onError).toHaveBeenCalled()
    for (const text of logged) {
      for (const secret of secrets) expect(text).not.toContain(secret)
    }
  })
})
