/**
 * The channel to the host page's loader, over the port of the handshake
 * (DESIGN.md section 3). The widget answers `open`, `close`, `setTheme`,
 * `disconnect` and `providerRequest`, and emits `state` on every change of
 * what the host sees and `alert` for each alert raised. It also drives the
 * host page's own wallets through the loader's bridge (`requestHostWallet`,
 * and `requestStandardWallet` for its Wallet Standard wallets).
 */
import * as Channel from '@porthole/protocol/Channel'
import * as Contract from '@porthole/protocol/Contract'
import { DisconnectedError, ErrorCode, RpcError } from '@porthole/protocol/Errors'
import * as Host from '@porthole/protocol/Host'
import { router as defaultRouter, hostClosedViews, type Router } from '../state/router.js'
import {
  caipNetworkIdOf,
  currentView,
  store as defaultStore,
  type Store,
  type WidgetState,
} from '../state/store.js'

export type HostChannel = Channel.Channel<Host.WidgetSpec, Host.HostSpec>

/** Wallet features are refused on a host that is not verified (EIP-1193 4100, unauthorized). */
export class UnauthorizedHostError extends RpcError {
  override name = 'UnauthorizedHostError'
  constructor() {
    super(
      ErrorCode.unauthorized,
      'This site is not on the allowed origins of the project: wallet features are off.',
    )
  }
}

/** What the host sees of the widget's state. */
export function toHostState(state: WidgetState): Host.State {
  const { status, address, connectorName } = state.connection
  const caipNetworkId = caipNetworkIdOf(state.connection)
  const connected = address !== null && caipNetworkId !== null
  return {
    ...Host.initialState,
    open: state.open,
    // The email change's steps stay the visitor's: the host sees Account throughout.
    view: hostClosedViews.includes(currentView(state)) ? 'Account' : currentView(state),
    status,
    caipAddress: connected ? `${caipNetworkId}:${address}` : null,
    address: connected ? address : null,
    chainId: caipNetworkId,
    connector: connected ? connectorName : null,
    session: connected ? state.session : null,
  }
}

/** How long the widget waits on a host wallet: the user may take a while in it. */
export const hostWalletTimeout = 5 * 60_000

let current: HostChannel | undefined
const hostWalletListeners = new Set<(event: Host.HostWalletEvent) => void>()

/** Sends a request to one of the host page's wallets, through the loader. */
export function requestHostWallet(request: Host.HostWalletRequest): Promise<unknown> {
  if (!current || current.closed) return Promise.reject(new DisconnectedError())
  return current.request('hostWalletRequest', request, { timeout: hostWalletTimeout })
}

/** Calls a feature of one of the host page's Wallet Standard wallets, through the loader. */
export function requestStandardWallet(request: Host.StandardWalletRequest): Promise<unknown> {
  if (!current || current.closed) return Promise.reject(new DisconnectedError())
  return current.request('standardWalletRequest', request, { timeout: hostWalletTimeout })
}

/** Calls `listener` with every event of a host wallet the widget has used. */
export function onHostWalletEvent(listener: (event: Host.HostWalletEvent) => void): () => void {
  hostWalletListeners.add(listener)
  return () => hostWalletListeners.delete(listener)
}

/** Tells the host's EIP-1193 listeners (`connect`, `accountsChanged`, …). */
export function emitProviderEvent(event: Host.ProviderEvent): void {
  if (current && !current.closed) current.emit('providerEvent', event)
}

/** The host's verification once it is known (requests made early wait for it). */
function verified(store: Store<WidgetState>): Promise<WidgetState['verification']> {
  return new Promise((resolve) => {
    const check = () => {
      const { verification } = store.getState()
      if (verification === 'pending') return false
      resolve(verification)
      return true
    }
    if (check()) return
    const unsubscribe = store.subscribe(() => {
      if (check()) unsubscribe()
    })
  })
}

/**
 * What the host's requests need of the connection's chain adapter
 * (`lib/chains`, whose `ChainAdapter` includes this).
 */
export type HostRequests = {
  /** Answers a request from the host's provider (EIP-1193 for EVM). */
  request(request: Host.ProviderRequest, signal: AbortSignal): Promise<unknown>
  /** The host's `signIn()`: opens SIWXSignMessage for the connected account. */
  requestSignIn(): Promise<void>
  signOut(): Promise<void>
  disconnect(): Promise<void>
}

export type ConnectHostParameters = {
  port: MessagePort
  origin: string
  store?: Store<WidgetState> | undefined
  router?: Router | undefined
  /**
   * The chain adapter for a provider request's method (`lib/chains`), loaded
   * on demand; with no method, the connection's.
   */
  chain?: ((method?: string) => Promise<HostRequests>) | undefined
  /** Whether the adapter is loaded already (then `disconnect` has something to end). */
  chainLoaded?: (() => boolean) | undefined
}

export function connectHost(parameters: ConnectHostParameters): HostChannel {
  const {
    port,
    origin,
    store = defaultStore,
    router = defaultRouter,
    chain,
    chainLoaded,
  } = parameters
  const channel: HostChannel = Channel.create({
    port,
    origin,
    parsers: Contract.parsers(Host.widget, Host.host),
  })
  current = channel

  channel.on('hostWallets', ({ wallets }) => store.setState({ hostWallets: wallets }))
  channel.on('standardWallets', ({ wallets }) => store.setState({ standardWallets: wallets }))
  channel.on('hostWalletEvent', (event) => {
    for (const listener of [...hostWalletListeners]) listener(event)
  })

  channel.handle('open', (params) => {
    // Changing the account's email starts from Account, by the visitor, never by the host.
    if (params?.view && hostClosedViews.includes(params.view))
      throw new RpcError(
        ErrorCode.unsupportedMethod,
        `The view '${params.view}' opens from Account only: the visitor starts an email change, not the site.`,
      )
    router.open(params?.view)
    return undefined
  })
  channel.handle('close', () => {
    router.close()
    return undefined
  })
  channel.handle('setTheme', ({ theme }) => {
    store.setState({ theme })
    return undefined
  })
  channel.handle('disconnect', async () => {
    if (chain && chainLoaded?.()) await (await chain()).disconnect()
    return undefined
  })
  channel.handle('signIn', async () => {
    if ((await verified(store)) !== 'verified') throw new UnauthorizedHostError()
    if (!chain) throw new DisconnectedError()
    await (await chain()).requestSignIn()
    return undefined
  })
  channel.handle('signOut', async () => {
    if (chain && chainLoaded?.()) await (await chain()).signOut()
    return undefined
  })
  channel.handle('providerRequest', async (request, { signal }) => {
    if ((await verified(store)) !== 'verified') throw new UnauthorizedHostError()
    if (!chain) throw new DisconnectedError()
    return (await chain(request.method)).request(request, signal)
  })

  let lastState: string | undefined
  const emitted = new Set<number>()
  const sync = () => {
    if (channel.closed) return unsubscribe()
    const state = store.getState()
    const hostState = toHostState(state)
    const key = JSON.stringify(hostState)
    if (key !== lastState) {
      lastState = key
      channel.emit('state', hostState)
    }
    for (const { id, code, message } of state.alerts) {
      if (emitted.has(id)) continue
      emitted.add(id)
      channel.emit('alert', { code, message })
    }
  }
  const unsubscribe = store.subscribe(sync)
  sync()
  return channel
}
