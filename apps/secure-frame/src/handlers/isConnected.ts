import { isApiError } from '../lib/api.js'
import { endLocalSession } from '../wallet/session.js'
import type { Handler } from './handler.js'

/**
 * `isConnected`: whether this device holds a session the API still accepts.
 * A 401 forgets the session here (the device share and device id stay); an
 * API that cannot be reached is an error, not a logout.
 */
export const isConnected = (async (_, context) => {
  const [token, cached] = await Promise.all([context.storage.getToken(), context.storage.getUser()])
  if (!token || !cached) return { isConnected: false }
  try {
    const { user } = await context.api.getSession(token)
    if (user.id !== cached.id) {
      await endLocalSession(context)
      return { isConnected: false }
    }
    if (user.email !== cached.email) {
      const { email: _, ...rest } = cached
      await context.storage.setUser(
        user.email === undefined ? rest : { ...rest, email: user.email },
      )
    }
    return { isConnected: true }
  } catch (error) {
    if (!isApiError(error, 401)) throw error
    await endLocalSession(context)
    return { isConnected: false }
  }
}) satisfies Handler<'isConnected'>
