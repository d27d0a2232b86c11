import { withSession } from '../wallet/session.js'
import type { Handler } from './handler.js'

/** `updateEmail`: starts changing the account's email; the API mails the first code. */
export const updateEmail = (({ email }, context) => {
  return withSession(context, (token) => context.api.updateEmail(token, { email }))
}) satisfies Handler<'updateEmail'>
