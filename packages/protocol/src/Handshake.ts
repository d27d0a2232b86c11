/**
 * The handshake of DESIGN.md section 3. The child says it is listening (a
 * `ready` with nothing in it but the channel's name); the parent posts a
 * `MessagePort` to the child's exact origin; the child accepts one hello,
 * from `window.parent` only, learns the parent's origin from the
 * browser-supplied `event.origin`, and from then on both sides talk only over
 * the port. Nothing carrying data is ever posted with target origin '*'.
 */
import { iframeLoadTimeout } from './Constants.js'
import { AbortedError, TimeoutError, TimeoutReason } from './Errors.js'
import { parseHello, parseWelcome, version } from './Wire.js'

export type ConnectParameters = {
  /** The child window, e.g. `iframe.contentWindow`. */
  target: Window
  /** The child's exact origin: the hello is delivered only to a document of that origin. */
  origin: string
  /** The channel's name; both sides must agree. */
  channel: string
  timeout?: number | undefined
  signal?: AbortSignal | undefined
}

/**
 * Parent side: sends a hello with a fresh port and resolves with that port once
 * the child welcomes it. Call it when the child's document is ready: at its
 * `ready` (from the frame's window and the child's origin; `parseReady`), or
 * after the frame's `load` event. Each document makes a new port.
 */
export function connect(parameters: ConnectParameters): Promise<MessagePort> {
  const { target, origin, channel, timeout = iframeLoadTimeout, signal } = parameters
  // The hello carries the port: it goes to one exact origin, never to '*' (SECURITY.md 2).
  if (origin !== new URL(origin).origin) throw new TypeError(`Not an exact origin: ${origin}`)
  const { port1, port2 } = new MessageChannel()
  return new Promise<MessagePort>((resolve, reject) => {
    const finish = (error?: Error) => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      port1.onmessage = null
      if (!error) return resolve(port1)
      port1.close()
      reject(error)
    }

    const onAbort = () => finish(new AbortedError())
    const timer = setTimeout(
      () =>
        finish(new TimeoutError(TimeoutReason.iframeLoadFailed, 'The wallet frame did not load.')),
      timeout,
    )
    signal?.addEventListener('abort', onAbort)
    // Also starts the port.
    port1.onmessage = (event) => {
      if (parseWelcome(event.data, channel)) finish()
    }
    target.postMessage({ porthole: version, kind: 'hello', channel }, origin, [port2])
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
  return new Promise<Accepted>((resolve) => {
    self.addEventListener('message', (event: MessageEvent) => {
      const refuse = (reason: string) => {
        onRefuse?.(reason)
        for (const port of event.ports) port.close()
      }
      if (!parseHello(event.data, channel)) return onRefuse?.('malformed')
      if (source === self || event.source !== source) return refuse('source')
      if (accepted) return refuse('second handshake')
      if (event.origin === 'null' || !isAllowedOrigin(event.origin)) return refuse('origin')
      const [port] = event.ports
      if (!port || event.ports.length !== 1) return refuse('port')
      accepted = true
      port.postMessage({ porthole: version, kind: 'welcome', channel })
      resolve({ port, origin: event.origin })
    })
    // Not from a top-level page. A ready carries only the channel's name (a
    // constant of the code), so it may go to '*' (SECURITY.md 2).
    if (readyTo && source && source !== self)
      source.postMessage({ porthole: version, kind: 'ready', channel }, readyTo)
  })
}
