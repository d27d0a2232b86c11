/**
 * The channel to the secure frame (embedded wallets), which only a verified
 * host gets. The widget creates the hidden frame, performs the handshake on
 * each of its `load` events, waits for its `ready` event plus the 500 ms
 * frame-ready delay, then keeps its theme in sync. If the frame is not ready
 * within 20 000 ms, the `iframe_load_failed` alert is raised. Timers use
 * `setTimeout`, so a fake clock (Playwright's, Vitest's) drives them.
 */
import * as Channel from '@porthole/protocol/Channel'
import { frameReadyDelay, iframeLoadTimeout } from '@porthole/protocol/Constants'
import * as Contract from '@porthole/protocol/Contract'
import { ErrorCode, ErrorMessage, RpcError } from '@porthole/protocol/Errors'
import * as Handshake from '@porthole/protocol/Handshake'
import * as Secure from '@porthole/protocol/Secure'
import { secureFrameUrl } from '../env.js'
import { t } from '../i18n.js'
import {
  store as defaultStore,
  dismissAlert,
  raiseAlert,
  type Store,
  type WidgetState,
} from '../state/store.js'
import { resolveTheme, systemTheme } from '../theme.js'

export type SecureChannel = Channel.Channel<Secure.WidgetSpec, Secure.SecureSpec>

export const secureFrameTitle = 'Porthole secure frame'

/** Everything a cross-origin login frame needs, and no top navigation (SECURITY.md 14). */
export const secureFrameSandbox =
  'allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox'

let current: SecureChannel | null = null
let currentFrame: HTMLIFrameElement | null = null

/** The live channel to the secure frame once it is ready, else `null`. */
export function getSecureChannel(): SecureChannel | null {
  return current
}

/** The embedded wallet is not available: the frame failed to load, or this host is not verified. */
export class SecureFrameUnavailableError extends RpcError {
  override name = 'SecureFrameUnavailableError'
  constructor(message = ErrorMessage.iframeNotSet) {
    super(ErrorCode.disconnected, message)
  }
}

/**
 * Asks for the secure frame: it is made once the host is verified. Until an
 * embedded wallet is in play the widget runs without it (its memory and load
 * are the visitor's).
 */
export function requestSecureFrame(target: Store<WidgetState> = defaultStore): void {
  if (!target.getState().secureFrameWanted) target.setState({ secureFrameWanted: true })
}

/**
 * The channel once the frame is ready: at once when it is, else when it
 * becomes ready; rejects when it fails, or `timeout` passes, or when it is
 * not mounted and will not be (not asked for, or the host refused).
 */
export function waitForSecureChannel(
  timeout: number = iframeLoadTimeout,
  target: Store<WidgetState> = defaultStore,
): Promise<SecureChannel> {
  if (current) return Promise.resolve(current)
  return new Promise((resolve, reject) => {
    const check = () => {
      const { secureFrame: status, secureFrameWanted, verification } = target.getState()
      const coming =
        secureFrameWanted && (verification === 'pending' || verification === 'verified')
      if (current && status === 'ready') finish(() => resolve(current as SecureChannel))
      else if (status === 'failed' || (status === 'idle' && !coming))
        finish(() => reject(new SecureFrameUnavailableError()))
    }
    const timer = setTimeout(() => finish(() => reject(new SecureFrameUnavailableError())), timeout)
    const unsubscribe = target.subscribe(check)
    const finish = (settle: () => void) => {
      clearTimeout(timer)
      unsubscribe()
      settle()
    }
    check()
  })
}

/** Where the secure frame shows itself (the ApproveTransaction view's slot), in the widget's viewport. */
export type FrameSlot = { top: number; left: number; width: number; height: number }

/**
 * Shows the secure frame over `slot`, or hides it (`null`). The frame is never
 * moved in the DOM (that would reload it): it is laid over the slot, on top,
 * untransformed and opaque, so its visibility check (SECURITY.md 7) passes.
 */
export function showSecureFrame(slot: FrameSlot | null): void {
  const iframe = currentFrame
  if (!iframe) return
  if (slot === null) {
    iframe.hidden = true
    iframe.removeAttribute('data-shown')
    return
  }
  Object.assign(iframe.style, {
    top: `${slot.top}px`,
    left: `${slot.left}px`,
    width: `${slot.width}px`,
    height: `${slot.height}px`,
  })
  iframe.dataset.shown = 'true'
  iframe.hidden = false
}

/**
 * The frame's URL: the project. Never the host's origin: the host can
 * navigate the frame to a URL of its own, so the frame takes the origin it
 * keeps a session under only from the browser (SECURITY.md 9).
 */
export function secureFrameSrc(projectId: string, baseUrl: string = secureFrameUrl): string {
  const url = new URL(`${baseUrl}/`)
  url.searchParams.set('projectId', projectId)
  return url.href
}

export type MountSecureFrameParameters = {
  container: HTMLElement
  projectId: string
  baseUrl?: string | undefined
  store?: Store<WidgetState> | undefined
  timeout?: number | undefined
  readyDelay?: number | undefined
}

/** Creates the secure frame in `container`; returns a function that removes it and ends its channel. */
export function mountSecureFrame(parameters: MountSecureFrameParameters): () => void {
  const {
    container,
    projectId,
    baseUrl = secureFrameUrl,
    store = defaultStore,
    timeout = iframeLoadTimeout,
    readyDelay = frameReadyDelay,
  } = parameters
  const src = secureFrameSrc(projectId, baseUrl)
  const origin = new URL(src).origin
  let channel: SecureChannel | null = null
  /** The handshake in flight: a later load, or the end of the channel, makes it moot. */
  let handshake: object | null = null
  let loadTimer: ReturnType<typeof setTimeout> | undefined
  let readyTimer: ReturnType<typeof setTimeout> | undefined
  let unmounted = false

  const resolvedTheme = () => resolveTheme(store.getState().theme)
  let syncedTheme: string | null = null
  const syncTheme = () => {
    const theme = resolvedTheme()
    if (!channel || current !== channel || theme === syncedTheme) return
    syncedTheme = theme
    // A frame that cannot take the theme still works; the next change retries.
    channel.request('syncTheme', { theme }).catch(() => {
      syncedTheme = null
    })
  }

  const fail = () => {
    loadTimer = undefined
    store.setState({ secureFrame: 'failed' })
    raiseAlert(
      {
        code: 'IFRAME_LOAD_FAILED',
        message: t('alert.IFRAME_LOAD_FAILED.event', { url: src, seconds: timeout / 1000 }),
      },
      store,
    )
  }

  const startLoadTimer = () => {
    if (loadTimer === undefined) loadTimer = setTimeout(fail, timeout)
  }

  const ready = (from: SecureChannel) => {
    if (from !== channel) return
    clearTimeout(readyTimer)
    readyTimer = setTimeout(() => {
      if (from !== channel || unmounted) return
      clearTimeout(loadTimer)
      loadTimer = undefined
      current = from
      syncedTheme = null
      store.setState({ secureFrame: 'ready' })
      for (const alert of store.getState().alerts)
        if (alert.code === 'IFRAME_LOAD_FAILED') dismissAlert(alert.id, store)
      syncTheme()
    }, readyDelay)
  }

  const endChannel = () => {
    handshake = null
    clearTimeout(readyTimer)
    if (current === channel) current = null
    channel?.destroy()
    channel = null
  }

  const iframe = document.createElement('iframe')
  iframe.title = secureFrameTitle
  iframe.setAttribute('sandbox', secureFrameSandbox)
  iframe.hidden = true
  iframe.className = 'secure-frame'
  currentFrame = iframe
  iframe.addEventListener('load', async () => {
    // Each load is a new document, so a new handshake and a new port (SECURITY.md 3).
    endChannel()
    if (store.getState().secureFrame !== 'failed') store.setState({ secureFrame: 'loading' })
    startLoadTimer()
    const target = iframe.contentWindow
    if (!target) return
    const attempt = {}
    handshake = attempt
    try {
      const port = await Handshake.connect({
        target,
        origin,
        channel: Secure.channel,
        timeout,
      })
      if (handshake !== attempt) return port.close()
      handshake = null
      const created: SecureChannel = Channel.create({
        port,
        origin,
        parsers: Contract.parsers(Secure.widget, Secure.secure),
      })
      channel = created
      created.on('ready', () => ready(created))
    } catch {
      // No welcome: the load timer raises the alert.
    }
  })

  const unsubscribeStore = store.subscribe(syncTheme)
  const unsubscribeSystem = systemTheme.subscribe(syncTheme)
  store.setState({ secureFrame: 'loading' })
  startLoadTimer()
  iframe.src = src
  container.append(iframe)

  return () => {
    unmounted = true
    clearTimeout(loadTimer)
    endChannel()
    unsubscribeStore()
    unsubscribeSystem()
    iframe.remove()
    if (currentFrame === iframe) currentFrame = null
    store.setState({ secureFrame: 'idle' })
  }
}
