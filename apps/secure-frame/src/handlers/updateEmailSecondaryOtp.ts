import { Code } from '@porthole/protocol/Embedded'
import { InvalidParamsError } from '@porthole/protocol/Errors'
import { withSession } from '../wallet/session.js'
import type { Handler } from './handler.js'

/** `updateEmailSecondaryOtp`: the code sent to the new address; the cached user takes the new email. */
export const updateEmailSecondaryOtp = (async ({ otp }, context) => {
  const code = Code.safeParse(otp)
  if (!code.success) throw new InvalidParamsError('The code is the 6 digits in the email.')
  return withSession(context, async (token, user) => {
    const { newEmail } = await context.api.updateEmailSecondary(token, { otp: code.data })
    await context.storage.setUser({ ...user, email: newEmail })
    return { newEmail }
  })
}) satisfies Handler<'updateEmailSecondaryOtp'>
