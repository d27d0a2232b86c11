/**
 * The chain adapters (`types.ts`), one per namespace folder. Each is a lazy
 * chunk with its wallet libraries (wagmi, viem, WalletConnect for EVM;
 * web3.js and spl-token for Solana), so
 * the Connect view paints without them. An adapter is loaded in the
 * background once the host is verified, and at once by anything that needs
 * it; everyone shares the one instance. Views that are lazy chunks themselves
 * may import a namespace's extras (`evm/balances.ts`, …) directly.
 */
import { preferredNamespace } from '../data/connectList.js'
import { queryClient } from '../data/queryClient.js'
import { projectConfigQuery } from '../host/projectConfig.js'
import { type ConnectionNamespace, store, type WidgetState } from '../state/store.js'
import type { ChainAdapter } from './types.js'

export type { ChainAdapter } from './types.js'

/** Each namespace's adapter, and the store field that shows its loading. */
const adapters = {
  eip155: {
    load: () => import('./evm/index.js').then(({ evm }) => evm),
    status: 'evm',
  },
  solana: {
    // The Buffer polyfill first: spl-token reads the global at load.
    load: () =>
      import('./solana/buffer.js')
        .then(() => import('./solana/index.js'))
        .then(({ solana }) => solana),
    status: 'solana',
  },
} as const satisfies Record<
  ConnectionNamespace,
  { load(): Promise<ChainAdapter>; status: keyof WidgetState }
>

/** The namespaces the widget can connect. */
export type AdapterNamespace = keyof typeof adapters

export const isAdapterNamespace = (namespace: string): namespace is AdapterNamespace =>
  Object.hasOwn(adapters, namespace)

/** The namespace of the connection (EIP-155 while nothing is connected). */
export const activeNamespace = (): AdapterNamespace => store.getState().connection.namespace

/** The adapter of a Connect entry's connector id: `standard:<name>` is a Solana wallet. */
export const namespaceOfConnector = (connectorId: string): AdapterNamespace =>
  connectorId.startsWith('standard:') ? 'solana' : 'eip155'

/**
 * The adapter that answers a host's provider request: the Solana methods of
 * Porthole's Wallet Standard wallet (`solana_*`, `standard:*`) go to Solana,
 * the rest (EIP-1193) to EVM; no method (disconnect, sign-in) to the connection's.
 */
export function namespaceOfRequest(method?: string): AdapterNamespace {
  if (method === undefined) return activeNamespace()
  return method.startsWith('solana_') || method.startsWith('standard:') ? 'solana' : 'eip155'
}

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

/**
 * A WalletConnect pairing (`onUri` gets each URI): wagmi's connector pairs,
 * proposing EIP-155 and the project's Solana networks; a wallet that connects
 * Solana accounts only is then the Solana adapter's connection.
 */
export async function pairWalletConnect(onUri: (uri: string) => void): Promise<void> {
  await (await loadChain('eip155')).pairWalletConnect(onUri)
  if (store.getState().connection.status !== 'connected')
    await (await loadChain('solana')).pairWalletConnect(onUri)
}

/**
 * Connects the embedded wallet (the secure frame is logged in) in the
 * namespace the host or the project asked for (`preferredNamespace`).
 */
export const connectEmbedded = (): Promise<void> =>
  loadChain(
    preferredNamespace(
      store.getState().requestedNamespace,
      queryClient.getQueryData(projectConfigQuery.queryKey)?.networks ?? [],
    ),
  ).then((chain) => chain.connectEmbedded())
