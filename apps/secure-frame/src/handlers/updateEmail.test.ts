import { describe, expect, test } from 'vitest'
import { createTestContext, loginWithEmail } from '../../test/testContext.js'
import { connectEmail } from './connectEmail.js'
import { connectOtp } from './connectOtp.js'
import { updateEmail } from './updateEmail.js'
import { updateEmailPrimaryOtp } from './updateEmailPrimaryOtp.js'
import { updateEmailSecondaryOtp } from './updateEmailSecondaryOtp.js'

describe('updateEmail', () => {
  test('two codes, one per address, then the cached user has the new email', async () => {
    const context = createTestContext()
    await loginWithEmail(context, 'ada@example.com', { connectEmail, connectOtp })
    await expect(updateEmail({ email: 'ada@new.example' }, context)).resolves.toEqual({
      action: 'VERIFY_PRIMARY_OTP',
    })
    await updateEmailPrimaryOtp({ otp: context.api.codeFor('ada@example.com') ?? '' }, context)
    await expect(
      updateEmailSecondaryOtp({ otp: context.api.codeFor('ada@new.example') ?? '' }, context),
    ).resolves.toEqual({ newEmail: 'ada@new.example' })
    expect((await context.storage.getUser())?.email).toBe('ada@new.example')
  })

  test('needs a session (4100), and a 401 ends the local one', async () => {
    await expect(updateEmail({ email: 'a@b.co' }, createTestContext())).rejects.toMatchObject({
      code: 4100,
    })
    const context = createTestContext()
    await loginWithEmail(context, 'ada@example.com', { connectEmail, connectOtp })
    context.api.sessions.clear()
    await expect(updateEmail({ email: 'a@b.co' }, context)).rejects.toMatchObject({ code: 4100 })
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
