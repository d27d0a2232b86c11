/**
 * The handshake of DESIGN.md section 3. The child says it is listening (a
 * `ready` with nothing in it but the channel's name and a random name for its
 * document, repeated until a hello comes); the parent posts a `MessagePort`
 * to the child's exact origin, in a hello naming that document; the child
 * accepts one hello, for itself and from `window.parent` only, learns the
 * parent's origin from the browser-supplied `event.origin`, and from then on
 * both sides talk only over the port. Nothing carrying data is ever posted with target origin '*'.
 */
import { iframeLoadTimeout } from './Constants.js'
import { TimeoutError, TimeoutReason } from './Errors.js'
import { parseHello, parseWelcome, version } from './Wire.js'

/**
 * How often a child repeats its `ready` until a hello comes (for
 * `iframeLoadTimeout` at most). A ready posted once can be lost: in Chromium,
 * when the host had just opened a window, the widget's only ready never
 * reached the host in 26 of 180 cold starts on a loaded 2-core machine
 * (`e2e/security/inv-15-social-popup.spec.ts` failed in CI that way); with the
 * repeats, 0 of 120. The parent starts one handshake per document (its id).
 */
export const readyRepeat = 250

export type ConnectParameters = {
  /** The child window, e.g. `iframe.contentWindow`. */
  target: Window
  /** The child's exact origin: the hello is delivered only to a document of that origin. */
  origin: string
  /** The channel's name; both sides must agree. */
  channel: string
  timeout?: number | undefined
  /** The id of the child document's ready: only that document takes the hello. */
  id?: string | undefined
}

/**
 * Parent side: sends a hello with a fresh port and resolves with that port once
 * the child welcomes it. Call it when the child's document is ready: at its
 * `ready` (from the frame's window and the child's origin; `parseReady`), or
 * after the frame's `load` event. Each document makes a new port.
 */
export function connect(parameters: ConnectParameters): Promise<MessagePort> {
  const { target, origin, channel, timeout = iframeLoadTimeout, id } = parameters
  // The hello carries the port: it goes to one exact origin, never to '*' (SECURITY.md 2).
  if (origin !== new URL(origin).origin) throw new TypeError(`Not an exact origin: ${origin}`)
  const { port1, port2 } = new MessageChannel()
  return new Promise<MessagePort>((resolve, reject) => {
    const timer = setTimeout(() => {
      port1.close()
      reject(new TimeoutError(TimeoutReason.iframeLoadFailed, 'The wallet frame did not load.'))
    }, timeout)
    // Also starts the port.
    port1.onmessage = (event) => {
      if (!parseWelcome(event.data, channel)) return
      clearTimeout(timer)
      port1.onmessage = null
      resolve(port1)
    }
    target.postMessage({ porthole: version, kind: 'hello', channel, id }, origin, [port2])
  })
}

export type AcceptParameters = {
  channel: string
  /** The only window a hello is taken from; defaults to `window.parent`. */
  source?: Window | undefined
  /** Checks the browser-supplied origin of the hello; defaults to any non-opaque origin. */
  isAllowedOrigin?: ((origin: string) => boolean) | undefined
  /** Called for each refused hello (wrong source, origin or shape, or a second one). */
  onRefuse?: ((reason: string) => void) | undefined
  /** The window to listen on; defaults to the global `window`. */
  window?: Window | undefined
  /**
   * Where to tell the parent that the listener is up (`ready`): its origin,
   * or '*' for a parent of any origin (the widget's host). None: no ready, and
   * the parent connects on the frame's `load`.
   */
  readyTo?: string | undefined
}

export type Accepted = { port: MessagePort; origin: string }

/**
 * Child side: listens, tells the parent it does (`ready`, with `readyTo`), and resolves with
 * the port and the parent's origin on the first valid hello. Later hellos are
 * refused for the life of the page: a live channel is never replaced by a
 * second handshake. Call it at module top level, before rendering, so the
 * listener exists before the frame's `load` event.
 */
export function accept(parameters: AcceptParameters): Promise<Accepted> {
  const self = parameters.window ?? window
  const { channel, isAllowedOrigin = () => true, onRefuse, readyTo } = parameters
  const source = parameters.source ?? self.parent
  let accepted = false
  let stop = () => {}
  // Names this document in its ready; a hello for another (the one before a
  // reload, answered late) is refused and uses up nothing (red team).
  const id = readyTo && source && source !== self ? crypto.randomUUID() : undefined
  return new Promise<Accepted>((resolve) => {
    self.addEventListener('message', (event: MessageEvent) => {
      const refuse = (reason: string) => {
        onRefuse?.(reason)
        for (const port of event.ports) port.close()
      }
      const hello = parseHello(event.data, channel)
      if (!hello) return onRefuse?.('malformed')
      if (source === self || event.source !== source) return refuse('source')
      if (hello.id !== id) return refuse('document')
      if (accepted) return refuse('second handshake')
      if (event.origin === 'null' || !isAllowedOrigin(event.origin)) return refuse('origin')
      const [port] = event.ports
      if (!port || event.ports.length !== 1) return refuse('port')
      accepted = true
      stop()
      port.postMessage({ porthole: version, kind: 'welcome', channel })
      resolve({ port, origin: event.origin })
    })
    // Not from a top-level page. A ready carries only the channel's name (a
    // constant of the code) and a random id, so it may go to '*' (SECURITY.md 2).
    if (!id || !readyTo) return
    const post = () =>
      source.postMessage({ porthole: version, kind: 'ready', channel, id }, readyTo)
    post()
    const repeat = setInterval(post, readyRepeat)
    stop = () => clearInterval(repeat)
    setTimeout(stop, iframeLoadTimeout)
  })
}
