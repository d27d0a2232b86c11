import { isApiError } from '../lib/api.js'
import { completeLogin, endLocalSession } from '../wallet/session.js'
import type { Handler } from './handler.js'

const sameEmail = (a: string | undefined, b: string) => a?.toLowerCase() === b.toLowerCase()

/**
 * `connectEmail`: CONNECT when this device already holds a live session for
 * that email (nothing is mailed); else asks the API to mail the address,
 * which answers VERIFY_OTP whether or not it has an account (SECURITY.md
 * 26): the mail holds a code or, for an account on a device it has not used,
 * an approval link, whose approval mails the code. The email is kept in
 * memory for the next steps.
 */
export const connectEmail = (async ({ email }, context) => {
  const token = await context.storage.getToken()
  if (token) {
    try {
      const { user } = await context.api.getSession(token)
      if (sameEmail(user.email, email)) {
        await completeLogin(context, { token, user })
        return { action: 'CONNECT' }
      }
    } catch (error) {
      // An ended session is forgotten (the device share stays); other failures fall through to a new login.
      if (isApiError(error, 401)) await endLocalSession(context)
    }
  }
  const deviceId = await context.storage.getDeviceId()
  const { action } = await context.api.loginEmail({ email, deviceId })
  context.memory.pendingEmail = email
  return { action }
}) satisfies Handler<'connectEmail'>
