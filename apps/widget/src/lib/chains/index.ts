/**
 * The chain adapters (`types.ts`), one per namespace folder. Each is a lazy
 * chunk with its wallet libraries (wagmi, viem, WalletConnect for EVM), so
 * the Connect view paints without them. An adapter is loaded in the
 * background once the host is verified, and at once by anything that needs
 * it; everyone shares the one instance. Views that are lazy chunks themselves
 * may import a namespace's extras (`evm/balances.ts`, …) directly.
 */
import type { ChainNamespace } from '@porthole/chains/Networks'
import { store, type WidgetState } from '../state/store.js'
import type { ChainAdapter } from './types.js'

export type { ChainAdapter } from './types.js'

/** Each namespace's adapter, and the store field that shows its loading. */
const adapters = {
  eip155: {
    load: () => import('./evm/index.js').then(({ evm }) => evm),
    status: 'evm',
  },
} as const satisfies Partial<
  Record<ChainNamespace, { load(): Promise<ChainAdapter>; status: keyof WidgetState }>
>

/** The namespaces the widget can connect. */
export type AdapterNamespace = keyof typeof adapters

/** The namespace of the connection; only EIP-155 connects today. */
export const activeNamespace = (): AdapterNamespace => 'eip155'

const loading = new Map<AdapterNamespace, Promise<ChainAdapter>>()

export function loadChain(namespace: AdapterNamespace = activeNamespace()): Promise<ChainAdapter> {
  const started = loading.get(namespace)
  if (started) return started
  const { load, status } = adapters[namespace]
  store.setState({ [status]: 'loading' })
  const adapter = load().then(
    (chain) => {
      store.setState({ [status]: 'ready' })
      return chain
    },
    (error: unknown) => {
      loading.delete(namespace)
      store.setState({ [status]: 'failed' })
      throw error
    },
  )
  loading.set(namespace, adapter)
  return adapter
}

/** Whether the namespace's adapter is loaded (then it has a connection to end, maybe). */
export const isChainLoaded = (namespace: AdapterNamespace = activeNamespace()): boolean =>
  store.getState()[adapters[namespace].status] === 'ready'

/** Connects the embedded wallet (the secure frame is logged in) through the active adapter. */
export const connectEmbedded = (): Promise<void> =>
  loadChain().then((chain) => chain.connectEmbedded())
