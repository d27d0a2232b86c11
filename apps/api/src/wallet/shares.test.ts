import { randomBytes } from 'node:crypto'
import type { Hono } from 'hono'
import { getAddress } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import {
  createMemoryMailer,
  createTestClient,
  errorOf,
  expectRefused,
  fakeWallet,
  type MemoryMailer,
  newDeviceId,
  signUp,
  type TestClient,
  watchLogs,
} from '../../test/embedded.js'
import { createApp } from '../app.js'
import { developmentShareKey, shareKeyId } from '../http/config.js'
import { ShareKeyError } from '../http/errors.js'
import { maxSharesBodyBytes } from './shares.js'
import { sha256Hex } from './users.js'

let testDb: TestDb
let app: Hono
let client: TestClient
let mailer: MemoryMailer
const { onError, spyOnConsole, restoreConsole, expectNoSecret } = watchLogs()
/** Every share and token a test used: none may reach a log. */
const secrets = new Set<string>()

beforeAll(async () => {
  spyOnConsole()
  testDb = await createTestDb()
  mailer = createMemoryMailer()
  app = createApp({ config: testDb.config, db: testDb.db, mailer, onError })
  client = createTestClient(app)
})
afterAll(async () => {
  await testDb?.close()
  restoreConsole()
})

async function newUser() {
  const user = await signUp(client, mailer)
  secrets.add(user.token)
  return user
}

function newWallet() {
  const wallet = fakeWallet()
  secrets.add(wallet.authShare)
  secrets.add(wallet.recoveryShare)
  return wallet
}

describe('inv-11 PUT /wallet/v1/shares', () => {
  test('stores a wallet once: 201 with the user and addresses, then 409 wallet_exists', async () => {
    const { token, user } = await newUser()
    const wallet = newWallet()
    const stored = await client.put('/wallet/v1/shares', wallet, { token })
    expect(stored.status).toBe(201)
    const addresses = {
      eip155: getAddress(wallet.addresses.eip155),
      solana: wallet.addresses.solana,
    }
    expect(await stored.json()).toEqual({ user: { ...user, addresses } })

    // Another wallet, or the same one sent again after a lost answer: refused.
    for (const second of [newWallet(), wallet]) {
      const refused = await client.put('/wallet/v1/shares', second, { token })
      expect(refused.status).toBe(409)
      expect(await errorOf(refused)).toEqual({
        code: 'wallet_exists',
        message: 'This account already has a wallet: read it with GET /wallet/v1/shares',
      })
    }
    const read = await client.get('/wallet/v1/shares', { token, query: { recovery: 'true' } })
    expect(await read.json()).toEqual({
      authShare: wallet.authShare,
      recoveryShare: wallet.recoveryShare,
      addresses,
    })
  })

  test('two PUTs at once store one wallet', async () => {
    const { token } = await newUser()
    const [first, second] = [newWallet(), newWallet()]
    const answers = await Promise.all([
      client.put('/wallet/v1/shares', first, { token }),
      client.put('/wallet/v1/shares', second, { token }),
    ])
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409])
    const read = (await (await client.get('/wallet/v1/shares', { token })).json()) as {
      authShare: string
    }
    const winner = answers[0]?.status === 201 ? first : second
    expect(read.authShare).toBe(winner.authShare)
  })

  test('the database holds the auth share and only ciphertext of the recovery share', async () => {
    const { token, user } = await newUser()
    const wallet = newWallet()
    expect((await client.put('/wallet/v1/shares', wallet, { token })).status).toBe(201)
    const rows = await testDb.db.query('SELECT * FROM wallet_shares WHERE user_id = $1', [user.id])
    expect(rows).toHaveLength(1)
    const dump = JSON.stringify(rows)
    expect(dump).toContain(wallet.authShare)
    expect(dump).not.toContain(wallet.recoveryShare)
    expect(dump).not.toContain(Buffer.from(wallet.recoveryShare, 'base64').toString('hex'))
    expect(rows[0]).toMatchObject({ recovery_share_key_id: developmentShareKey.id })
    // Nothing else in the database holds either share.
    for (const table of ['users', 'identities', 'devices', 'embedded_sessions', 'email_otps']) {
      const all = JSON.stringify(await testDb.db.query(`SELECT * FROM ${table}`))
      expect(all).not.toContain(wallet.authShare)
      expect(all).not.toContain(wallet.recoveryShare)
    }
  })

  test('needs a live session', async () => {
    const wallet = newWallet()
    const missing = await client.put('/wallet/v1/shares', wallet)
    await expectRefused(missing, 401, 'missing_token')
    const { token } = await newUser()
    expect((await client.delete('/auth/v1/session', { token })).status).toBe(204)
    const ended = await client.put('/wallet/v1/shares', wallet, { token })
    expect((await errorOf(ended)).code).toBe('session_expired')
  })
})

describe('inv-18 PUT /wallet/v1/shares parses strictly', () => {
  const valid = fakeWallet()
  test.each([
    ['an unknown key', { ...valid, deviceShare: valid.authShare }],
    [
      'a __proto__ key',
      JSON.parse(`{"__proto__":{"admin":true},${JSON.stringify(valid).slice(1)}`),
    ],
    ['no recovery share', { authShare: valid.authShare, addresses: valid.addresses }],
    ['a share that is not base64', { ...valid, authShare: 'not base64!'.repeat(3) }],
    ['an oversize share', { ...valid, authShare: 'A'.repeat(124) }],
    ['a bad EVM address', { ...valid, addresses: { ...valid.addresses, eip155: '0x1234' } }],
    ['a bad Solana address', { ...valid, addresses: { ...valid.addresses, solana: '0OIl' } }],
    ['an extra address', { ...valid, addresses: { ...valid.addresses, bip122: 'bc1q' } }],
  ])('refuses a body with %s (400), storing nothing', async (_, body) => {
    const { token, user } = await newUser()
    const response = await client.put('/wallet/v1/shares', body, { token })
    await expectRefused(response, 400, 'invalid_body')
    expect(
      await testDb.db.query('SELECT 1 FROM wallet_shares WHERE user_id = $1', [user.id]),
    ).toEqual([])
    expect(({} as Record<string, unknown>).admin).toBeUndefined()
  })

  test('refuses a body over the limit (413)', async () => {
    const { token } = await newUser()
    const response = await client.put(
      '/wallet/v1/shares',
      { ...valid, padding: 'x'.repeat(maxSharesBodyBytes) },
      { token },
    )
    expect(response.status).toBe(413)
  })
})

describe('inv-11 GET /wallet/v1/shares', () => {
  test('404 no_wallet before a wallet exists; the session shows no addresses then', async () => {
    const { token, user } = await newUser()
    const response = await client.get('/wallet/v1/shares', { token })
    expect(response.status).toBe(404)
    expect(await errorOf(response)).toEqual({
      code: 'no_wallet',
      message: 'This account has no wallet yet',
    })
    expect(await (await client.get('/auth/v1/session', { token })).json()).toEqual({ user })
  })

  test('gives the auth share without the recovery share unless asked', async () => {
    const { token } = await newUser()
    const wallet = newWallet()
    await client.put('/wallet/v1/shares', wallet, { token })
    const plain = await client.get('/wallet/v1/shares', { token })
    expect(plain.status).toBe(200)
    expect(plain.headers.get('cache-control')).toBe('no-store')
    const body = (await plain.json()) as Record<string, unknown>
    expect(body.authShare).toBe(wallet.authShare)
    expect(body).not.toHaveProperty('recoveryShare')
    const explicit = await client.get('/wallet/v1/shares', { token, query: { recovery: 'false' } })
    expect(await explicit.json()).not.toHaveProperty('recoveryShare')
  })

  test('the session user carries the addresses once the wallet exists', async () => {
    const { token, user } = await newUser()
    const wallet = newWallet()
    await client.put('/wallet/v1/shares', wallet, { token })
    expect(await (await client.get('/auth/v1/session', { token })).json()).toEqual({
      user: {
        ...user,
        addresses: { eip155: getAddress(wallet.addresses.eip155), solana: wallet.addresses.solana },
      },
    })
  })

  test('releases the recovery share only to a session on a verified device', async () => {
    const { token, user, deviceId } = await newUser()
    const wallet = newWallet()
    await client.put('/wallet/v1/shares', wallet, { token })
    // The device loses its verification (say it was revoked): the auth share still comes, the recovery share not.
    await testDb.db.query('DELETE FROM devices WHERE user_id = $1 AND device_id_sha256 = $2', [
      user.id,
      sha256Hex(deviceId),
    ])
    expect((await client.get('/wallet/v1/shares', { token })).status).toBe(200)
    const refused = await client.get('/wallet/v1/shares', { token, query: { recovery: 'true' } })
    expect(refused.status).toBe(403)
    expect(await errorOf(refused)).toEqual({
      code: 'device_not_verified',
      message: 'The recovery share is released only to a verified device: verify this device first',
    })
  })

  test("a session sees only its own user's shares", async () => {
    const alice = await newUser()
    const bob = await newUser()
    const wallet = newWallet()
    await client.put('/wallet/v1/shares', wallet, { token: alice.token })
    expect((await client.get('/wallet/v1/shares', { token: bob.token })).status).toBe(404)
    // Even a ciphertext moved into Bob's row does not decrypt for him.
    await testDb.db.query(
      `INSERT INTO wallet_shares
       SELECT $2, auth_share, recovery_share_ciphertext, recovery_share_iv, recovery_share_key_id,
              evm_address, solana_address, created_at
       FROM wallet_shares WHERE user_id = $1`,
      [alice.user.id, bob.user.id],
    )
    onError.mockClear()
    const moved = await client.get('/wallet/v1/shares', {
      token: bob.token,
      query: { recovery: 'true' },
    })
    expect(moved.status).toBe(500)
    expect(JSON.stringify(await moved.json())).not.toContain(wallet.recoveryShare)
    expect(onError).toHaveBeenCalledWith(expect.any(ShareKeyError))
  })

  test('decrypts after a key rotation, and fails closed (500) when the key is gone', async () => {
    const { token } = await newUser()
    const wallet = newWallet()
    await client.put('/wallet/v1/shares', wallet, { token })
    const fresh = randomBytes(32)
    const current = { id: shareKeyId(fresh), key: fresh.toString('base64') }
    const rotated = createApp({
      config: { ...testDb.config, shareEncryptionKeys: [current, developmentShareKey] },
      db: testDb.db,
      mailer,
      onError,
    })
    const read = await createTestClient(rotated).get('/wallet/v1/shares', {
      token,
      query: { recovery: 'true' },
    })
    expect(((await read.json()) as { recoveryShare: string }).recoveryShare).toBe(
      wallet.recoveryShare,
    )

    const lost = createApp({
      config: { ...testDb.config, shareEncryptionKeys: [current] },
      db: testDb.db,
      mailer,
      onError,
    })
    onError.mockClear()
    const failed = await createTestClient(lost).get('/wallet/v1/shares', {
      token,
      query: { recovery: 'true' },
    })
    expect(failed.status).toBe(500)
    expect(onError).toHaveBeenCalledWith(expect.any(ShareKeyError))
  })

  test.each([
    ['recovery=yes', { recovery: 'yes' }],
    ['an unknown parameter', { share: 'auth' }],
  ])('refuses a query with %s (400)', async (_, query) => {
    const { token } = await newUser()
    const response = await client.get('/wallet/v1/shares', { token, query })
    await expectRefused(response, 400, 'invalid_query')
  })
})

describe('inv-16 storage loss loses no funds', () => {
  test('a new device, once verified by mail, gets the same wallet back', async () => {
    const first = await newUser()
    const wallet = newWallet()
    await client.put('/wallet/v1/shares', wallet, { token: first.token })

    // The frame's storage is gone: a new device id. Email login mails an approval first.
    const deviceId = newDeviceId()
    await testDb.db.query('DELETE FROM email_send_throttle')
    const login = await client.post('/auth/v1/login/email', { email: first.email, deviceId })
    expect(await login.json()).toEqual({ action: 'VERIFY_OTP' })
    const link = mailer.link(first.email)
    const approved = await app.request('/auth/v1/device/approve', {
      method: 'POST',
      // The approval page's form, from the API's own origin (SECURITY.md 21).
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'http://api.localhost:5173',
      },
      body: `token=${link.searchParams.get('token')}`,
    })
    expect(approved.status).toBe(200)
    const otp = mailer.code(first.email)
    const verified = await client.post('/auth/v1/login/email/verify', {
      email: first.email,
      otp,
      deviceId,
    })
    const { token, user } = (await verified.json()) as { token: string; user: { id: string } }
    secrets.add(token)
    expect(user.id).toBe(first.user.id)
    const shares = await client.get('/wallet/v1/shares', { token, query: { recovery: 'true' } })
    expect(await shares.json()).toMatchObject({
      authShare: wallet.authShare,
      recoveryShare: wallet.recoveryShare,
      addresses: { solana: wallet.addresses.solana },
    })
  })
})

describe('inv-11 no share or token in the logs', () => {
  test('console output and reported errors never hold a share or a token', () => {
    expectNoSecret(secrets, 10)
  })
})
