/**
 * Native and ERC-20 balances of the connected account, as TanStack Query
 * options. The token list comes from the API (`GET /tokens`, per network);
 * tokens with 0 decimals are filtered out (SPEC section 5). A failed token
 * fetch shows 'Token Balance Unavailable' and is retried only 30 s later.
 */

import { TokenList } from '@porthole/protocol/Tokens'
import { queryOptions } from '@tanstack/react-query'
import { type Address, erc20Abi } from 'viem'
import { getBalance, readContract } from 'wagmi/actions'
import { api } from '../../data/api.js'
import { projectId } from '../../env.js'
import { evmConnection } from './connection.js'

export type TokenBalance = {
  address: Address
  name: string
  symbol: string
  decimals: number
  value: bigint
}

export const nativeBalanceQuery = (address: string, chainId: number) =>
  queryOptions({
    queryKey: ['balance', 'native', chainId, address],
    queryFn: async () => {
      const config = await evmConnection.ready
      const { value, decimals, symbol } = await getBalance(config, {
        address: address as Address,
        chainId,
      })
      return { value, decimals, symbol }
    },
    staleTime: 10_000,
    retry: 1,
  })

export const tokenListQuery = (chainId: number) =>
  queryOptions({
    queryKey: ['tokens', chainId],
    queryFn: async ({ signal }) =>
      TokenList.parse(
        await api.get('/tokens', { params: { projectId, chainId: `eip155:${chainId}` }, signal }),
      ).tokens.filter((token) => token.decimals > 0),
  })

export const tokenBalancesQuery = (address: string, chainId: number) =>
  queryOptions({
    queryKey: ['balance', 'tokens', chainId, address],
    queryFn: async ({ client }): Promise<TokenBalance[]> => {
      const [config, tokens] = await Promise.all([
        evmConnection.ready,
        client.fetchQuery(tokenListQuery(chainId)),
      ])
      const values = await Promise.all(
        tokens.map((token) =>
          readContract(config, {
            address: token.address as Address,
            abi: erc20Abi,
            functionName: 'balanceOf',
            args: [address as Address],
            chainId,
          }),
        ),
      )
      return tokens.map((token, index) => ({
        ...token,
        address: token.address as Address,
        value: values[index] ?? 0n,
      }))
    },
    staleTime: 10_000,
    retry: false,
  })
