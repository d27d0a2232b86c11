import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { runInNewContext } from 'node:vm'
import { serve } from '@hono/node-server'
import {
  createOidcProvider,
  defaultOidcUser,
  type OidcStandIn,
} from '@porthole/dev-stack/oidcProvider'
import { SocialDoneMessage } from '@porthole/protocol/Embedded'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { createTestDb, type TestDb } from '../../../test/db.js'
import {
  createMemoryMailer,
  createTestClient,
  errorOf,
  expectRefused,
  fakeWallet,
  type MemoryMailer,
  newDeviceId,
  newEmail,
  signUp,
  type TestClient,
  watchLogs,
} from '../../../test/embedded.js'
import { createApp } from '../../app.js'
import type { Config } from '../../http/config.js'
import { OAuthProviderError } from '../../http/errors.js'
import { donePageCsp, doneScript, noOpenerMessage, pageCsp } from '../../http/pages.js'
import { sha256Hex } from '../../wallet/users.js'
import { pendingLoginTtlSeconds } from '../pendingLogin.js'

const publicApiUrl = 'http://api.test'
const redirectUri = `${publicApiUrl}/auth/v1/social/callback`
const secureFrame = 'http://secure.localhost:5172'
const widgetOrigin = 'http://widget.localhost:5171'
const donePath = '/auth/v1/social/done'
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
const { onError, spyOnConsole, restoreConsole, expectNoSecret } = watchLogs()
/** States, device ids, tokens and the client secret: none may reach a log. */
const secrets = new Set<string>([oauthClient.clientSecret])

beforeAll(async () => {
  spyOnConsole()
  op = await createOidcProvider({
    clients: [{ ...oauthClient, redirectUris: [redirectUri] }],
    users: [defaultOidcUser, bob, carol],
    // A login_hint naming a new email signs in a new Google account with it (verified).
    signUpByHint: true,
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
  restoreConsole()
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

/** A well-formed claim that is not the login's. */
function anyClaim(): string {
  return randomBytes(32).toString('base64url')
}

function result(
  state: string,
  deviceId: string,
  claim: string | undefined,
  { origin = secureFrame } = {},
) {
  return client.post(
    '/auth/v1/social/result',
    claim === undefined ? { state, deviceId } : { state, deviceId, claim },
    { origin },
  )
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
function land(callback: URL, on: { request: Hono['request'] } = app) {
  return on.request(`${callback.pathname}${callback.search}`)
}

/**
 * The popup landing on the callback of a login the provider granted: a 303
 * to the done page, whose URL carries the state and the one-time claim.
 */
async function finish(
  callback: URL,
  on: { request: Hono['request'] } = app,
): Promise<{ done: URL; claim: string }> {
  const landed = await land(callback, on)
  expect(landed.status).toBe(303)
  expect(landed.headers.get('cache-control')).toBe('no-store')
  expect(landed.headers.get('referrer-policy')).toBe('no-referrer')
  const done = new URL(landed.headers.get('location') ?? '')
  expect(`${done.origin}${done.pathname}`).toBe(`${publicApiUrl}${donePath}`)
  expect([...done.searchParams.keys()]).toEqual(['state', 'claim'])
  const claim = done.searchParams.get('claim') ?? ''
  expect(claim).toMatch(/^[\w-]{43}$/)
  expect(done.searchParams.get('state')).toBe(callback.searchParams.get('state'))
  secrets.add(claim)
  return { done, claim }
}

/** What a finished login answers: a session, or the email's step (SECURITY.md 23). */
type Answer = {
  token?: string
  user?: { id: string; email?: string }
  action?: 'VERIFY_DEVICE' | 'VERIFY_OTP'
  email?: string
}

/** A whole social login on `deviceId`: start, the provider, the callback, the result. */
async function socialLogin(deviceId = newDevice(), { loginHint }: { loginHint?: string } = {}) {
  const state = newState()
  const started = await start({ provider: 'google', deviceId, state })
  expect(started.status).toBe(200)
  const { uri } = (await started.json()) as { uri: string }
  const url = new URL(uri)
  if (loginHint !== undefined) url.searchParams.set('login_hint', loginHint)
  const { claim } = await finish(await authorize(url.href))
  const answer = await result(state, deviceId, claim)
  const body = (await answer.json()) as Answer
  if (body.token !== undefined) secrets.add(body.token)
  return { state, deviceId, claim, answer, ...body }
}

/** The provider's URL of a login started now, for a (new) Google account with `email`. */
async function startFor(email: string, deviceId: string, state: string): Promise<string> {
  const { uri } = (await (await start({ provider: 'google', deviceId, state })).json()) as {
    uri: string
  }
  const url = new URL(uri)
  url.searchParams.set('login_hint', email)
  return url.href
}

/** Lets the next mail to `email` go now (the 30 s between two mails is tested elsewhere). */
async function freeMailSlot(email: string): Promise<void> {
  await testDb.db.query('DELETE FROM email_send_throttle WHERE email = $1', [email])
}

/** Follows the approval link last mailed to `email` (its page's form, from the API's origin). */
async function approveDevice(email: string): Promise<void> {
  const link = mailer.link(email)
  const approved = await app.request('/auth/v1/device/approve', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: new URL(publicApiUrl).origin,
    },
    body: `token=${link.searchParams.get('token')}`,
  })
  expect(approved.status).toBe(200)
}

/** Enters the code last mailed to `email` on `deviceId`: the email login's last step. */
async function enterCode(email: string, deviceId: string) {
  const verified = await client.post('/auth/v1/login/email/verify', {
    email,
    otp: mailer.code(email),
    deviceId,
  })
  const body = (await verified.json()) as Answer
  if (body.token !== undefined) secrets.add(body.token)
  return { status: verified.status, ...body }
}

async function sessionsOf(deviceId: string): Promise<number> {
  return count('SELECT count(*)::int AS count FROM embedded_sessions WHERE device_id_sha256 = $1', [
    sha256Hex(deviceId),
  ])
}

async function identitiesOf(userId: string): Promise<string[]> {
  const rows = await testDb.db.query<{ provider: string }>(
    'SELECT provider FROM identities WHERE user_id = $1 ORDER BY provider',
    [userId],
  )
  return rows.map((row) => row.provider)
}

async function deviceVerified(deviceId: string): Promise<boolean> {
  return (
    (await count('SELECT count(*)::int AS count FROM devices WHERE device_id_sha256 = $1', [
      sha256Hex(deviceId),
    ])) > 0
  )
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
      ttl: pendingLoginTtlSeconds,
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
    await expectRefused(again, 409, 'state_in_use')
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
    await expectRefused(response, 400, 'invalid_body')
  })
})

describe('a social login, end to end', () => {
  test('pending until the callback; then, with the claim, the login once; then 410 login_expired', async () => {
    const state = newState()
    const deviceId = newDevice()
    const { uri } = (await (await start({ provider: 'google', deviceId, state })).json()) as {
      uri: string
    }
    // No claim exists yet: any well-formed one waits.
    const pending = await result(state, deviceId, anyClaim())
    expect(pending.status).toBe(202)
    expect(await pending.json()).toEqual({ status: 'pending' })

    const callback = await authorize(uri)
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri)
    const { claim } = await finish(callback)
    // Only the claim's SHA-256 is kept, on the login; the device is not verified yet.
    const [row] = await testDb.db.query<{ claim_sha256: string }>(
      'SELECT claim_sha256 FROM social_logins WHERE state_sha256 = $1',
      [sha256Hex(state)],
    )
    expect(row?.claim_sha256).toBe(sha256Hex(claim))
    expect(JSON.stringify(await testDb.db.query('SELECT * FROM social_logins'))).not.toContain(
      claim,
    )
    expect(await deviceVerified(deviceId)).toBe(false)

    const done = await result(state, deviceId, claim)
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

    const again = await result(state, deviceId, claim)
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
    expect(first.answer.status).toBe(200)
    // Bob's account has his email: a new device goes through it (SECURITY.md 23).
    await freeMailSlot(bob.email)
    const second = await socialLogin(newDevice(), { loginHint: bob.sub })
    expect(second).toMatchObject({ action: 'VERIFY_DEVICE', email: bob.email })
    await approveDevice(bob.email)
    const signedIn = await enterCode(bob.email, second.deviceId)
    expect(signedIn.user?.id).toBe(first.user?.id)
    expect(
      await count(
        `SELECT count(*)::int AS count FROM identities WHERE provider = 'google' AND subject = $1`,
        [bob.sub],
      ),
    ).toBe(1)
  })

  test('an unverified email links nothing and is not kept', async () => {
    const byEmail = await signUp(client, mailer, { email: carol.email })
    secrets.add(byEmail.token)
    const login = await socialLogin(newDevice(), { loginHint: carol.sub })
    expect(login.answer.status).toBe(200)
    expect(login.user?.id).not.toBe(byEmail.user.id)
    expect(login.user).toEqual({ id: login.user?.id })
  })

  test('a refusal at the provider is stored as a failure: the page and the result say so', async () => {
    const state = newState()
    const deviceId = newDevice()
    const { uri } = (await (await start({ provider: 'google', deviceId, state })).json()) as {
      uri: string
    }
    const url = new URL(uri)
    // No account at the provider (not an email, so the stand-in makes none).
    url.searchParams.set('login_hint', 'nobody')
    const callback = await authorize(url.href)
    expect(callback.searchParams.get('error')).toBe('access_denied')
    const page = await land(callback)
    expect(page.status).toBe(403)
    expect(await page.text()).toContain('Sign-in with Google was cancelled')
    // A failure has no claim: nothing to protect, any well-formed one hears it.
    const failed = await result(state, deviceId, anyClaim())
    expect(failed.status).toBe(403)
    expect(await errorOf(failed)).toEqual({
      code: 'social_login_failed',
      message: 'Sign-in with Google was cancelled',
    })
    expect((await result(state, deviceId, anyClaim())).status).toBe(410)
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
    const failed = await result(state, deviceId, anyClaim())
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
    expect((await errorOf(await result(state, deviceId, anyClaim()))).code).toBe(
      'social_login_failed',
    )
    expect(
      await count('SELECT count(*)::int AS count FROM devices WHERE device_id_sha256 = $1', [
        sha256Hex(deviceId),
      ]),
    ).toBe(0)
  })

  test('the result needs the device that started the login, and its project', async () => {
    const state = newState()
    const deviceId = newDevice()
    const uri = await startFor(newEmail(), deviceId, state)
    const { claim } = await finish(await authorize(uri))
    const stranger = await result(state, newDevice(), claim)
    expect(stranger.status).toBe(403)
    expect(await errorOf(stranger)).toEqual({
      code: 'device_mismatch',
      message: 'This login was started on another device',
    })
    const otherOrigin = await result(state, deviceId, claim, { origin: 'https://evil.example' })
    expect(otherOrigin.status).toBe(403)
    // Neither consumed it: the right device still collects it.
    expect((await result(state, deviceId, claim)).status).toBe(200)
  })

  test(`a login not finished within ${pendingLoginTtlSeconds / 60} minutes expires`, async () => {
    const state = newState()
    const deviceId = newDevice()
    const { uri } = (await (await start({ provider: 'google', deviceId, state })).json()) as {
      uri: string
    }
    const callback = await authorize(uri)
    offset += pendingLoginTtlSeconds * 1000
    try {
      const page = await land(callback)
      expect(page.status).toBe(410)
      expect(await page.text()).toContain('This sign-in has expired')
      expect((await errorOf(await result(state, deviceId, anyClaim()))).code).toBe('login_expired')
      expect(await deviceVerified(deviceId)).toBe(false)
    } finally {
      offset -= pendingLoginTtlSeconds * 1000
    }
  })

  test("a finished login must be collected within 10 minutes of the provider's answer", async () => {
    const state = newState()
    const deviceId = newDevice()
    const { uri } = (await (await start({ provider: 'google', deviceId, state })).json()) as {
      uri: string
    }
    const { claim } = await finish(await authorize(uri))
    offset += pendingLoginTtlSeconds * 1000
    try {
      expect((await errorOf(await result(state, deviceId, claim))).code).toBe('login_expired')
    } finally {
      offset -= pendingLoginTtlSeconds * 1000
    }
  })

  test('accepts the callback as a form post (response_mode=form_post, as Apple answers)', async () => {
    const state = newState()
    const deviceId = newDevice()
    const callback = await authorize(await startFor(newEmail(), deviceId, state))
    const page = await app.request('/auth/v1/social/callback', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: callback.searchParams.toString(),
    })
    // 303: the browser follows it to the done page with a GET.
    expect(page.status).toBe(303)
    const claim = new URL(page.headers.get('location') ?? '').searchParams.get('claim') ?? ''
    secrets.add(claim)
    expect((await result(state, deviceId, claim)).status).toBe(200)
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

describe('inv-23 the strongest factor the account has decides', () => {
  test('a verified Google email finds the email account on a new device: no session, no key, the email’s approval first', async () => {
    const email = newEmail()
    const byEmail = await signUp(client, mailer, { email })
    secrets.add(byEmail.token)
    const wallet = fakeWallet()
    expect((await client.put('/wallet/v1/shares', wallet, { token: byEmail.token })).status).toBe(
      201,
    )
    await freeMailSlot(email)

    // A Google account with the same (verified) email, on a device the account never used.
    const deviceId = newDevice()
    const google = await socialLogin(deviceId, { loginHint: email })
    // The attack: a session here would release the auth and recovery shares, the whole key.
    expect(google.answer.status).toBe(200)
    expect(google.token).toBeUndefined()
    expect({ action: google.action, email: google.email }).toEqual({
      action: 'VERIFY_DEVICE',
      email,
    })
    expect(await sessionsOf(deviceId)).toBe(0)
    expect(await deviceVerified(deviceId)).toBe(false)
    expect(mailer.last(email)?.subject).toBe('Approve this device for Porthole')
    // Not linked yet: Google alone still finds no account.
    expect(await identitiesOf(byEmail.user.id)).toEqual(['email'])

    // The email decides: the approval, then the code entered on this device.
    await approveDevice(email)
    const signedIn = await enterCode(email, deviceId)
    expect(signedIn.status).toBe(200)
    expect(signedIn.user?.id).toBe(byEmail.user.id)
    expect(await identitiesOf(byEmail.user.id)).toEqual(['email', 'google'])
    const shares = await client.get('/wallet/v1/shares', {
      token: signedIn.token,
      query: { recovery: 'true' },
    })
    expect(await shares.json()).toMatchObject({ recoveryShare: wallet.recoveryShare })

    // Positive control: linked, Google signs this (verified) device in, without mail.
    const sent = mailer.sent.length
    const again = await socialLogin(deviceId, { loginHint: email })
    expect(again.user?.id).toBe(byEmail.user.id)
    expect(again.token).toEqual(expect.any(String))
    expect(mailer.sent).toHaveLength(sent)
  })

  test('on a device already verified for the account, the link still needs a code to the email', async () => {
    const email = newEmail()
    const byEmail = await signUp(client, mailer, { email })
    secrets.add(byEmail.token)
    await freeMailSlot(email)
    const google = await socialLogin(byEmail.deviceId, { loginHint: email })
    expect({ action: google.action, email: google.email, token: google.token }).toEqual({
      action: 'VERIFY_OTP',
      email,
      token: undefined,
    })
    expect(await identitiesOf(byEmail.user.id)).toEqual(['email'])
    // The code confirms the link only for the device that asked.
    const elsewhere = await signUp(client, mailer, { email: newEmail() })
    secrets.add(elsewhere.token)
    expect((await enterCode(email, byEmail.deviceId)).user?.id).toBe(byEmail.user.id)
    expect(await identitiesOf(byEmail.user.id)).toEqual(['email', 'google'])
  })

  test('an email login on another device does not confirm a link a device asked for', async () => {
    const email = newEmail()
    const byEmail = await signUp(client, mailer, { email })
    secrets.add(byEmail.token)
    await freeMailSlot(email)
    // Someone's Google account names the email, on their own (new) device.
    const theirs = newDevice()
    const google = await socialLogin(theirs, { loginHint: email })
    expect(google.action).toBe('VERIFY_DEVICE')
    // The owner signs in by email on their own device: nothing is linked for theirs.
    await freeMailSlot(email)
    expect(
      (await client.post('/auth/v1/login/email', { email, deviceId: byEmail.deviceId })).status,
    ).toBe(200)
    expect((await enterCode(email, byEmail.deviceId)).user?.id).toBe(byEmail.user.id)
    expect(await identitiesOf(byEmail.user.id)).toEqual(['email'])
  })

  test('an account made by Google with its email: a new device needs the email’s approval; the key only after', async () => {
    const email = newEmail()
    const first = await socialLogin(newDevice(), { loginHint: email })
    // The login made the account, with the email Google verified: its first device.
    expect(first.user).toEqual({ id: expect.any(String), email })
    const wallet = fakeWallet()
    await client.put('/wallet/v1/shares', wallet, { token: first.token })

    await freeMailSlot(email)
    const deviceId = newDevice()
    const second = await socialLogin(deviceId, { loginHint: email })
    expect({ action: second.action, email: second.email, token: second.token }).toEqual({
      action: 'VERIFY_DEVICE',
      email,
      token: undefined,
    })
    expect(await sessionsOf(deviceId)).toBe(0)
    await approveDevice(email)
    const signedIn = await enterCode(email, deviceId)
    expect(signedIn.user?.id).toBe(first.user?.id)
    const shares = await client.get('/wallet/v1/shares', {
      token: signedIn.token,
      query: { recovery: 'true' },
    })
    expect(await shares.json()).toMatchObject({ recoveryShare: wallet.recoveryShare })
  })

  test('an account without an email: its one identity verifies a new device (positive control)', async () => {
    const first = await socialLogin(newDevice(), { loginHint: carol.sub })
    expect(first.user).toEqual({ id: expect.any(String) })
    const deviceId = newDevice()
    const second = await socialLogin(deviceId, { loginHint: carol.sub })
    expect(second.user?.id).toBe(first.user?.id)
    expect(second.token).toEqual(expect.any(String))
    expect(await deviceVerified(deviceId)).toBe(true)
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

  test('GitHub: the primary email, verified, finds the email user (to link once confirmed); the code exchange uses PKCE', async () => {
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
    const { claim } = await finish(
      new URL(`${redirectUri}?code=gh-code&state=${state}`),
      configured.app,
    )
    expect(tokenRequests).toHaveLength(1)
    expect(Object.fromEntries(tokenRequests[0] ?? [])).toMatchObject({
      grant_type: 'authorization_code',
      code: 'gh-code',
      redirect_uri: redirectUri,
      client_id: 'gh-id',
      client_secret: 'gh-secret',
      code_verifier: expect.stringMatching(/^[\w-]{43,128}$/),
    })
    await freeMailSlot(email)
    const login = await (
      await configured.client.post('/auth/v1/social/result', { state, deviceId, claim })
    ).json()
    // A new device of an account with an email: its approval first, then a code (SECURITY.md 23).
    expect(login).toEqual({ action: 'VERIFY_DEVICE', email })
    expect(await identitiesOf(byEmail.user.id)).toEqual(['email'])
    await approveDevice(email)
    expect((await enterCode(email, deviceId)).user?.id).toBe(byEmail.user.id)
    expect(await identitiesOf(byEmail.user.id)).toEqual(['email', 'github'])
  })
})

/**
 * A browser's way through redirects, with a cookie jar per host: from `uri`
 * until a page that is no redirect, or the done page (not fetched: its URL
 * is what matters). Answers every URL visited and the last one.
 */
async function browse(uri: string): Promise<{ visited: URL[]; last: URL; response?: Response }> {
  const jars = new Map<string, Map<string, string>>()
  const visited: URL[] = []
  let url = new URL(uri)
  for (let hops = 0; ; hops++) {
    if (hops === 15) throw new Error(`too many redirects after ${url}`)
    visited.push(url)
    if (url.pathname.endsWith(donePath)) return { visited, last: url }
    const jar = jars.get(url.host) ?? new Map<string, string>()
    jars.set(url.host, jar)
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const equals = pair.indexOf('=')
      jar.set(pair.slice(0, equals), pair.slice(equals + 1))
    }
    const location = response.headers.get('location')
    if (response.status < 300 || response.status > 399 || location === null) {
      return { visited, last: url, response }
    }
    url = new URL(location, url)
  }
}

describe('a social login through real HTTP servers', () => {
  let server: ReturnType<typeof serve>
  let apiUrl: string
  let provider: OidcStandIn
  /** The frame's calls, over HTTP from the secure frame's origin. */
  let post: (path: string, body: unknown) => Promise<Response>

  beforeAll(async () => {
    let handler: Hono['fetch'] = () => new Response(null, { status: 503 })
    server = serve({ fetch: (request) => handler(request), port: 0, hostname: '127.0.0.1' })
    await new Promise((resolve) => server.once('listening', resolve))
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    provider = await createOidcProvider({
      clients: [{ ...oauthClient, redirectUris: [`${apiUrl}/auth/v1/social/callback`] }],
      users: [defaultOidcUser, bob],
      signUpByHint: true,
    })
    const real = createApp({
      config: {
        ...testDb.config,
        publicApiUrl: apiUrl,
        widgetOrigin,
        socialProviders: { google: { ...oauthClient, issuer: provider.issuer } },
      },
      db: testDb.db,
      mailer,
    })
    handler = real.fetch
    post = (path, body) =>
      fetch(`${apiUrl}${path}?projectId=porthole-dev`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: secureFrame },
        body: JSON.stringify(body),
      })
  })
  afterAll(async () => {
    await provider?.close()
    await new Promise((resolve) => server?.close(resolve))
  })

  /** The frame starts a login: its state, its device, the provider's URL. */
  async function begin(loginHint?: string) {
    const state = newState()
    const deviceId = newDevice()
    const started = await post('/auth/v1/social/start', { provider: 'google', deviceId, state })
    expect(started.status).toBe(200)
    expect(started.headers.get('access-control-allow-origin')).toBe(secureFrame)
    const url = new URL(((await started.json()) as { uri: string }).uri)
    if (loginHint !== undefined) url.searchParams.set('login_hint', loginHint)
    return { state, deviceId, uri: url.href }
  }

  test('the popup follows the provider back to the API and lands on the done page with a claim', async () => {
    const email = newEmail()
    const { state, deviceId, uri } = await begin(email)
    const { visited, last } = await browse(uri)
    expect(visited.some((url) => url.href.startsWith(`${apiUrl}/auth/v1/social/callback?`))).toBe(
      true,
    )
    expect(`${last.origin}${last.pathname}`).toBe(`${apiUrl}${donePath}`)
    expect(last.searchParams.get('state')).toBe(state)
    const claim = last.searchParams.get('claim') ?? ''
    expect(claim).toMatch(/^[\w-]{43}$/)
    secrets.add(claim)

    const page = await fetch(last)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const login = await post('/auth/v1/social/result', { state, deviceId, claim })
    expect(login.status).toBe(200)
    const body = (await login.json()) as { token: string; user: { email: string } }
    secrets.add(body.token)
    expect(body.user.email).toBe(email)
    // The account this login made has no other device: this one is its first.
    expect(await deviceVerified(deviceId)).toBe(true)
  })

  test('after the callback, a result with another claim is 403 claim_mismatch and ends the login', async () => {
    const { state, deviceId, uri } = await begin()
    const { last } = await browse(uri)
    const claim = last.searchParams.get('claim') ?? ''
    secrets.add(claim)
    // No claim at all: refused by the body's schema, before anything is looked up.
    const none = await post('/auth/v1/social/result', { state, deviceId })
    await expectRefused(none, 400, 'invalid_body')

    const wrong = await post('/auth/v1/social/result', { state, deviceId, claim: anyClaim() })
    expect(wrong.status).toBe(403)
    expect(await errorOf(wrong)).toEqual({
      code: 'claim_mismatch',
      message: 'This sign-in was not finished in the window that started it: start again',
    })
    // The login is dead, even for the right claim.
    const late = await post('/auth/v1/social/result', { state, deviceId, claim })
    await expectRefused(late, 410, 'login_expired')
    expect(await deviceVerified(deviceId)).toBe(false)
    expect(
      await count(
        'SELECT count(*)::int AS count FROM embedded_sessions WHERE device_id_sha256 = $1',
        [sha256Hex(deviceId)],
      ),
    ).toBe(0)
    // Every wrong claim is counted.
    await post('/auth/v1/social/result', { state, deviceId, claim: anyClaim() })
    const [row] = await testDb.db.query<{ claim_failures: number; error: string }>(
      'SELECT claim_failures, error FROM social_logins WHERE state_sha256 = $1',
      [sha256Hex(state)],
    )
    expect(row).toEqual({ claim_failures: 2, error: 'claim_mismatch' })
  })

  describe('inv-15 the popup result is bound to the window that opened it', () => {
    test('an attacker who started the login and lets a victim finish it gets no session', async () => {
      // The attacker's frame starts a login and sends the provider link to the victim.
      const attacker = await begin(bob.sub)
      const pending = await post('/auth/v1/social/result', {
        state: attacker.state,
        deviceId: attacker.deviceId,
        claim: anyClaim(),
      })
      expect(pending.status).toBe(202)
      // The victim, signed in at the provider as Bob, opens it in their own browser:
      // the claim reaches only the victim's browser (the done page's URL).
      const { last } = await browse(attacker.uri)
      expect(last.pathname).toBe(donePath)
      secrets.add(last.searchParams.get('claim') ?? '')
      // The attacker has the state and the device id, not the claim.
      for (const claim of [anyClaim(), anyClaim()]) {
        const answer = await post('/auth/v1/social/result', {
          state: attacker.state,
          deviceId: attacker.deviceId,
          claim,
        })
        expect(answer.status).toBe(403)
        expect(await answer.text()).not.toMatch(/token|"user"/)
      }
      // No session, no verified device for the attacker's device, on any account.
      expect(
        await count(
          'SELECT count(*)::int AS count FROM embedded_sessions WHERE device_id_sha256 = $1',
          [sha256Hex(attacker.deviceId)],
        ),
      ).toBe(0)
      expect(await deviceVerified(attacker.deviceId)).toBe(false)
      // Even the claim, stolen later, no longer opens it.
      const stolen = await post('/auth/v1/social/result', {
        state: attacker.state,
        deviceId: attacker.deviceId,
        claim: last.searchParams.get('claim'),
      })
      expect(stolen.status).toBe(410)
    })
  })

  test('the done page: no COOP (it needs its opener), a strict CSP, no-store, no inline script', async () => {
    const { last } = await browse((await begin()).uri)
    secrets.add(last.searchParams.get('claim') ?? '')
    const page = await fetch(last)
    expect(page.status).toBe(200)
    expect(page.headers.get('cross-origin-opener-policy')).toBeNull()
    expect(page.headers.get('content-security-policy')).toBe(donePageCsp)
    expect(donePageCsp).toMatch(/^default-src 'none'; script-src 'self'; style-src 'sha256-/)
    for (const directive of ["frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"]) {
      expect(donePageCsp).toContain(directive)
    }
    expect(page.headers.get('cache-control')).toBe('no-store')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    const html = await page.text()
    // One script, from the API, and none inline.
    expect(html.match(/<script\b[^>]*>/gi)).toEqual(['<script src="done.js">'])
    expect(html).toMatch(/<script src="done.js"><\/script>/)
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i)
    expect(html).not.toMatch(/\son\w+=/i)
    expect(html).toContain(`<meta name="porthole-widget-origin" content="${widgetOrigin}">`)
    expect(html).toContain(noOpenerMessage)
    expect(new URL('done.js', last).pathname).toBe(`${donePath}.js`)
  })

  test('done.js is JavaScript that posts the page URL to the opener, to the widget origin only', async () => {
    const script = await fetch(`${apiUrl}${donePath}.js`)
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(script.headers.get('x-content-type-options')).toBe('nosniff')
    const text = await script.text()
    expect(text).toContain(
      "opener.postMessage({ type: 'porthole:social-done', uri: location.href }, target)",
    )
    expect(text).not.toContain("'*'")
    expect(text).toContain('window.close()')
  })
})

describe('GET /auth/v1/social/done', () => {
  /** Runs done.js in a stand-in window: what it posts, to whom, and what it shows. */
  function runDoneScript(opener: { postMessage: (...args: unknown[]) => void } | null) {
    const elements = new Map([
      ['working', { hidden: false }],
      ['no-opener', { hidden: true }],
    ])
    const closed = vi.fn()
    const document = {
      getElementById: (id: string) => elements.get(id) ?? null,
      querySelector: (selector: string) =>
        selector === 'meta[name="porthole-widget-origin"]'
          ? { getAttribute: (name: string) => (name === 'content' ? widgetOrigin : null) }
          : null,
    }
    const href = `${publicApiUrl}${donePath}?state=${'A'.repeat(22)}&claim=${'B'.repeat(43)}`
    runInNewContext(doneScript, {
      window: { opener, close: closed },
      document,
      location: { href },
    })
    return { elements, closed, href }
  }

  test('done.js posts { type, uri } to the opener with the widget origin as target, then closes', () => {
    const postMessage = vi.fn()
    const { elements, closed, href } = runDoneScript({ postMessage })
    expect(postMessage.mock.calls).toEqual([
      [{ type: 'porthole:social-done', uri: href }, widgetOrigin],
    ])
    expect(SocialDoneMessage.parse(postMessage.mock.calls[0]?.[0])).toBeTruthy()
    expect(closed).toHaveBeenCalledOnce()
    expect(elements.get('no-opener')?.hidden).toBe(true)
  })

  test('done.js without an opener says so and does nothing else', () => {
    const { elements, closed } = runDoneScript(null)
    expect(closed).not.toHaveBeenCalled()
    expect(elements.get('no-opener')?.hidden).toBe(false)
    expect(elements.get('working')?.hidden).toBe(true)
  })

  test('escapes the widget origin it names', async () => {
    const odd = createApp({
      config: { ...testDb.config, widgetOrigin: 'http://x"><script>alert(1)</script>' },
      db: testDb.db,
      mailer,
    })
    const page = await odd.request(`${donePath}?state=${'A'.repeat(22)}&claim=${'B'.repeat(43)}`)
    const html = await page.text()
    expect(html).not.toContain('<script>alert(1)')
    expect(html).toContain('content="http://x&quot;&gt;&lt;script&gt;')
  })

  test.each([
    ['no claim', `state=${'A'.repeat(22)}`],
    ['a short claim', `state=${'A'.repeat(22)}&claim=abc`],
    ['no state', `claim=${'B'.repeat(43)}`],
    [
      'another parameter',
      `state=${'A'.repeat(22)}&claim=${'B'.repeat(43)}&next=https://evil.example`,
    ],
    ['two claims', `state=${'A'.repeat(22)}&claim=${'B'.repeat(43)}&claim=${'C'.repeat(43)}`],
  ])('answers %s with the 400 page and no script', async (_, query) => {
    const page = await app.request(`${donePath}?${query}`)
    expect(page.status).toBe(400)
    expect(page.headers.get('content-security-policy')).toBe(pageCsp)
    const html = await page.text()
    expect(html).toContain('This sign-in is not valid')
    expect(html).not.toMatch(/<script/i)
  })
})

describe('inv-11 no state, device id, token or client secret in the logs', () => {
  test('console output and reported errors never hold a secret', () => {
    expectNoSecret(secrets, 10)
  })
})
