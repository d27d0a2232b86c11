import { Code } from '@porthole/protocol/Embedded'
import { InvalidParamsError } from '@porthole/protocol/Errors'
import type { SecureSpec } from '@porthole/protocol/Secure'
import { type Context, withSession } from '../wallet/session.js'

type Params = SecureSpec['requests']['updateEmailPrimaryOtp']['params']

/** `updateEmailPrimaryOtp`: the code sent to the current address; the API then mails the new one. */
export async function updateEmailPrimaryOtp({ otp }: Params, context: Context): Promise<undefined> {
  const code = Code.safeParse(otp)
  if (!code.success) throw new InvalidParamsError('The code is the 6 digits in the email.')
  await withSession(context, (token) => context.api.updateEmailPrimary(token, { otp: code.data }))
}
