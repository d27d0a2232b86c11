/**
 * The widget's one handshake with its host (DESIGN.md section 3), started by
 * whichever of the widget's two scripts runs first: the prefetch script
 * (`src/prefetch.ts`, a kilobyte or two, run as soon as it arrives) or the
 * app's entry. The prefetch script usually wins by the time the app's JS
 * takes to load and compile, so on a cold click the host's queued `open` is
 * already waiting on the port when the app starts, instead of two round
 * trips through a main thread busy with the first render. Kept on the
 * widget's window under a symbol, as the early answers are
 * (lib/startup.ts): only the widget's own scripts run in its window (its
 * origin serves nothing else: docs/DEPLOY.md). No zod here (the prefetch
 * script bundles this).
 */
import { type Accepted, accept } from '@porthole/protocol/Handshake'
import { channel } from '@porthole/protocol/HostGuards'

const key = Symbol.for('porthole.handshake')

/** The handshake's promise: the port and the host's origin, from the first valid hello. */
export function hostHandshake(): Promise<Accepted> {
  const started = (globalThis as { [key]?: Promise<Accepted> })[key]
  if (started) return started
  const handshake = accept({ channel, readyTo: '*' })
  // Neither writable nor configurable: once made, nothing replaces it (red team).
  Object.defineProperty(globalThis, key, { value: handshake })
  return handshake
}
