/**
 * `createWallet`: everything Porthole puts on the host page. It mounts the
 * widget iframe once the page has loaded (so the host renders first), or at
 * the first call that needs it, transparent and inert to the pointer, so
 * `open()` only has to reveal an already painted modal; performs the
 * handshake on every load of the frame; and exposes the `Wallet` API, an
 * EIP-1193 provider and its EIP-6963 announcement (DESIGN.md sections 1–3).
 */
import * as Channel from '@porthole/protocol/Channel'
import { iframeLoadTimeout, providerRequestTimeout } from '@porthole/protocol/Constants'
import {
  BaseError,
  DisconnectedError,
  RpcError,
  TimeoutError,
  TimeoutReason,
} from '@porthole/protocol/Errors'
import * as Handshake from '@porthole/protocol/Handshake'
import type { HostSpec, StandardWalletRequest, WidgetSpec } from '@porthole/protocol/Host'
import {
  channel as channelName,
  initialState,
  parseAlert,
  parseHostWalletRequest,
  parseNothing,
  parseProviderEvent,
  parseState,
} from '@porthole/protocol/HostGuards'
import type { State, Theme, View } from '@porthole/protocol/Views'
import { parseReady } from '@porthole/protocol/Wire'
import { announce, toDetail } from './internal/eip6963.js'
import { discoverHostWallets } from './internal/hostWallets.js'
import { createProvider, notify, type Provider } from './internal/provider.js'
import { watchWalletStandard } from './internal/walletStandard.js'
import type { SolanaBridge } from './solana.js'

export type { State, Theme, View }

/**
 * Sign in with a wallet signature (CAIP-122). The message's domain and URI are
 * the page's origin as the browser reports it, never taken from here.
 */
export type SiwxConfig = {
  /** The modal cannot be closed until the visitor signs in; cancelling disconnects. */
  required?: boolean | undefined
  statement?: string | undefined
  resources?: string[] | undefined
  /** How long a session lasts, in seconds (the message's expiration time). */
  expirationTime?: number | undefined
}

export type CreateWalletParameters = {
  /** The project id registered with the Porthole API. */
  projectId: string
  /** Where the widget is served, e.g. `https://widget.example` (the origin of `loader.js`). */
  widgetUrl: string
  theme?: Theme | undefined
  /** Turns sign-in on; as an object, or the JSON of one (the tag's `data-siwx`). */
  siwx?: SiwxConfig | string | undefined
  /**
   * The accent colour, `#rgb` or `#rrggbb` (the tag's `data-theme-accent`).
   * The widget keeps it readable: darker or lighter where it would fall
   * below 4.5:1 as text.
   */
  themeAccent?: string | undefined
  /** The modal's corner radius in whole pixels, 0 to 32 (`data-theme-radius`); others scale with it. */
  themeRadius?: string | number | undefined
  /** Font families, e.g. `Georgia, serif` (`data-theme-font`): generic families and common text fonts only. */
  themeFont?: string | undefined
}

export type OpenOptions = { view?: View | undefined }

export type Wallet = {
  /** Shows the modal (on `view`, else where the widget decides). */
  open(options?: OpenOptions): Promise<void>
  /** Asks the widget to close the modal (it may refuse, e.g. while sign-in is required). */
  close(): Promise<void>
  disconnect(): Promise<void>
  /** The last state the widget reported. */
  getState(): State
  /** Calls `listener` with every new state; returns the function that stops it. */
  subscribe(listener: (state: State) => void): () => void
  setTheme(theme: Theme): Promise<void>
  /** Asks the connected wallet to sign in; resolves once the modal shows the message. */
  signIn(): Promise<void>
  /** The sign-in session of the connected account, or `null`. */
  getSession(): State['session']
  /** Ends the sign-in session; the wallet stays connected. */
  signOut(): Promise<void>
  /** The EIP-1193 provider, also announced with EIP-6963. */
  readonly provider: Provider
  /** Removes the frame and every listener; everything pending rejects. */
  destroy(): void
}

type HostChannel = Channel.Channel<HostSpec, WidgetSpec>
type Method = keyof WidgetSpec['requests'] & string

/**
 * Hidden, the frame is transparent and lets the pointer through, but is not
 * `visibility:hidden`: Chromium stops rendering a hidden cross-site frame,
 * and would paint the modal only after the host's next frame reported it
 * shown. The widget makes its closed modal inert (no focus, no accessibility
 * tree).
 */
const frameStyle =
  'position:fixed;inset:0;width:100%;height:100%;border:0;z-index:2147483647;background:none;color-scheme:normal'
const hiddenStyle = ';opacity:0;pointer-events:none'

const sandbox =
  'allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-forms'

const same = <value>(value: value) => value

/** The channel parsers of the loader's end (exported for the Solana bridge's tests). */
export const parsers: Channel.Parsers<HostSpec, WidgetSpec> = {
  params: {
    hostWalletRequest: parseHostWalletRequest,
    // Parsed by the Solana bridge (`loader-solana.js`), which alone answers it.
    standardWalletRequest: same as Channel.Parse<StandardWalletRequest>,
  },
  events: { state: parseState, providerEvent: parseProviderEvent, alert: parseAlert },
  results: {
    open: parseNothing,
    close: parseNothing,
    setTheme: parseNothing,
    disconnect: parseNothing,
    providerRequest: same,
    signIn: parseNothing,
    signOut: parseNothing,
  },
}

const warn = (message: string): undefined => {
  // biome-ignore lint/suspicious/noConsole: the loader's only output: alerts for the site's developer.
  console.warn(`[Porthole] ${message}`)
}

export function createWallet(parameters: CreateWalletParameters): Wallet {
  const { projectId } = parameters
  if (!projectId || typeof projectId !== 'string')
    throw new TypeError('[Porthole] createWallet needs a projectId.')
  if (!isSecureContext) throw new BaseError('[Porthole] needs an https: page.')
  const widgetUrl = parameters.widgetUrl.replace(/\/+$/, '')
  const origin = new URL(widgetUrl).origin
  const root = document.documentElement
  const iframe = document.createElement('iframe')
  const subscribers = new Set<(state: State) => void>()
  const waiting: [(channel: HostChannel) => void, (error: RpcError) => void][] = []
  let state = initialState
  let channel: HostChannel | undefined
  let failure: RpcError | undefined
  /** The document whose ready started the last handshake: only that one counts. */
  let readyId: string | undefined
  let solana: Promise<SolanaBridge | undefined> | undefined
  let visible = false
  let previous: Element | null = null
  let overflow = ''

  /** Reveals the frame (focused, the page's scrolling held) or hides it (focus back where it was). */
  const show = (on: boolean) => {
    if (on === visible) return
    visible = on
    iframe.style.cssText = frameStyle + (on ? '' : hiddenStyle)
    if (on) {
      previous = document.activeElement
      overflow = root.style.overflow
      root.style.overflow = 'hidden'
      iframe.focus()
    } else {
      root.style.overflow = overflow
      // A no-op on an element the page removed meanwhile; focus never stays in
      // the transparent frame (opened with nothing focused, say: red team).
      ;(previous as HTMLElement | null)?.focus()
      // A no-op unless the frame still has focus.
      iframe.blur()
    }
  }

  /** Records a failure: everything pending and queued rejects with `error` until a handshake succeeds. */
  const fail = (error: RpcError, alert?: string) => {
    if (failure) return
    failure = error
    channel?.destroy(error)
    channel = undefined
    for (const [, reject] of waiting.splice(0)) reject(error)
    show(false)
    if (alert) warn(alert)
  }

  const loadFailed = () =>
    fail(
      new TimeoutError(TimeoutReason.iframeLoadFailed, 'The wallet frame did not load.'),
      `The wallet frame did not load from ${origin}: check your CSP's frame-src.`,
    )
  let timer: ReturnType<typeof setTimeout> | undefined

  const ready = (): Promise<HostChannel> => {
    start()
    return failure
      ? Promise.reject(failure)
      : new Promise((resolve, reject) => {
          waiting.push([resolve, reject])
        })
  }

  /** Sends at once when the channel is up, else once it is (or rejects if it can't be). */
  const send = <method extends Method>(
    method: method,
    params: WidgetSpec['requests'][method]['params'],
    timeout?: number,
  ) =>
    channel
      ? channel.request(method, params, { timeout })
      : ready().then((channel) => channel.request(method, params, { timeout }))

  const { provider, emit, clear } = createProvider((request) =>
    send('providerRequest', request, providerRequestTimeout),
  )

  const onState = (next: State) => {
    // `porthole:session` on every sign-in and sign-out.
    if (next.session?.signature !== state.session?.signature)
      dispatchEvent(new CustomEvent('porthole:session', { detail: next.session }))
    state = Object.freeze(next)
    // The widget's prefetch script welcomes the hello before the app runs: the
    // frame has loaded once the app speaks (its first state, sent at once), and
    // one whose app never does still fails at the timeout, its channel closed (red team).
    clearTimeout(timer)
    show(next.open)
    notify(subscribers, state)
  }

  /**
   * Hands the frame's document a port at its `ready`, posted as soon as it
   * listens: not at the frame's `load`, which waits for every image and chunk
   * the widget asked for, and may reach this page before the ready does.
   */
  const connect = (id: string) => {
    // A later document's handshake, or destroy(), makes this one moot.
    readyId = id
    if (channel) {
      // A reload: the old document and its port are gone.
      channel.destroy()
      channel = undefined
      show(false)
    }
    Handshake.connect({
      target: iframe.contentWindow as Window,
      origin,
      channel: channelName,
      id,
    }).then(
      (port) => {
        if (id !== readyId) return port.close()
        failure = undefined
        const created: HostChannel = Channel.create({ port, origin, parsers })
        channel = created
        created.on('state', onState)
        created.on('providerEvent', emit)
        created.on('alert', ({ message }) => warn(message))
        created.handle('hostWalletRequest', hostWallets.request)
        created.emit('hostWallets', { wallets: hostWallets.list() })
        void solana?.then((bridge) => bridge?.connect(created))
        for (const [resolve] of waiting.splice(0)) resolve(created)
      },
      () => {
        if (id === readyId) loadFailed()
      },
    )
  }
  // Only the browser's own event, from this frame's window (a removed
  // frame's has none) and the widget's origin (red team).
  // A document repeats its ready until the hello comes: one handshake each.
  const onMessage = (event: MessageEvent) => {
    const { source } = event
    if (!event.isTrusted || !source || source !== iframe.contentWindow) return
    const id = event.origin === origin && parseReady(event.data, channelName)?.id
    if (id && id !== readyId) connect(id)
  }
  addEventListener('message', onMessage)

  // A frame removed by the page can't answer: reject what waits on it. (Put
  // back, it reloads and a new handshake recovers.)
  const observer = new MutationObserver(() => {
    if (!iframe.isConnected) fail(new DisconnectedError('The wallet frame was removed.'))
  })

  /**
   * Mounts the frame once: after the page's `load`, or at the first call that
   * needs the widget (one made before the page has a body: at DOMContentLoaded).
   */
  const start = () => {
    // Not after destroy(), which leaves `failure` set.
    if (timer || failure) return
    // A call before the page has a body (red team): at DOMContentLoaded, not `load`.
    if (!document.body) return document.addEventListener('DOMContentLoaded', start)
    timer = setTimeout(loadFailed, iframeLoadTimeout)
    document.body.append(iframe)
    observer.observe(document.body, { childList: true })
    if (visible) iframe.focus()
  }

  // The widget checks each (lib/env.ts, lib/themeVariables.ts) and falls back: the
  // system theme, no sign-in, the default look (with an alert for what it refused).
  const query = new URLSearchParams({ projectId })
  for (const name of ['theme', 'siwx', 'themeAccent', 'themeRadius', 'themeFont'] as const) {
    const value = parameters[name]
    // A number (themeRadius) becomes its text in set().
    if (value != null)
      query.set(name, typeof value === 'object' ? JSON.stringify(value) : (value as string))
  }
  iframe.src = `${widgetUrl}/?${query}`
  iframe.title = 'Porthole wallet'
  iframe.setAttribute('sandbox', sandbox)
  // Copying an address or a pairing link is the only permission the widget uses.
  iframe.allow = 'clipboard-write'
  iframe.style.cssText = frameStyle + hiddenStyle
  // After the page's load, once its main thread is idle: the host's own render
  // first (a React page renders in a task its scheduler queued before `load`;
  // `npm run bench`: a task right after `load` still cost the host's Connect
  // about 25 %). Without requestIdleCallback (Safari), a task after `load`.
  const later = () => (self.requestIdleCallback ?? setTimeout)(start)
  if (document.readyState === 'complete') later()
  else addEventListener('load', later)

  const stopAnnouncing = announce(toDetail(provider))
  const hostWallets = discoverHostWallets(
    provider,
    (wallets) => channel?.emit('hostWallets', { wallets }),
    (event) => channel?.emit('hostWalletEvent', event),
  )

  /**
   * The Solana bridge, a second file loaded only for a page with a Standard
   * wallet or app. A site's bundler must leave its URL to the browser.
   */
  const bridge = () =>
    (solana ??= import(
      /* @vite-ignore */ /* webpackIgnore: true */ `${widgetUrl}/loader-solana.js`
    ).then(
      ({ createSolanaBridge }: typeof import('./solana.js')) =>
        createSolanaBridge(wallet, channel, RpcError),
      () => warn(`${widgetUrl}/loader-solana.js did not load: check your CSP's script-src.`),
    ))
  const stopStandard = watchWalletStandard(bridge)

  const wallet: Wallet = Object.freeze({
    open(options?: OpenOptions) {
      if (failure) return Promise.reject(failure)
      show(true)
      const view = options?.view
      return send('open', view ? { view } : undefined).catch((error: unknown) => {
        if (!state.open) show(false)
        throw error
      })
    },
    close: () => send('close', undefined),
    disconnect: () => send('disconnect', undefined),
    setTheme: (theme: Theme) => send('setTheme', { theme }),
    signIn: () => send('signIn', undefined),
    signOut: () => send('signOut', undefined),
    getSession: () => state.session,
    getState: () => state,
    subscribe(listener: (state: State) => void) {
      subscribers.add(listener)
      return () => {
        subscribers.delete(listener)
      }
    },
    provider,
    destroy() {
      removeEventListener('message', onMessage)
      readyId = undefined
      observer.disconnect()
      stopAnnouncing()
      hostWallets.stop()
      stopStandard()
      void solana?.then((bridge) => bridge?.stop())
      failure = undefined
      fail(new DisconnectedError('Porthole was destroyed.'))
      iframe.remove()
      subscribers.clear()
      clear()
    },
  })
  return wallet
}
