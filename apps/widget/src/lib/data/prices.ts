/**
 * The network's prices in US dollars (`GET /prices`): its native coin's and
 * its listed tokens'. A failed fetch is no price (and so no fiat value), not
 * an error shown.
 */
import { Prices } from '@porthole/protocol/Prices'
import { queryOptions } from '@tanstack/react-query'
import { projectId } from '../env.js'
import { api } from './api.js'

export const pricesQuery = (caipNetworkId: string) =>
  queryOptions({
    queryKey: ['prices', caipNetworkId],
    queryFn: async ({ signal }) =>
      Prices.parse(
        await api.get('/prices', { params: { projectId, chainId: caipNetworkId }, signal }),
      ),
    staleTime: 60_000,
    retry: 1,
  })

/** The price of a token (its address, as `GET /tokens` lists it), or of the native coin (`null`). */
export function priceOf(prices: Prices | undefined, address: string | null): number | undefined {
  if (prices === undefined) return undefined
  if (address === null) return prices.native
  return Object.hasOwn(prices.tokens, address) ? prices.tokens[address] : undefined
}
