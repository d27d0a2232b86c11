/**
 * The account's balances as TanStack Query options, for any namespace: each
 * asks the network's chain adapter (loaded on demand). A failed token fetch
 * is not retried here (`hooks/useTokenBalances.ts` waits 30 s).
 */
import { queryOptions } from '@tanstack/react-query'
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
