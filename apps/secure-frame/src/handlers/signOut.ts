import { endLocalSession } from '../wallet/session.js'
import type { Handler } from './handler.js'

/**
 * `signOut`: ends the session on the API (best effort: the widget waits at
 * most 3 s) and forgets it here: the token, the cached user and the auth
 * share. The device id and device share stay, so this device logs in again
 * without a new device verification.
 */
export const signOut = (async (_, context) => {
  const token = await context.storage.getToken()
  await endLocalSession(context)
  if (token) await context.api.deleteSession(token).catch(() => undefined)
}) satisfies Handler<'signOut'>
