/**
 * The host page's wallets, as wagmi sees them: for each wallet the loader
 * bridges (`hostWallets` in the store), an EIP-1193 provider whose requests
 * cross to the host page, announced in the widget's own window with EIP-6963.
 * wagmi's EIP-6963 discovery then makes each one a connector (id: its rdns),
 * with wagmi's own connection state, recent connector and reconnect.
 */
import type { HostWalletEvent } from '@porthole/protocol/Host'
import { connectorIdOf } from '../../data/connectList.js'
import { onHostWalletEvent, requestHostWallet } from '../../host/channel.js'
import type { Store, WidgetState } from '../../state/store.js'

type Listener = (data: unknown) => void

export type BridgedProvider = {
  request(args: { method: string; params?: unknown }): Promise<unknown>
  on(event: string, listener: Listener): BridgedProvider
  removeListener(event: string, listener: Listener): BridgedProvider
}

export function createBridgedProvider(uuid: string): {
  provider: BridgedProvider
  emit(event: HostWalletEvent['event'], data: unknown): void
} {
  const listeners = new Map<string, Set<Listener>>()
  const provider: BridgedProvider = {
    request: ({ method, params }) =>
      requestHostWallet(
        params === undefined
          ? { uuid, method }
          : { uuid, method, params: params as unknown[] | Record<string, unknown> },
      ),
    on(event, listener) {
      listeners.set(event, (listeners.get(event) ?? new Set()).add(listener))
      return provider
    },
    removeListener(event, listener) {
      listeners.get(event)?.delete(listener)
      return provider
    },
  }
  return {
    provider,
    emit(event, data) {
      for (const listener of [...(listeners.get(event) ?? [])]) listener(data)
    },
  }
}

/** Announces every bridged wallet now, on each new one, and on every `eip6963:requestProvider`. */
export function announceHostWallets(
  store: Store<WidgetState>,
  target: Window = window,
): () => void {
  const bridged = new Map<
    string,
    { detail: unknown; emit: ReturnType<typeof createBridgedProvider>['emit'] }
  >()
  const announce = (detail: unknown) =>
    target.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }))
  const sync = () => {
    for (const wallet of store.getState().hostWallets) {
      if (bridged.has(wallet.uuid)) continue
      const { provider, emit } = createBridgedProvider(wallet.uuid)
      const detail = Object.freeze({
        info: Object.freeze({
          uuid: wallet.uuid,
          name: wallet.name,
          icon: wallet.icon,
          rdns: connectorIdOf(wallet),
        }),
        provider,
      })
      bridged.set(wallet.uuid, { detail, emit })
      announce(detail)
    }
  }
  const onRequest = () => {
    for (const { detail } of bridged.values()) announce(detail)
  }
  target.addEventListener('eip6963:requestProvider', onRequest)
  const stopEvents = onHostWalletEvent(({ uuid, event, data }) =>
    bridged.get(uuid)?.emit(event, data),
  )
  const unsubscribe = store.subscribe(sync)
  sync()
  return () => {
    unsubscribe()
    stopEvents()
    target.removeEventListener('eip6963:requestProvider', onRequest)
  }
}
