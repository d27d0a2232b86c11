import { describe, expect, test } from 'vitest'
import type { MemoryApi } from '../../test/memoryApi.js'
import { createCall, createTestContext, loginWithEmail } from '../../test/testContext.js'
import { ApiError } from '../lib/api.js'
import { createMemoryBackend, createStorage } from '../wallet/storage.js'
import { connectDevice } from './connectDevice.js'
import { connectEmail } from './connectEmail.js'
import { connectOtp } from './connectOtp.js'
import { getUser } from './getUser.js'
import { isConnected } from './isConnected.js'
import { signOut } from './signOut.js'

const email = 'ada@example.com'
const handlers = { connectEmail, connectOtp }
describe('connectEmail', () => {
  test('a first login mails a code (VERIFY_OTP) for this device id', async () => {
    const context = createTestContext()
    await expect(connectEmail({ email }, context)).resolves.toEqual({ action: 'VERIFY_OTP' })
    const deviceId = await context.storage.getDeviceId()
    expect(context.api.calls).toEqual([{ name: 'loginEmail', args: [{ email, deviceId }] }])
  })

  test('a live session for the same email on this device answers CONNECT and mails nothing', async () => {
    const context = createTestContext()
    await loginWithEmail(context, email, handlers)
    const before = context.api.calls.length
    await expect(connectEmail({ email: 'ADA@example.com' }, context)).resolves.toEqual({
      action: 'CONNECT',
    })
    const names = context.api.calls.slice(before).map((entry) => entry.name)
    expect(names).not.toContain('loginEmail')
    expect(names).toContain('getSession')
  })

  test('a session for another email does not connect: that email gets its own login', async () => {
    const context = createTestContext()
    await loginWithEmail(context, email, handlers)
    await expect(connectEmail({ email: 'bob@example.com' }, context)).resolves.toEqual({
      action: 'VERIFY_OTP',
    })
  })

  test('an ended session is forgotten and a new login starts', async () => {
    const context = createTestContext()
    await loginWithEmail(context, email, handlers)
    context.api.sessions.clear()
    await expect(connectEmail({ email }, context)).resolves.toEqual({ action: 'VERIFY_OTP' })
    expect(await context.storage.getToken()).toBeUndefined()
  })

  test("the API's refusal reaches the widget word for word", async () => {
    const context = createTestContext()
    context.api.failNext(
      'loginEmail',
      new ApiError(429, 'rate_limited', 'Please try again after 12 seconds'),
    )
    await expect(connectEmail({ email }, context)).rejects.toMatchObject({
      message: 'Please try again after 12 seconds',
    })
  })
})

describe('connectOtp', () => {
  test('the first login creates the wallet and stores the session and the user', async () => {
    const context = createTestContext()
    await loginWithEmail(context, email, handlers)
    const user = await context.storage.getUser()
    expect(user?.email).toBe(email)
    expect(user?.addresses).toEqual(context.api.users.get(email)?.wallet?.addresses)
    expect(await context.storage.getToken()).toMatch(/^[\w-]{43}$/)
    expect(await context.storage.getDeviceShare(user?.id ?? '')).toBeDefined()
    expect(context.memory.unlocked?.userId).toBe(user?.id)
  })

  test('a wrong code stores nothing and keeps the login open for another try', async () => {
    const context = createTestContext()
    await connectEmail({ email }, context)
    await expect(connectOtp({ otp: '000000' }, context)).rejects.toMatchObject({
      message: 'The code is wrong or has expired',
    })
    expect(await context.storage.getToken()).toBeUndefined()
    await connectOtp({ otp: context.api.codeFor(email) ?? '' }, context)
    expect(await context.storage.getToken()).toBeDefined()
  })

  test.each(['12345', '1234567', 'abcdef'])('refuses %s without asking the API', async (otp) => {
    const context = createTestContext()
    await connectEmail({ email }, context)
    await expect(connectOtp({ otp }, context)).rejects.toMatchObject({ code: -32602 })
    expect(context.api.calls.map((entry) => entry.name)).toEqual(['loginEmail'])
  })

  test('without connectEmail first it is refused', async () => {
    await expect(connectOtp({ otp: '123456' }, createTestContext())).rejects.toMatchObject({
      code: -32602,
    })
  })
})

describe('connectDevice', () => {
  test('inv-26 a new device of an account gets the same answer as a new address; the approval, then the code, unlock the same wallet', async () => {
    const api = createTestContext().api
    const first = createTestContext({ api })
    await loginWithEmail(first, email, handlers)
    const addresses = (await first.storage.getUser())?.addresses

    const second = createTestContext({ api, backend: createMemoryBackend() })
    await expect(connectEmail({ email }, second)).resolves.toEqual({ action: 'VERIFY_OTP' })
    await expect(connectEmail({ email: 'nobody@example.com' }, second)).resolves.toEqual({
      action: 'VERIFY_OTP',
    })
    await connectEmail({ email }, second)
    expect(api.approvalMailed(email, await second.storage.getDeviceId())).toBe(true)
    expect(api.codeFor(email)).toBeUndefined()
    await expect(connectOtp({ otp: '000000' }, second)).rejects.toMatchObject({
      message: 'The code is wrong or has expired',
    })
    // connectDevice (the wait of a social login's approval) sees the same approval.
    const waiting = connectDevice(undefined, second, createCall())
    let settled = false
    void waiting.then(() => {
      settled = true
    })
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(settled).toBe(false)
    api.approveDevice(email, await second.storage.getDeviceId())
    await expect(waiting).resolves.toBeUndefined()
    await connectOtp({ otp: api.codeFor(email) ?? '' }, second)
    expect((await second.storage.getUser())?.addresses).toEqual(addresses)
  })

  test('stops polling as soon as the request is cancelled', async () => {
    const api = createTestContext().api
    await loginWithEmail(createTestContext({ api }), email, handlers)
    const context = createTestContext({ api })
    await connectEmail({ email }, context)
    const controller = new AbortController()
    const waiting = connectDevice(undefined, context, createCall(controller.signal))
    await new Promise((resolve) => setTimeout(resolve, 20))
    controller.abort()
    await expect(waiting).rejects.toMatchObject({ message: 'Request was aborted' })
    const polls = api.calls.filter((entry) => entry.name === 'deviceStatus').length
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(api.calls.filter((entry) => entry.name === 'deviceStatus')).toHaveLength(polls)
  })

  test('an API that is briefly unreachable is asked again; a refusal ends the wait', async () => {
    const api = createTestContext().api
    await loginWithEmail(createTestContext({ api }), email, handlers)
    const context = createTestContext({ api })
    await connectEmail({ email }, context)
    api.failNext('deviceStatus', new ApiError(0, 'unreachable', 'unreachable'))
    const waiting = connectDevice(undefined, context, createCall())
    await new Promise((resolve) => setTimeout(resolve, 20))
    api.failNext('deviceStatus', new ApiError(400, 'expired', 'The approval link has expired'))
    await expect(waiting).rejects.toMatchObject({ message: 'The approval link has expired' })
  })
})

describe('inv-09 a session belongs to the host origin and project it was made on', () => {
  /** A frame for `origin` and `projectId` over one browser partition's records. */
  const frameFor = (
    api: MemoryApi,
    backend: ReturnType<typeof createMemoryBackend>,
    origin: string,
    projectId: string,
  ) =>
    createTestContext({
      api,
      backend,
      storage: createStorage(backend, { scope: { origin, projectId } }),
    })

  test.each([
    ['another origin of the same site', 'https://b.example.com', 'porthole-dev'],
    ['another project on the same origin', 'https://a.example.com', 'another-project'],
  ])(
    '%s: the same email needs its code, on the same device, for the same wallet',
    async (_, origin, projectId) => {
      const api = createTestContext().api
      const backend = createMemoryBackend()
      const a = frameFor(api, backend, 'https://a.example.com', 'porthole-dev')
      await loginWithEmail(a, email, handlers)
      const b = frameFor(api, backend, origin, projectId)

      // Not A's session (CONNECT), and not a new device (an approval mail): a code.
      expect(await isConnected(undefined, b)).toEqual({ isConnected: false })
      await expect(getUser({}, b)).rejects.toMatchObject({ code: 4100 })
      await expect(connectEmail({ email }, b)).resolves.toEqual({ action: 'VERIFY_OTP' })
      expect(api.approvalMailed(email, await b.storage.getDeviceId())).toBe(false)
      await connectOtp({ otp: api.codeFor(email) ?? '' }, b)
      expect((await b.storage.getUser())?.addresses).toEqual((await a.storage.getUser())?.addresses)
      expect(await b.storage.getToken()).not.toBe(await a.storage.getToken())

      // Signing out on B leaves A signed in.
      await signOut(undefined, b)
      expect(await isConnected(undefined, b)).toEqual({ isConnected: false })
      expect(await isConnected(undefined, a)).toEqual({ isConnected: true })
      expect((await getUser({}, a)).email).toBe(email)
    },
  )
})
