/**
 * Sign In With Farcaster against real parts: the relay stand-in over HTTP,
 * the Farcaster app's real signatures, and the IdRegistry stand-in on a real
 * anvil (FARCASTER_CHAIN eip155:31337 through RPC_UPSTREAMS).
 */
import { randomBytes } from 'node:crypto'
import { type LocalAnvil, startAnvil } from '@porthole/dev-stack/anvil'
import { deployIdRegistry } from '@porthole/dev-stack/contracts'
import {
  type FarcasterMessageOverrides,
  parseChannelUrl,
  signInWithFarcaster,
} from '@porthole/dev-stack/farcasterApp'
import {
  createFarcasterRelay,
  type FarcasterRelayStandIn,
} from '@porthole/dev-stack/farcasterRelay'
import type { Hono } from 'hono'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
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
  type TestClient,
  watchLogs,
} from '../../../test/embedded.js'
import { createApp } from '../../app.js'
import type { Config } from '../../http/config.js'
import { sha256Hex } from '../../wallet/users.js'
import { pendingLoginTtlSeconds } from '../pendingLogin.js'
import { farcasterStartIpLimit } from './routes.js'

const secureFrame = 'http://secure.localhost:5172'
/** Anvil's dev accounts: 0 deploys the registry; 1 and 2 are custody keys; 3 is no one's. */
const OWNER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const ALICE_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
const BOB_KEY: Hex = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a'
const MALLORY_KEY: Hex = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6'
/** Anvil's dev account 4: the custody key of the fid whose account gains an email. */
const DANA_KEY: Hex = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a'
const ALICE_FID = 1234
const BOB_FID = 5678
const DANA_FID = 9012

let anvil: LocalAnvil
let relay: FarcasterRelayStandIn
let testDb: TestDb
let config: Config
let app: Hono
let client: TestClient
let mailer: MemoryMailer
let offset = 0
const now = () => new Date(Date.now() + offset)
const { onError, spyOnConsole, restoreConsole, expectNoSecret } = watchLogs()
/** States, device ids, session tokens, channel tokens, nonces, signatures: none may reach a log. */
const secrets = new Set<string>()

beforeAll(async () => {
  spyOnConsole()
  anvil = await startAnvil()
  relay = await createFarcasterRelay()
  const registry = await deployIdRegistry({
    rpcUrl: anvil.url,
    privateKey: OWNER_KEY,
    register: [
      { fid: ALICE_FID, custody: privateKeyToAccount(ALICE_KEY).address },
      { fid: BOB_FID, custody: privateKeyToAccount(BOB_KEY).address },
      { fid: DANA_FID, custody: privateKeyToAccount(DANA_KEY).address },
    ],
  })
  testDb = await createTestDb({
    secureFrameOrigin: secureFrame,
    rpcUpstreams: { 'eip155:31337': anvil.url },
    farcasterRelayUrl: relay.url,
    farcasterChain: 'eip155:31337',
    farcasterIdRegistry: registry.address,
  })
  config = testDb.config
  mailer = createMemoryMailer()
  app = createApp({ config, db: testDb.db, mailer, now, onError })
  client = createTestClient(app)
}, 120_000)
afterAll(async () => {
  await testDb?.close()
  await relay?.close()
  await anvil?.stop()
  restoreConsole()
})

const secret = <value extends string>(value: value) => {
  secrets.add(value)
  return value
}
const newState = () => secret(randomBytes(18).toString('base64url'))
const newDevice = () => secret(newDeviceId())

function start(
  body: unknown,
  {
    on = client,
    origin = secureFrame as string | undefined,
    ip,
  }: { on?: TestClient; origin?: string; ip?: string } = {},
) {
  return on.post('/auth/v1/farcaster/start', body, {
    ...(origin === undefined ? {} : { origin }),
    ...(ip === undefined ? {} : { ip }),
  })
}

function result(body: unknown, { on = client, origin = secureFrame } = {}) {
  return on.post('/auth/v1/farcaster/result', body, { origin })
}

/** Starts a login; resolves to its state, device and relay link. */
async function started(deviceId = newDevice()) {
  const state = newState()
  const response = await start({ deviceId, state })
  expect(response.status).toBe(200)
  const { uri } = (await response.json()) as { uri: string }
  const link = parseChannelUrl(uri)
  secret(link.channelToken)
  secret(link.nonce)
  return { state, deviceId, uri, link }
}

/** The Farcaster app signs the login in. */
async function sign(
  uri: string,
  {
    key = ALICE_KEY,
    fid = ALICE_FID,
    ...rest
  }: { key?: Hex; fid?: number; overrides?: FarcasterMessageOverrides; signWith?: Hex } = {},
) {
  const signed = await signInWithFarcaster({
    relayUrl: relay.url,
    url: uri,
    privateKey: key,
    fid,
    ...rest,
  })
  expect(signed.status).toBe(201)
  secret(signed.signature)
}

/** A whole login: start, the app signs, the result. */
async function farcasterLogin(options: { deviceId?: string; key?: Hex; fid?: number } = {}) {
  const login = await started(options.deviceId)
  await sign(login.uri, options)
  const answer = await result({ state: login.state, deviceId: login.deviceId })
  expect(answer.status).toBe(200)
  const body = (await answer.json()) as { token: string; user: { id: string; email?: string } }
  secret(body.token)
  return { ...login, ...body }
}

describe('POST /auth/v1/farcaster/start', () => {
  test('opens a relay channel for the secure frame with a fresh nonce and answers its https link', async () => {
    const { state, deviceId, uri, link } = await started()
    expect(uri).toMatch(/^https:\/\/warpcast\.com\/~\/siwf\?/)
    expect(link).toEqual({
      channelToken: expect.any(String),
      nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
      siweUri: secureFrame,
      domain: 'secure.localhost:5172',
    })
    const [row] = await testDb.db.query(
      `SELECT device_id_sha256, channel_token, nonce,
              extract(epoch FROM expires_at - created_at)::int AS ttl
       FROM farcaster_logins WHERE state_sha256 = $1`,
      [sha256Hex(state)],
    )
    expect(row).toEqual({
      device_id_sha256: sha256Hex(deviceId),
      channel_token: link.channelToken,
      nonce: link.nonce,
      ttl: pendingLoginTtlSeconds,
    })
    const other = await started()
    expect(other.link.nonce).not.toBe(link.nonce)
  })

  test('refuses a state used before (409 state_in_use)', async () => {
    const { state, deviceId } = await started()
    const again = await start({ state, deviceId })
    await expectRefused(again, 409, 'state_in_use')
  })

  test('refuses another browser origin than the secure frame (403)', async () => {
    const response = await start(
      { state: newState(), deviceId: newDevice() },
      { origin: 'https://evil.example' },
    )
    await expectRefused(response, 403, 'origin_not_allowed')
    const collect = await result(
      { state: newState(), deviceId: newDevice() },
      { origin: 'https://evil.example' },
    )
    expect(collect.status).toBe(403)
  })

  test('a relay that cannot be reached is 502 farcaster_unavailable', async () => {
    const down = await createFarcasterRelay()
    await down.close()
    const other = createTestClient(
      createApp({ config: { ...config, farcasterRelayUrl: down.url }, db: testDb.db, onError }),
    )
    const response = await start({ state: newState(), deviceId: newDevice() }, { on: other })
    expect(response.status).toBe(502)
    expect(await errorOf(response)).toEqual({
      code: 'farcaster_unavailable',
      message: 'Farcaster cannot be reached right now: try again later',
    })
  })

  test('without an RPC upstream for FARCASTER_CHAIN it says it is not configured (400)', async () => {
    const other = createTestClient(
      createApp({ config: { ...config, farcasterChain: 'eip155:10' }, db: testDb.db, onError }),
    )
    const response = await start({ state: newState(), deviceId: newDevice() }, { on: other })
    expect(response.status).toBe(400)
    expect(await errorOf(response)).toMatchObject({ code: 'provider_not_configured' })
  })
})

describe('a Farcaster login, end to end', () => {
  test('pending until the app signs; then the login once (no email); then 410 login_expired', async () => {
    const login = await started()
    const body = { state: login.state, deviceId: login.deviceId }
    const pending = await result(body)
    expect(pending.status).toBe(202)
    expect(await pending.json()).toEqual({ status: 'pending' })

    await sign(login.uri, { key: BOB_KEY, fid: BOB_FID })
    const done = await result(body)
    expect(done.status).toBe(200)
    expect(done.headers.get('cache-control')).toBe('no-store')
    const answer = (await done.json()) as { token: string; user: { id: string } }
    secret(answer.token)
    expect(answer).toEqual({
      token: expect.stringMatching(/^[\w-]{43}$/),
      user: { id: expect.any(String) },
    })

    const [identity] = await testDb.db.query(
      `SELECT user_id FROM identities WHERE provider = 'farcaster' AND subject = $1`,
      [String(BOB_FID)],
    )
    expect(identity).toEqual({ user_id: answer.user.id })
    // The device is verified and the session works.
    expect(
      await testDb.db.query('SELECT 1 FROM devices WHERE user_id = $1 AND device_id_sha256 = $2', [
        answer.user.id,
        sha256Hex(login.deviceId),
      ]),
    ).toHaveLength(1)
    const session = await client.get('/auth/v1/session', { token: answer.token })
    expect(session.status).toBe(200)

    const again = await result(body)
    await expectRefused(again, 410, 'login_expired')
  })

  test('the same fid finds the same user on every device; another fid is another user', async () => {
    const first = await farcasterLogin()
    const second = await farcasterLogin()
    expect(second.user.id).toBe(first.user.id)
    expect(second.deviceId).not.toBe(first.deviceId)
    const bob = await farcasterLogin({ key: BOB_KEY, fid: BOB_FID })
    expect(bob.user.id).not.toBe(first.user.id)
  })

  test('another device may not collect the login (403 device_mismatch)', async () => {
    const login = await started()
    await sign(login.uri)
    const response = await result({ state: login.state, deviceId: newDevice() })
    await expectRefused(response, 403, 'device_mismatch')
    // The right device still can.
    expect((await result({ state: login.state, deviceId: login.deviceId })).status).toBe(200)
  })

  test('an unknown state, or one past its 10 minutes, is 410 login_expired', async () => {
    expect((await result({ state: newState(), deviceId: newDevice() })).status).toBe(410)
    const login = await started()
    offset = (pendingLoginTtlSeconds + 1) * 1000
    try {
      const response = await result({ state: login.state, deviceId: login.deviceId })
      expect(response.status).toBe(410)
    } finally {
      offset = 0
    }
  })

  test('a relay down while polling is 502 farcaster_unavailable, and the login survives it', async () => {
    const login = await started()
    const down = await createFarcasterRelay()
    await down.close()
    const other = createTestClient(
      createApp({ config: { ...config, farcasterRelayUrl: down.url }, db: testDb.db, onError }),
    )
    const body = { state: login.state, deviceId: login.deviceId }
    const response = await result(body, { on: other })
    await expectRefused(response, 502, 'farcaster_unavailable')
    await sign(login.uri)
    expect((await result(body)).status).toBe(200)
  })
})

describe('inv-23 the strongest factor the account has decides', () => {
  test('once the account has an email, Farcaster on a new device gets no session: the email’s approval first', async () => {
    const first = await farcasterLogin({ key: DANA_KEY, fid: DANA_FID })
    const wallet = fakeWallet()
    expect((await client.put('/wallet/v1/shares', wallet, { token: first.token })).status).toBe(201)
    // The account has added an email since (POST /auth/v1/email/update, tested there).
    const email = newEmail()
    await testDb.db.query('UPDATE users SET email = $2 WHERE id = $1', [first.user.id, email])

    const login = await started()
    await sign(login.uri, { key: DANA_KEY, fid: DANA_FID })
    const answer = await result({ state: login.state, deviceId: login.deviceId })
    // The attack: the custody signature alone released the whole key on a new device.
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({ action: 'VERIFY_DEVICE', email })
    expect(
      await testDb.db.query('SELECT 1 FROM embedded_sessions WHERE device_id_sha256 = $1', [
        sha256Hex(login.deviceId),
      ]),
    ).toHaveLength(0)
    expect(mailer.last(email)?.subject).toBe('Approve this device for Porthole')

    // The email decides: its approval, then the code entered on this device.
    const link = mailer.link(email)
    const approved = await app.request('/auth/v1/device/approve', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(config.publicApiUrl).origin,
      },
      body: `token=${link.searchParams.get('token')}`,
    })
    expect(approved.status).toBe(200)
    const verified = await client.post('/auth/v1/login/email/verify', {
      email,
      otp: mailer.code(email),
      deviceId: login.deviceId,
    })
    const signedIn = (await verified.json()) as { token: string; user: { id: string } }
    secret(signedIn.token)
    expect(signedIn.user.id).toBe(first.user.id)
    const shares = await client.get('/wallet/v1/shares', {
      token: signedIn.token,
      query: { recovery: 'true' },
    })
    expect(await shares.json()).toMatchObject({ recoveryShare: wallet.recoveryShare })

    // Positive control: on the device verified before, Farcaster alone signs in.
    const again = await farcasterLogin({ deviceId: first.deviceId, key: DANA_KEY, fid: DANA_FID })
    expect(again.user.id).toBe(first.user.id)
  })
})

describe('a Farcaster sign-in that does not verify is refused (403 farcaster_invalid), then spent', () => {
  const hour = 60 * 60 * 1000
  test.each<[string, Parameters<typeof sign>[1]]>([
    ['a signer that is not the custody address of the fid', { key: MALLORY_KEY, fid: ALICE_FID }],
    ['the custody key of another fid', { key: BOB_KEY, fid: ALICE_FID }],
    ['a signature by another key than the message names', { signWith: MALLORY_KEY }],
    ['another domain', { overrides: { domain: 'evil.example' } }],
    ['another URI', { overrides: { uri: 'https://evil.example' } }],
    ['another nonce', { overrides: { nonce: 'a1b2c3d4e5f6a7b8' } }],
    ['another chain than 10', { overrides: { chainId: 1 } }],
    ['no fid resource', { overrides: { resources: [] } }],
    ['another fid resource', { overrides: { resources: [`farcaster://fid/${BOB_FID}`] } }],
    ['an expired message', { overrides: { expirationTime: new Date(Date.now() - hour) } }],
    ['a message not valid yet', { overrides: { notBefore: new Date(Date.now() + hour) } }],
  ])('%s', async (_, options) => {
    const login = await started()
    await sign(login.uri, options)
    const body = { state: login.state, deviceId: login.deviceId }
    const users = await testDb.db.query('SELECT count(*)::int AS count FROM users')
    const response = await result(body)
    expect(response.status).toBe(403)
    expect(await errorOf(response)).toEqual({
      code: 'farcaster_invalid',
      message: 'This Farcaster sign-in could not be verified: start again',
    })
    expect(await testDb.db.query('SELECT count(*)::int AS count FROM users')).toEqual(users)
    expect((await result(body)).status).toBe(410)
  })
})

describe('inv-18 strict bodies on farcaster start and result', () => {
  const valid = () => ({ state: newState(), deviceId: newDevice() })
  test.each<[string, () => unknown]>([
    ['an unknown key', () => ({ ...valid(), provider: 'farcaster' })],
    ['a short state', () => ({ ...valid(), state: 'abc' })],
    ['a state with other characters', () => ({ ...valid(), state: `${'a'.repeat(22)}/` })],
    ['no device id', () => ({ state: newState() })],
    [
      '__proto__',
      () => JSON.parse(`{"__proto__":{"x":1},"state":"${newState()}","deviceId":"${newDevice()}"}`),
    ],
    ['an array', () => [valid()]],
    ['a body over 1 KiB', () => ({ ...valid(), pad: 'x'.repeat(2000) })],
  ])('refuses %s, opening no channel and storing nothing', async (_, body) => {
    const channels = relay.channelCount()
    const logins = await testDb.db.query('SELECT count(*)::int AS count FROM farcaster_logins')
    const response = await start(body())
    expect([400, 413]).toContain(response.status)
    expect((await result(body())).status).toBeGreaterThanOrEqual(400)
    expect(relay.channelCount()).toBe(channels)
    expect(await testDb.db.query('SELECT count(*)::int AS count FROM farcaster_logins')).toEqual(
      logins,
    )
  })

  test('invalid JSON is 400 invalid_json', async () => {
    const response = await start('{"state":')
    await expectRefused(response, 400, 'invalid_json')
  })
})

describe('inv-13 Farcaster logins started from one IP are limited', () => {
  test(`${farcasterStartIpLimit.limit} in ${farcasterStartIpLimit.windowSeconds / 60} minutes, then 429 with Retry-After`, async () => {
    const ip = '192.0.2.77'
    for (let i = 0; i < farcasterStartIpLimit.limit; i++) {
      expect((await start({ state: newState(), deviceId: newDevice() }, { ip })).status).toBe(200)
    }
    const channels = relay.channelCount()
    const refused = await start({ state: newState(), deviceId: newDevice() }, { ip })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    expect((await errorOf(refused)).code).toBe('rate_limited')
    expect(relay.channelCount()).toBe(channels)
    expect((await start({ state: newState(), deviceId: newDevice() })).status).toBe(200)
  })
})

describe('inv-11 no state, device id, token, channel token, nonce or signature in the logs', () => {
  test('console output and reported errors never hold a secret', () => {
    expectNoSecret(secrets, 20)
  })
})
