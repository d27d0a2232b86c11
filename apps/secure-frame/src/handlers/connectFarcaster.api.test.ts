/**
 * Farcaster login from the frame's handlers against the real API
 * (`createApp` over in-memory PGlite, in-process), the relay stand-in over
 * HTTP, real signatures by the Farcaster app helper, and the IdRegistry
 * stand-in on a real anvil.
 */
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createCall } from '../../test/testContext.js'
import { createApi, type Fetch } from '../lib/api.js'
import { type Context, createMemory } from '../wallet/session.js'
import { createMemoryBackend, createStorage } from '../wallet/storage.js'
import { connectDevice } from './connectDevice.js'
import { connectFarcaster } from './connectFarcaster.js'
import { connectOtp } from './connectOtp.js'
import { connectSocial } from './connectSocial.js'
import { getUser } from './getUser.js'

/**
 * The API's and the e2e support's modules, loaded at run time: `tsc` for
 * this app does not follow a computed specifier, so they stay type-checked
 * in their own projects. The shapes below are the parts used.
 */
type App = { request(url: string, init?: RequestInit, env?: unknown): Response | Promise<Response> }
type TestDb = {
  db: { query(sql: string, params?: unknown[]): Promise<unknown[]> }
  config: unknown
  close(): Promise<void>
}
type Mailer = { link(to: string): URL; code(to: string): string }
type Relay = { url: string; close(): Promise<void> }
type Anvil = { url: string; stop(): Promise<void> }
/** A module by path (relative to this file) or by package name, untyped on purpose. */
const load = async <module>(path: string) =>
  (await import(path.startsWith('.') ? new URL(path, import.meta.url).href : path)) as module
const { createApp } = await load<{
  createApp(options: { config: unknown; db: unknown; mailer: unknown }): App
}>('../../../api/src/app.ts')
const { createTestDb } = await load<{
  createTestDb(overrides: Record<string, unknown>): Promise<TestDb>
}>('../../../api/test/db.ts')
const { createMemoryMailer } = await load<{ createMemoryMailer(): Mailer }>(
  '../../../api/test/embedded.ts',
)
const { createFarcasterRelay } = await load<{ createFarcasterRelay(): Promise<Relay> }>(
  '@porthole/dev-stack/farcasterRelay',
)
const { signInWithFarcaster } = await load<{
  signInWithFarcaster(options: {
    relayUrl: string
    url: string
    privateKey: Hex
    fid: number
    signWith?: Hex
  }): Promise<{ status: number }>
}>('@porthole/dev-stack/farcasterApp')
const { startAnvil } = await load<{ startAnvil(): Promise<Anvil> }>('@porthole/dev-stack/anvil')
const { deployIdRegistry } = await load<{
  deployIdRegistry(options: {
    rpcUrl: string
    privateKey: Hex
    register: { fid: number; custody: Hex }[]
  }): Promise<{ address: Hex }>
}>('@porthole/dev-stack/contracts')

const OWNER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const CUSTODY_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
const OTHER_KEY: Hex = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6'
/** Anvil's dev account 4: the custody of the fid whose account gains an email. */
const EMAIL_CUSTODY_KEY: Hex = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a'
const FID = 4242
const EMAIL_FID = 4343

let anvil: Anvil
let relay: Relay
let testDb: TestDb
let app: App
let mailer: Mailer
let ipCounter = 0

beforeAll(async () => {
  anvil = await startAnvil()
  relay = await createFarcasterRelay()
  const registry = await deployIdRegistry({
    rpcUrl: anvil.url,
    privateKey: OWNER_KEY,
    register: [
      { fid: FID, custody: privateKeyToAccount(CUSTODY_KEY).address },
      { fid: EMAIL_FID, custody: privateKeyToAccount(EMAIL_CUSTODY_KEY).address },
    ],
  })
  testDb = await createTestDb({
    // The API answers only its own name (SECURITY.md 25): the frame calls it at api.test.
    publicApiUrl: 'http://api.test',
    rpcUpstreams: { 'eip155:31337': anvil.url },
    farcasterRelayUrl: relay.url,
    farcasterChain: 'eip155:31337',
    farcasterIdRegistry: registry.address,
  })
  mailer = createMemoryMailer()
  app = createApp({ config: testDb.config, db: testDb.db, mailer })
}, 120_000)

afterAll(async () => {
  await testDb?.close()
  await relay?.close()
  await anvil?.stop()
})

/** A frame on its own device (storage), talking to the API in-process. */
function frame(): Context & { paths: string[] } {
  const ip = `203.0.113.${(ipCounter++ % 250) + 1}`
  const paths: string[] = []
  const fetch: Fetch = async (url, init) => {
    paths.push(new URL(url).pathname)
    // What the browser adds to the frame's requests: its origin.
    const headers = new Headers(init?.headers)
    headers.set('origin', 'http://secure.localhost:5172')
    return app.request(url, { ...init, headers }, { incoming: { socket: { remoteAddress: ip } } })
  }
  return {
    api: createApi({ apiUrl: 'http://api.test', projectId: 'porthole-dev', fetch }),
    storage: createStorage(createMemoryBackend()),
    memory: createMemory(),
    requestApproval: () => Promise.reject(new Error('No approval expected')),
    ancestorOrigin: () => undefined,
    pollInterval: 5,
    reload: () => {},
    paths,
  }
}

/** Waits until the frame has asked for the result at least once (the login is pending). */
async function polled(context: { paths: string[] }) {
  while (!context.paths.includes('/auth/v1/farcaster/result'))
    await new Promise((resolve) => setTimeout(resolve, 5))
}

/** The answer of a login that signed in (not one the account's email must decide first). */
function signedIn(result: Awaited<ReturnType<typeof connectSocial>>) {
  if (!('user' in result)) throw new Error(`The login was not signed in: ${result.action}`)
  return result
}

/** A Farcaster login of `fid` on `context`, signed by `key` in the Farcaster app. */
async function farcasterLogin(context: Context, fid: number, key: Hex) {
  const { url } = await connectFarcaster(undefined, context)
  const login = connectSocial({ uri: url }, context, createCall())
  await signInWithFarcaster({ relayUrl: relay.url, url, privateKey: key, fid })
  return login
}

describe('connectFarcaster and connectSocial against the API', () => {
  test('the relay link; pending until the app signs; then the wallet unlocks; another device restores it', async () => {
    const first = frame()
    const { url } = await connectFarcaster(undefined, first)
    expect(url).toMatch(/^https:\/\/warpcast\.com\/~\/siwf\?channelToken=/)
    const login = connectSocial({ uri: url }, first, createCall())
    await polled(first)
    const signed = await signInWithFarcaster({
      relayUrl: relay.url,
      url,
      privateKey: CUSTODY_KEY,
      fid: FID,
    })
    expect(signed.status).toBe(201)
    const { user } = signedIn(await login)
    expect(user.email).toBeUndefined()
    expect(user.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
    expect(await first.storage.getToken()).toBeDefined()

    // A new device: Farcaster verifies it, the recovery share rebuilds the same wallet.
    const second = frame()
    const again = await connectFarcaster(undefined, second)
    await signInWithFarcaster({
      relayUrl: relay.url,
      url: again.url,
      privateKey: CUSTODY_KEY,
      fid: FID,
    })
    const restored = signedIn(await connectSocial({ uri: again.url }, second, createCall()))
    expect(restored.user.address).toBe(user.address)
  })

  test('a signature by a key that is not the custody address: 4100 with the API message; nothing stored', async () => {
    const context = frame()
    const { url } = await connectFarcaster(undefined, context)
    await signInWithFarcaster({ relayUrl: relay.url, url, privateKey: OTHER_KEY, fid: FID })
    await expect(connectSocial({ uri: url }, context, createCall())).rejects.toMatchObject({
      code: 4100,
      message: 'This Farcaster sign-in could not be verified: start again',
    })
    expect(await context.storage.getToken()).toBeUndefined()
  })

  test('a link is collected once; a link not started here is refused before asking the API', async () => {
    const context = frame()
    const { url } = await connectFarcaster(undefined, context)
    await signInWithFarcaster({ relayUrl: relay.url, url, privateKey: CUSTODY_KEY, fid: FID })
    await connectSocial({ uri: url }, context, createCall())
    const asked = context.paths.length
    await expect(connectSocial({ uri: url }, context, createCall())).rejects.toMatchObject({
      code: -32602,
    })
    await expect(connectSocial({ uri: url }, frame(), createCall())).rejects.toMatchObject({
      code: -32602,
    })
    expect(context.paths.length).toBe(asked)
  })

  test('stops polling when the request is cancelled', async () => {
    const context = frame()
    const { url } = await connectFarcaster(undefined, context)
    const controller = new AbortController()
    const login = connectSocial({ uri: url }, context, createCall(controller.signal))
    await polled(context)
    controller.abort()
    await expect(login).rejects.toMatchObject({ message: 'Request was aborted' })
    const asked = context.paths.length
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(context.paths.length).toBe(asked)
    expect(await context.storage.getToken()).toBeUndefined()
  })
})

describe('inv-23 the account’s email decides a device it has not used', () => {
  test('Farcaster on a new device of an account with an email unlocks nothing until the email approves; then the same wallet', async () => {
    const first = frame()
    const { user } = signedIn(await farcasterLogin(first, EMAIL_FID, EMAIL_CUSTODY_KEY))
    const cached = await first.storage.getUser()
    if (!cached) throw new Error('The first device holds no user')
    // The account has added an email since (its own flow, tested in the API).
    const email = `fid-${EMAIL_FID}-${ipCounter}@example.com`
    await testDb.db.query('UPDATE users SET email = $2 WHERE id = $1', [cached.id, email])

    const second = frame()
    const answer = await farcasterLogin(second, EMAIL_FID, EMAIL_CUSTODY_KEY)
    expect(answer).toEqual({ action: 'VERIFY_DEVICE', email })
    // Nothing of the key reached this device, and no session.
    expect(await second.storage.getToken()).toBeUndefined()
    expect(await second.storage.getDeviceShare(cached.id)).toBeUndefined()
    expect(second.memory.unlocked).toBeUndefined()
    expect(second.paths).not.toContain('/wallet/v1/shares')

    // The login goes on as the email's: its approval, then the code.
    const waiting = connectDevice(undefined, second, createCall())
    const link = mailer.link(email)
    const approved = await app.request('http://api.test/auth/v1/device/approve', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'http://api.test',
      },
      body: `token=${link.searchParams.get('token')}`,
    })
    expect(approved.status).toBe(200)
    await waiting
    await connectOtp({ otp: mailer.code(email) }, second)
    expect((await getUser({}, second)).address).toBe(user.address)
  })
})
