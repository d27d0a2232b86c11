import { Code } from '@porthole/protocol/Embedded'
import { InvalidParamsError } from '@porthole/protocol/Errors'
import { completeLogin } from '../wallet/session.js'
import type { Handler } from './handler.js'

/**
 * `connectOtp`: checks the mailed code with the API, which answers a session
 * for this device; then unlocks the wallet (creating it on the first login)
 * and stores the session.
 */
export const connectOtp = (async ({ otp }, context) => {
  const email = context.memory.pendingEmail
  if (!email) throw new InvalidParamsError('No email login is in progress.')
  const code = Code.safeParse(otp)
  if (!code.success) throw new InvalidParamsError('The code is the 6 digits in the email.')
  const deviceId = await context.storage.getDeviceId()
  const result = await context.api.verifyEmail({ email, otp: code.data, deviceId })
  await completeLogin(context, result)
}) satisfies Handler<'connectOtp'>
