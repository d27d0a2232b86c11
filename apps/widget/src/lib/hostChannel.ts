/**
 * The channel to the host page's loader, over the port of the handshake
 * (DESIGN.md section 3). The widget answers `open`, `close`, `setTheme`,
 * `disconnect` and `providerRequest`, and emits `state` on every change of
 * what the host sees and `alert` for each alert raised.
 */
import * as Channel from '@porthole/protocol/Channel'
import * as Contract from '@porthole/protocol/Contract'
import { DisconnectedError, ErrorCode, RpcError } from '@porthole/protocol/Errors'
import * as Host from '@porthole/protocol/Host'
import { router as defaultRouter, type Router } from './router.js'
import { currentView, store as defaultStore, type Store, type WidgetState } from './store.js'

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
  return { ...Host.initialState, open: state.open, view: currentView(state) }
}

export type ConnectHostParameters = {
  port: MessagePort
  origin: string
  store?: Store<WidgetState> | undefined
  router?: Router | undefined
}

export function connectHost(parameters: ConnectHostParameters): HostChannel {
  const { port, origin, store = defaultStore, router = defaultRouter } = parameters
  const channel: HostChannel = Channel.create({
    port,
    origin,
    parsers: Contract.parsers(Host.widget, Host.host),
  })

  channel.handle('open', (params) => {
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
  // No connection exists yet, so there is nothing to end.
  channel.handle('disconnect', () => undefined)
  channel.handle('providerRequest', () => {
    const { verification } = store.getState()
    if (verification !== 'verified' && verification !== 'pending') throw new UnauthorizedHostError()
    throw new DisconnectedError()
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
