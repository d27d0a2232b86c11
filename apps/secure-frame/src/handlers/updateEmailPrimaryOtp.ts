import { Code } from '@porthole/protocol/Embedded'
import { InvalidParamsError } from '@porthole/protocol/Errors'
import { withSession } from '../wallet/session.js'
import type { Handler } from './handler.js'

/** `updateEmailPrimaryOtp`: the code sent to the current address; the API then mails the new one. */
export const updateEmailPrimaryOtp = (async ({ otp }, context) => {
  const code = Code.safeParse(otp)
  if (!code.success) throw new InvalidParamsError('The code is the 6 digits in the email.')
  await withSession(context, (token) => context.api.updateEmailPrimary(token, { otp: code.data }))
}) satisfies Handler<'updateEmailPrimaryOtp'>
