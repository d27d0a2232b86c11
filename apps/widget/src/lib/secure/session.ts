/**
 * Where the widget notes, per host, that an embedded wallet is connected
 * there: a flag, never a token (the session lives in the secure frame). Set,
 * the secure frame is made at start-up so the session is restored. Apart from
 * `frame.ts`, so start-up reads it without loading the frame's code.
 */
import { storage } from '../data/storage.js'
import { store as defaultStore, type Store, type WidgetState } from '../state/store.js'

const embeddedSessionKey = (hostOrigin: string) => `porthole.embedded.${hostOrigin}`

export function hasEmbeddedSession(hostOrigin: string): boolean {
  return storage.getItem(embeddedSessionKey(hostOrigin)) !== null
}

/** Sets or clears the current host's embedded-session flag. */
export function noteEmbeddedSession(
  connected: boolean,
  target: Store<WidgetState> = defaultStore,
): void {
  const { hostOrigin } = target.getState()
  if (!hostOrigin) return
  if (connected) storage.setItem(embeddedSessionKey(hostOrigin), '1')
  else storage.removeItem(embeddedSessionKey(hostOrigin))
}
