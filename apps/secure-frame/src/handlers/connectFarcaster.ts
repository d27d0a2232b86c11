import type { Memory } from '../wallet/session.js'
import { createRandomId } from '../wallet/storage.js'
import type { Handler } from './handler.js'

/** Refused by `getSocialRedirectUri`: Farcaster is no OAuth provider; `connectFarcaster` starts it. */
export const farcasterNotAvailable =
  'Farcaster has no redirect login: start it with connectFarcaster'

/** Farcaster logins waiting for their `connectSocial`, at most; the oldest is dropped first. */
export const maxPendingFarcasterLogins = 8

/**
 * The Farcaster logins this page started: relay link → one-time state. Kept
 * beside the frame's memory (page memory only, never stored), by its object.
 */
const pending = new WeakMap<Memory, Map<string, string>>()

function pendingOf(memory: Memory): Map<string, string> {
  let logins = pending.get(memory)
  if (logins === undefined) {
    logins = new Map()
    pending.set(memory, logins)
  }
  return logins
}

/**
 * Takes the state of the Farcaster login started here whose relay link is
 * `uri` (it is spent now); `undefined` when `uri` is no such link.
 */
export function takeFarcasterState(memory: Memory, uri: string): string | undefined {
  const logins = pending.get(memory)
  const state = logins?.get(uri)
  if (state !== undefined) logins?.delete(uri)
  return state
}

/**
 * `connectFarcaster`: makes a one-time state (128 random bits, kept in this
 * page's memory only, as for a social login), asks the API to open a
 * Farcaster relay channel bound to it and to this device, and answers the
 * relay's link for the person to open or scan with their Farcaster app. The
 * widget then collects the login with `connectSocial({ uri: url })`.
 */
export const connectFarcaster = (async (_, context) => {
  const deviceId = await context.storage.getDeviceId()
  const state = createRandomId()
  const { uri } = await context.api.farcasterStart({ deviceId, state })
  const logins = pendingOf(context.memory)
  logins.set(uri, state)
  for (const old of logins.keys()) if (logins.size > maxPendingFarcasterLogins) logins.delete(old)
  return { url: uri }
}) satisfies Handler<'connectFarcaster'>
