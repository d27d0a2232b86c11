/**
 * The frame's login handlers and unlock against the real API (`createApp`
 * over in-memory PGlite, called in-process through `app.request`): sign-up,
 * same-device login, new-device verification and recovery, cleared storage,
 * a lost PUT answer, sign out, and the API's messages word for word.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { connectEmail } from '../handlers/connectEmail.js'
import { connectOtp } from '../handlers/connectOtp.js'
import { isConnected } from '../handlers/isConnected.js'
import { signOut } from '../handlers/signOut.js'
import { createApi, type Fetch } from '../lib/api.js'
import { combineShares, toAddresses } from './keys.js'
import { type Context, createMemory } from './session.js'
import { createMemoryBackend, createStorage } from './storage.js'
import { unlock } from './unlock.js'

/**
 * The API's own modules, loaded at run time: `tsc` for this app does not
 * follow a computed specifier, so the API's sources stay type-checked in
 * their own project (a DOM-free lib). The shapes below are the parts used.
 */
type Mailer = { readonly sent: unknown[]; code(to: string): string; link(to: string): URL }
type App = {
  request(url: string, init?: RequestInit, env?: unknown): Response | Promise<Response>
}
type TestDb = { db: unknown; config: unknown; close(): Promise<void> }
const apiSource = (file: string) => new URL(`../../../api/${file}`, import.meta.url).href
const { createApp } = (await import(apiSource('src/app.ts'))) as {
  createApp(options: { config: unknown; db: unknown; mailer: Mailer; now: () => Date }): App
}
const { createTestDb } = (await import(apiSource('test/db.ts'))) as {
  createTestDb(overrides: { publicApiUrl: string }): Promise<TestDb>
}
const { createMemoryMailer } = (await import(apiSource('test/embedded.ts'))) as {
  createMemoryMailer(): Mailer
}

let testDb: TestDb
let app: App
let mailer: Mailer
const sent: Array<{ url: string; init: RequestInit | undefined }> = []
let ipCounter = 0
/** The API's clock: moved past the 30 s between two mails to one address. */
let clock = Date.parse('2031-03-01T12:00:00.000Z')
const later = () => {
  clock += 31_000
}

beforeAll(async () => {
  testDb = await createTestDb({ publicApiUrl: 'http://api.test' })
  mailer = createMemoryMailer()
  app = createApp({ config: testDb.config, db: testDb.db, mailer, now: () => new Date(clock) })
}, 60_000)

afterAll(async () => {
  await testDb?.close()
})

/** A frame on its own device (storage), talking to the API in-process. */
function frame(
  options: {
    lose?: (url: URL, init: RequestInit | undefined) => boolean
    /** Holds back an answer until the promise settles. */
    hold?: (url: URL, init: RequestInit | undefined) => Promise<void> | undefined
  } = {},
) {
  const ip = `203.0.113.${(ipCounter++ % 250) + 1}`
  const fetch: Fetch = async (url, init) => {
    sent.push({ url, init })
    // What the browser adds to the frame's requests: its origin (SECURITY.md 21).
    const headers = new Headers(init?.headers)
    headers.set('origin', 'http://secure.localhost:5172')
    const response = await app.request(
      url,
      { ...init, headers },
      { incoming: { socket: { remoteAddress: ip } } },
    )
    // The API did the work; the answer never reaches the frame.
    if (options.lose?.(new URL(url), init)) throw new TypeError('Failed to fetch')
    await options.hold?.(new URL(url), init)
    return response
  }
  const backend = createMemoryBackend()
  const context: Context = {
    api: createApi({ apiUrl: 'http://api.test', projectId: 'porthole-dev', fetch }),
    storage: createStorage(backend),
    memory: createMemory(),
    requestApproval: () => Promise.reject(new Error('No approval expected')),
    ancestorOrigin: () => undefined,
    pollInterval: 5,
    reload: () => {},
  }
  return context
}

let emailCounter = 0
const newEmail = () => `frame-${Date.now().toString(36)}-${emailCounter++}@example.com`

async function emailLogin(context: Context, email: string) {
  later()
  const { action } = await connectEmail({ email }, context)
  expect(action).toBe('VERIFY_OTP')
  await connectOtp({ otp: mailer.code(email) }, context)
  const user = await context.storage.getUser()
  if (!user) throw new Error('not logged in')
  return user
}

/** Follows the approval link mailed to `email`, as the person would in their mail. */
async function approveDevice(email: string) {
  later()
  const token = mailer.link(email).searchParams.get('token') ?? ''
  const response = await app.request('/auth/v1/device/approve', {
    method: 'POST',
    // The approval page's own form, from the API's origin (SECURITY.md 21).
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://api.test' },
    body: new URLSearchParams({ token }).toString(),
  })
  expect(response.status).toBe(200)
}

describe('inv-11 login against the API', () => {
  test('sign-up creates the wallet: the API gets two shares and the addresses, never the device share', async () => {
    const context = frame()
    const email = newEmail()
    const before = sent.length
    const user = await emailLogin(context, email)
    const deviceShare = (await context.storage.getDeviceShare(user.id)) ?? ''
    const authShare = context.memory.unlocked?.authShare ?? ''
    const entropy = await combineShares(deviceShare, authShare)
    expect(toAddresses(entropy)).toEqual(user.addresses)
    for (const { init } of sent.slice(before)) expect(String(init?.body)).not.toContain(deviceShare)
    const put = sent.slice(before).find(({ init }) => init?.method === 'PUT')
    expect(JSON.parse(String(put?.init?.body))).toEqual({
      authShare,
      recoveryShare: expect.any(String),
      addresses: user.addresses,
    })
  })
})

describe('login against the API', () => {
  test('the same device logs in again with a code only and the same addresses', async () => {
    const context = frame()
    const email = newEmail()
    const user = await emailLogin(context, email)
    await signOut(undefined, context)
    await expect(isConnected(undefined, context)).resolves.toEqual({ isConnected: false })
    const again = await emailLogin(context, email)
    expect(again.addresses).toEqual(user.addresses)
  })

  test('a live session answers CONNECT without a mail', async () => {
    const context = frame()
    const email = newEmail()
    await emailLogin(context, email)
    const mails = mailer.sent.length
    await expect(connectEmail({ email }, context)).resolves.toEqual({ action: 'CONNECT' })
    expect(mailer.sent.length).toBe(mails)
    await expect(isConnected(undefined, context)).resolves.toEqual({ isConnected: true })
  })

  test('a new device is verified by mail, then recovers the same wallet', async () => {
    const email = newEmail()
    const first = await emailLogin(frame(), email)
    const context = frame()
    later()
    // The answer a code's, as for any address (SECURITY.md 26); the mail is the approval link.
    await expect(connectEmail({ email }, context)).resolves.toEqual({ action: 'VERIFY_OTP' })
    // A code before the approval gets nothing: the only live code was never mailed.
    await expect(connectOtp({ otp: '000000' }, context)).rejects.toMatchObject({
      message: expect.stringMatching(/^The code is wrong/),
    })
    expect(await context.storage.getToken()).toBeUndefined()
    await approveDevice(email)
    await connectOtp({ otp: mailer.code(email) }, context)
    const user = await context.storage.getUser()
    expect(user?.addresses).toEqual(first.addresses)
    expect(await context.storage.getDeviceShare(user?.id ?? '')).toBeDefined()
  })

  test("the API's throttle message reaches the widget word for word", async () => {
    const context = frame()
    const email = newEmail()
    await connectEmail({ email }, context)
    await expect(connectEmail({ email }, context)).rejects.toMatchObject({
      message: expect.stringMatching(/^Please try again after \d+ seconds$/),
    })
  })

  test('inv-19 a PUT whose answer was lost: the retry on this device recovers the wallet the API stored', async () => {
    const email = newEmail()
    let lost = false
    const context = frame({
      lose: (url, init) => {
        if (lost || init?.method !== 'PUT' || url.pathname !== '/wallet/v1/shares') return false
        lost = true
        return true
      },
    })
    later()
    await connectEmail({ email }, context)
    await expect(connectOtp({ otp: mailer.code(email) }, context)).rejects.toMatchObject({
      status: 0,
    })
    expect(lost).toBe(true)
    expect(await context.storage.getToken()).toBeUndefined()
    // The code was spent: the person logs in again on the same device.
    const before = sent.length
    const user = await emailLogin(context, email)
    const token = (await context.storage.getToken()) ?? ''
    const shares = await context.api.getShares(token)
    expect(user.addresses).toEqual(shares.addresses)
    const retried = sent
      .slice(before)
      .map(
        ({ url, init }) =>
          `${init?.method ?? 'GET'} ${new URL(url).pathname}${new URL(url).searchParams.has('recovery') ? '?recovery' : ''}`,
      )
    expect(retried).toContain('GET /wallet/v1/shares?recovery')
    expect(retried).not.toContain('PUT /wallet/v1/shares')
  })
})

describe('unlock against the API', () => {
  test('409 wallet_exists: a frame that read no_wallet before another made the wallet recovers that one', async () => {
    const email = newEmail()
    const maker = frame()
    later()
    await maker.api.loginEmail({ email, deviceId: await maker.storage.getDeviceId() })
    const { token, user } = await maker.api.verifyEmail({
      email,
      otp: mailer.code(email),
      deviceId: await maker.storage.getDeviceId(),
    })
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let read: () => void = () => {}
    const readDone = new Promise<void>((resolve) => {
      read = resolve
    })
    const late = frame({
      hold: (url, init) => {
        if (init?.method !== 'GET' || url.pathname !== '/wallet/v1/shares') return undefined
        if (url.searchParams.has('recovery')) return undefined
        read()
        return gate
      },
    })
    const pending = unlock({ api: late.api, storage: late.storage, token, userId: user.id })
    await readDone // its GET answered 404 no_wallet, held back
    const made = await unlock({ api: maker.api, storage: maker.storage, token, userId: user.id })
    expect(made.via).toBe('created')
    release()
    const recovered = await pending
    expect(recovered.via).toBe('recovery')
    expect(recovered.addresses).toEqual(made.addresses)
  })
})

describe('inv-16 login against the API', () => {
  test('cleared frame storage only logs out: device verification, then the same addresses', async () => {
    const email = newEmail()
    const first = await emailLogin(frame(), email)
    const cleared = frame()
    later()
    await expect(connectEmail({ email }, cleared)).resolves.toEqual({ action: 'VERIFY_OTP' })
    await approveDevice(email)
    await connectOtp({ otp: mailer.code(email) }, cleared)
    expect((await cleared.storage.getUser())?.addresses).toEqual(first.addresses)
  })
})
