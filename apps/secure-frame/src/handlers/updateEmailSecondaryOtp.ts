import { Code } from '@porthole/protocol/Embedded'
import { InvalidParamsError } from '@porthole/protocol/Errors'
import type { SecureSpec } from '@porthole/protocol/Secure'
import { type Context, withSession } from '../wallet/session.js'

type Params = SecureSpec['requests']['updateEmailSecondaryOtp']['params']
type Result = SecureSpec['requests']['updateEmailSecondaryOtp']['result']

/** `updateEmailSecondaryOtp`: the code sent to the new address; the cached user takes the new email. */
export async function updateEmailSecondaryOtp({ otp }: Params, context: Context): Promise<Result> {
  const code = Code.safeParse(otp)
  if (!code.success) throw new InvalidParamsError('The code is the 6 digits in the email.')
  return withSession(context, async (token, user) => {
    const { newEmail } = await context.api.updateEmailSecondary(token, { otp: code.data })
    await context.storage.setUser({ ...user, email: newEmail })
    return { newEmail }
  })
}
