import { describe, expect, test } from 'vitest'
import { createTestContext, loginWithEmail } from '../../test/testContext.js'
import { ApiError } from '../lib/api.js'
import { connectEmail } from './connectEmail.js'
import { connectOtp } from './connectOtp.js'
import { isConnected } from './isConnected.js'
import { signOut } from './signOut.js'

const email = 'ada@example.com'

async function loggedIn() {
  const context = createTestContext()
  await loginWithEmail(context, email, { connectEmail, connectOtp })
  const user = await context.storage.getUser()
  if (!user) throw new Error('not logged in')
  return { context, user }
}

describe('isConnected', () => {
  test('is true for a session the API accepts, false with none', async () => {
    const { context } = await loggedIn()
    await expect(isConnected(undefined, context)).resolves.toEqual({ isConnected: true })
    await expect(isConnected(undefined, createTestContext())).resolves.toEqual({
      isConnected: false,
    })
  })

  test('a 401 forgets the session but keeps the device share and device id', async () => {
    const { context, user } = await loggedIn()
    const deviceId = await context.storage.getDeviceId()
    const share = await context.storage.getDeviceShare(user.id)
    context.api.sessions.clear()
    await expect(isConnected(undefined, context)).resolves.toEqual({ isConnected: false })
    expect(await context.storage.getToken()).toBeUndefined()
    expect(await context.storage.getUser()).toBeUndefined()
    expect(context.memory.unlocked).toBeUndefined()
    expect(await context.storage.getDeviceId()).toBe(deviceId)
    expect(await context.storage.getDeviceShare(user.id)).toBe(share)
  })

  test('an API that cannot be reached is an error, not a logout', async () => {
    const { context } = await loggedIn()
    context.api.failNext('getSession', new ApiError(0, 'unreachable', 'unreachable'))
    await expect(isConnected(undefined, context)).rejects.toBeInstanceOf(ApiError)
    expect(await context.storage.getToken()).toBeDefined()
  })
})

describe('signOut', () => {
  test('ends the session on the API and here; the same device logs in again without device verification', async () => {
    const { context, user } = await loggedIn()
    const token = await context.storage.getToken()
    await signOut(undefined, context)
    expect(context.api.sessions.has(token ?? '')).toBe(false)
    expect(await context.storage.getToken()).toBeUndefined()
    expect(context.memory.unlocked).toBeUndefined()
    await expect(isConnected(undefined, context)).resolves.toEqual({ isConnected: false })

    await expect(connectEmail({ email }, context)).resolves.toEqual({ action: 'VERIFY_OTP' })
    await connectOtp({ otp: context.api.codeFor(email) ?? '' }, context)
    expect((await context.storage.getUser())?.addresses).toEqual(user.addresses)
  })

  test('still signs out here when the API cannot be reached', async () => {
    const { context } = await loggedIn()
    context.api.failNext('deleteSession', new ApiError(0, 'unreachable', 'unreachable'))
    await expect(signOut(undefined, context)).resolves.toBeUndefined()
    expect(await context.storage.getToken()).toBeUndefined()
  })
})
