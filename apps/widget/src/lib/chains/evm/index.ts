/**
 * The EIP-155 namespace's adapter (`ChainAdapter`, checked where
 * `../index.ts` registers it): the connection (`connection.ts`, wagmi and
 * viem), its balances and its sends. Views for EVM only may also use this
 * folder's extras: `balances.ts`'s queries, `send.ts`, `siwx.ts`'s copy.
 */
import { queryClient } from '../../data/queryClient.js'
import type { SendToken } from '../../state/store.js'
import { nativeBalanceQuery, tokenBalancesQuery } from './balances.js'
import { evmConnection, UnknownChainError } from './connection.js'
import { submitSend, waitForSend } from './send.js'

/** The chain id of an `eip155:<id>` network; any other is not one of the project's. */
export function chainIdOf(caipNetworkId: string): number {
  const [namespace, reference = ''] = caipNetworkId.split(':')
  const id = Number(reference)
  if (namespace !== 'eip155' || !/^\d+$/.test(reference) || !Number.isSafeInteger(id))
    throw new UnknownChainError(caipNetworkId)
  return id
}

export const evm = {
  ...evmConnection,
  namespace: 'eip155' as const,

  switchNetwork: async (caipNetworkId: string) =>
    evmConnection.switchChain(chainIdOf(caipNetworkId)),

  getBalance: async (address: string, caipNetworkId: string) =>
    queryClient.fetchQuery(nativeBalanceQuery(address, chainIdOf(caipNetworkId))),

  getTokenBalances: async (address: string, caipNetworkId: string) =>
    queryClient.fetchQuery(tokenBalancesQuery(address, chainIdOf(caipNetworkId))),

  send: async (parameters: {
    token: SendToken
    amount: bigint
    receiver: string
    caipNetworkId: string
  }) => submitSend({ ...parameters, chainId: chainIdOf(parameters.caipNetworkId) }),

  async waitForSend(id: string, caipNetworkId: string): Promise<'success' | 'reverted'> {
    const receipt = await waitForSend(id as `0x${string}`, chainIdOf(caipNetworkId))
    return receipt.status
  },
}
