/**
 * The account's balances as TanStack Query options, for any namespace: each
 * asks the network's chain adapter (loaded on demand). A failed token fetch
 * is not retried here (`hooks/useTokenBalances.ts` waits 30 s). And a send
 * receiver's profile, from the EVM name service (`evm/ens.ts`, its own chunk).
 */
import { validate as validateAddress } from '@porthole/chains/Address'
import { type EvmNetwork, getByCaipNetworkId } from '@porthole/chains/Networks'
import { queryOptions } from '@tanstack/react-query'
import { ResolveNameError } from '../errors.js'
import { rpcUrl } from './evm/rpc.js'
import { type AdapterNamespace, loadChain } from './index.js'

/** The adapter of a network (CAIP-2): its namespace's. */
export const namespaceOfNetwork = (caipNetworkId: string): AdapterNamespace =>
  caipNetworkId.startsWith('solana:') ? 'solana' : 'eip155'

const chainOf = (caipNetworkId: string) => loadChain(namespaceOfNetwork(caipNetworkId))

export const nativeBalanceQuery = (address: string, caipNetworkId: string) =>
  queryOptions({
    queryKey: ['balance', 'native', caipNetworkId, address],
    queryFn: async () => (await chainOf(caipNetworkId)).getBalance(address, caipNetworkId),
    staleTime: 10_000,
    retry: 1,
  })

export const tokenBalancesQuery = (address: string, caipNetworkId: string) =>
  queryOptions({
    queryKey: ['balance', 'tokens', caipNetworkId, address],
    queryFn: async () => (await chainOf(caipNetworkId)).getTokenBalances(address, caipNetworkId),
    staleTime: 10_000,
    retry: false,
  })

/** The network if it has a name service: an EVM network with ENS's UniversalResolver. */
function nameServiceOf(caipNetworkId: string): EvmNetwork | null {
  const network = getByCaipNetworkId(caipNetworkId)
  return network?.chainNamespace === 'eip155' && network.contracts?.ensUniversalResolver
    ? network
    : null
}

/**
 * The profile (name and image) of a send receiver on the network: enabled for
 * a valid EVM address on a network with a name service, whose code
 * (`evm/ens.ts`) loads then. A failure (`ResolveNameError`) is not retried:
 * the send goes on without a name.
 */
export function receiverProfileQuery(receiver: string, caipNetworkId: string) {
  const network = nameServiceOf(caipNetworkId)
  return queryOptions({
    queryKey: ['receiverProfile', caipNetworkId, receiver.toLowerCase()],
    queryFn: async () => {
      if (!network) return { name: null, imageUrl: null }
      try {
        const { resolveReceiverProfile } = await import('./evm/ens.js')
        return await resolveReceiverProfile(receiver, network, rpcUrl(network.id))
      } catch (cause) {
        throw new ResolveNameError(cause)
      }
    },
    enabled: network !== null && validateAddress(receiver, 'eip155'),
    staleTime: 5 * 60_000,
    retry: false,
  })
}
