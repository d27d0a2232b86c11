/**
 * The wagmi config: the project's EVM networks over the API's RPC proxy,
 * the host page's wallets (through EIP-6963 discovery, see `bridge.ts`) and
 * WalletConnect. wagmi's storage is scoped to the host origin (SECURITY.md 9):
 * two sites on one registrable domain share the widget's partitioned storage,
 * but never a connection.
 */
import type { EvmNetwork } from '@porthole/chains/Networks'
import { getByCaipNetworkId } from '@porthole/chains/Networks'
import type { Chain } from 'viem'
import { type Config, createConfig, createStorage, http } from 'wagmi'
import { evmStorageKey } from '../../data/recent.js'
import { storage } from '../../data/storage.js'
import { walletConnectProjectId, walletConnectRelayUrl } from '../../env.js'
import { NoEvmNetworkError } from '../../errors.js'
import { embedded } from './embedded.js'
import { rpcUrl } from './rpc.js'
import { walletConnect } from './walletConnect.js'

export type EvmConfig = Config<readonly [Chain, ...Chain[]]>

/** The project's EVM networks, in its order (the first is the default); unknown ids are skipped. */
export function toChains(networks: readonly string[]): EvmNetwork[] {
  return networks
    .map(getByCaipNetworkId)
    .filter((network): network is EvmNetwork => network?.chainNamespace === 'eip155')
}

export function createEvmConfig(parameters: {
  hostOrigin: string
  networks: readonly string[]
}): EvmConfig {
  const networks = toChains(parameters.networks)
  const [first, ...rest] = networks.map(
    (network): Chain => ({
      ...network,
      rpcUrls: { default: { http: [rpcUrl(network.id)] } },
    }),
  )
  if (!first) throw new NoEvmNetworkError()
  const chains: readonly [Chain, ...Chain[]] = [first, ...rest]
  return createConfig({
    chains,
    connectors: [
      embedded(),
      walletConnect({
        projectId: walletConnectProjectId,
        relayUrl: walletConnectRelayUrl,
        metadata: {
          name: new URL(parameters.hostOrigin).host,
          description: `Connect a wallet to ${parameters.hostOrigin}`,
          url: parameters.hostOrigin,
          icons: [],
        },
        networks: parameters.networks,
      }),
    ],
    transports: Object.fromEntries(chains.map((chain) => [chain.id, http(rpcUrl(chain.id))])),
    storage: createStorage({ key: evmStorageKey(parameters.hostOrigin), storage }),
    multiInjectedProviderDiscovery: true,
  })
}
