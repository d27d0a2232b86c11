import type { SecureSpec } from '@porthole/protocol/Secure'
import { type Context, withSession } from '../wallet/session.js'

type Params = SecureSpec['requests']['updateEmail']['params']
type Result = SecureSpec['requests']['updateEmail']['result']

/** `updateEmail`: starts changing the account's email; the API mails the first code. */
export function updateEmail({ email }: Params, context: Context): Promise<Result> {
  return withSession(context, (token) => context.api.updateEmail(token, { email }))
}
