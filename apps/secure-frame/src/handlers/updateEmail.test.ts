import { UserRejectedError } from '@porthole/protocol/Errors'
import { describe, expect, test, vi } from 'vitest'
import { createCall, createTestContext, loginWithEmail } from '../../test/testContext.js'
import type { RequestApproval } from '../wallet/session.js'
import { connectEmail } from './connectEmail.js'
import { connectOtp } from './connectOtp.js'
import { updateEmail } from './updateEmail.js'
import { updateEmailPrimaryOtp } from './updateEmailPrimaryOtp.js'
import { updateEmailSecondaryOtp } from './updateEmailSecondaryOtp.js'

/** A logged-in context whose approval window answers with `decide`. */
async function loggedIn(decide: RequestApproval = () => Promise.resolve()) {
  const requestApproval = vi.fn(decide)
  const context = createTestContext({ requestApproval })
  await loginWithEmail(context, 'ada@example.com', { connectEmail, connectOtp })
  return { context, requestApproval }
}

const updateCalls = (context: ReturnType<typeof createTestContext>) =>
  context.api.calls.filter(({ name }) => name.startsWith('updateEmail'))

describe('updateEmail', () => {
  test('two codes, one per address, then the cached user has the new email', async () => {
    const { context } = await loggedIn()
    await expect(updateEmail({ email: 'ada@new.example' }, context, createCall())).resolves.toEqual(
      {
        action: 'VERIFY_PRIMARY_OTP',
      },
    )
    await updateEmailPrimaryOtp({ otp: context.api.codeFor('ada@example.com') ?? '' }, context)
    await expect(
      updateEmailSecondaryOtp({ otp: context.api.codeFor('ada@new.example') ?? '' }, context),
    ).resolves.toEqual({ newEmail: 'ada@new.example' })
    expect((await context.storage.getUser())?.email).toBe('ada@new.example')
  })

  test('asks the approval window first, for this change from this address to that one, on the browser-given origin', async () => {
    const { context, requestApproval } = await loggedIn()
    await updateEmail(
      { email: 'ada@new.example', origin: 'https://told.example' },
      context,
      createCall(),
    )
    const user = await context.storage.getUser()
    expect(requestApproval).toHaveBeenCalledTimes(1)
    expect(requestApproval.mock.calls[0]?.[0]).toEqual({
      method: 'updateEmail',
      params: { from: 'ada@example.com', to: 'ada@new.example' },
      chainId: 'eip155:1',
      account: user?.addresses.eip155,
      origin: 'https://host.example',
    })
  })

  test("without the browser's word on the host, the widget's handshake origin is shown", async () => {
    const requestApproval = vi.fn<RequestApproval>(() => Promise.resolve())
    const context = createTestContext({ requestApproval, ancestorOrigin: () => undefined })
    await loginWithEmail(context, 'ada@example.com', { connectEmail, connectOtp })
    await updateEmail(
      { email: 'ada@new.example', origin: 'https://told.example' },
      context,
      createCall(),
    )
    expect(requestApproval.mock.calls[0]?.[0].origin).toBe('https://told.example')
    const bare = await loggedIn()
    bare.context.ancestorOrigin = () => undefined
    await expect(
      updateEmail({ email: 'ada@new.example' }, bare.context, createCall()),
    ).rejects.toMatchObject({ code: 4100 })
    expect(bare.requestApproval).not.toHaveBeenCalled()
  })

  test('a look-alike in capitals is approved, and sent, as the address the API will store', async () => {
    const { context, requestApproval } = await loggedIn()
    await updateEmail({ email: ' Ada@GmaiI.com ' }, context, createCall())
    expect(requestApproval.mock.calls[0]?.[0].params).toEqual({
      from: 'ada@example.com',
      to: 'ada@gmaii.com',
    })
    expect(updateCalls(context).map(({ args }) => args[1])).toEqual([{ email: 'ada@gmaii.com' }])
  })

  test('another account logged in while the window was open: nothing reaches the API', async () => {
    let switchAccount: () => Promise<void> = async () => {}
    const { context } = await loggedIn(() => switchAccount())
    switchAccount = async () => {
      const user = await context.storage.getUser()
      if (user) await context.storage.setUser({ ...user, id: 'someone-else' })
    }
    await expect(
      updateEmail({ email: 'ada@new.example' }, context, createCall()),
    ).rejects.toMatchObject({ code: 4100 })
    expect(updateCalls(context)).toHaveLength(0)
  })

  test('rejected in the approval window: 4001, and the API never hears of it (nothing mailed)', async () => {
    const { context, requestApproval } = await loggedIn(() =>
      Promise.reject(new UserRejectedError()),
    )
    await expect(
      updateEmail({ email: 'mallory@evil.example' }, context, createCall()),
    ).rejects.toMatchObject({ code: 4001 })
    expect(requestApproval).toHaveBeenCalledTimes(1)
    expect(updateCalls(context)).toEqual([])
    expect(context.api.codeFor('mallory@evil.example')).toBeUndefined()
    expect((await context.storage.getUser())?.email).toBe('ada@example.com')
  })

  test('the widget giving up (the modal closed) while the window is open changes nothing', async () => {
    const controller = new AbortController()
    const { context, requestApproval } = await loggedIn(
      (_request, options) =>
        new Promise((_resolve, reject) =>
          options?.signal?.addEventListener('abort', () => reject(new UserRejectedError())),
        ),
    )
    const pending = updateEmail(
      { email: 'mallory@evil.example' },
      context,
      createCall(controller.signal),
    )
    await vi.waitFor(() => expect(requestApproval).toHaveBeenCalled())
    controller.abort()
    await expect(pending).rejects.toMatchObject({ code: 4001 })
    expect(updateCalls(context)).toEqual([])
  })

  test('an approval that arrives after the widget gave up still sends nothing', async () => {
    const controller = new AbortController()
    const { context } = await loggedIn(async () => controller.abort())
    await expect(
      updateEmail({ email: 'mallory@evil.example' }, context, createCall(controller.signal)),
    ).rejects.toMatchObject({ code: 4001 })
    expect(updateCalls(context)).toEqual([])
  })

  test("refuses the wallet's own email (in any case) before asking anything", async () => {
    const { context, requestApproval } = await loggedIn()
    await expect(
      updateEmail({ email: 'ADA@example.com' }, context, createCall()),
    ).rejects.toMatchObject({ code: -32602, message: "That is already this wallet's email." })
    expect(requestApproval).not.toHaveBeenCalled()
  })

  test('an account without an email has none to change: refused before any approval', async () => {
    const { context, requestApproval } = await loggedIn()
    const user = await context.storage.getUser()
    if (!user) throw new Error('not logged in')
    const { email: _email, ...withoutEmail } = user
    await context.storage.setUser(withoutEmail)
    await expect(
      updateEmail({ email: 'ada@new.example' }, context, createCall()),
    ).rejects.toMatchObject({ code: -32602, message: 'This wallet has no email to change.' })
    expect(requestApproval).not.toHaveBeenCalled()
    expect(updateCalls(context)).toEqual([])
  })

  test('needs a session (4100), and a 401 ends the local one', async () => {
    await expect(
      updateEmail({ email: 'a@b.co' }, createTestContext(), createCall()),
    ).rejects.toMatchObject({
      code: 4100,
    })
    const { context } = await loggedIn()
    context.api.sessions.clear()
    await expect(updateEmail({ email: 'a@b.co' }, context, createCall())).rejects.toMatchObject({
      code: 4100,
    })
    expect(await context.storage.getToken()).toBeUndefined()
  })

  test.each([updateEmailPrimaryOtp, updateEmailSecondaryOtp])(
    '%o refuses a code that is not 6 digits',
    async (handler) => {
      await expect(handler({ otp: '12' }, createTestContext())).rejects.toMatchObject({
        code: -32602,
      })
    },
  )
})
