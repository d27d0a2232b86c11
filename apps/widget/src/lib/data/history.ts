/**
 * The account's transaction history (`GET /account/:address/history`, the
 * API's own indexer): fetched a page at a time on the cursor, filtered as the
 * seed says (the active chain only; a transaction whose transfers are all NFT
 * spam is dropped) and grouped by month.
 */
import {
  HistoryPage,
  type HistoryTransaction,
  type HistoryTransfer,
} from '@porthole/protocol/History'
import { infiniteQueryOptions } from '@tanstack/react-query'
import { projectId } from '../env.js'
import { MissingAccountAddressError } from '../errors.js'
import { api } from './api.js'

export type FetchTransactionsParameters = {
  accountAddress: string | null | undefined
  cursor?: string | null | undefined
  /** CAIP-2. */
  chainId: string
  signal?: AbortSignal | undefined
}

/** One page of the account's transactions (the seed's fetch: account, cursor, chainId). */
export async function fetchTransactions({
  accountAddress,
  cursor,
  chainId,
  signal,
}: FetchTransactionsParameters): Promise<HistoryPage> {
  if (!accountAddress) throw new MissingAccountAddressError()
  const params: Record<string, string> = { projectId: projectId ?? '', chainId }
  if (cursor) params.cursor = cursor
  return HistoryPage.parse(
    await api.get(`/account/${encodeURIComponent(accountAddress)}/history`, {
      params,
      signal,
    }),
  )
}

export const transactionsQuery = (address: string, caipNetworkId: string) =>
  infiniteQueryOptions({
    queryKey: ['transactions', caipNetworkId, address.toLowerCase()],
    queryFn: ({ pageParam, signal }) =>
      fetchTransactions({
        accountAddress: address,
        cursor: pageParam,
        chainId: caipNetworkId,
        signal,
      }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
    staleTime: 10_000,
    retry: 1,
  })

const isSpam = (transfer: HistoryTransfer) => transfer.nft_info?.flags.is_spam === true

/** The seed's filter: only the active chain's, and none whose transfers are all spam. */
export function visibleTransactions(
  transactions: readonly HistoryTransaction[],
  caipNetworkId: string,
): HistoryTransaction[] {
  return transactions.filter(
    (transaction) =>
      transaction.metadata.chain === caipNetworkId &&
      !(transaction.transfers.length > 0 && transaction.transfers.every(isSpam)),
  )
}

export type MonthGroup<T> = { key: string; title: string; items: T[] }

/**
 * `items` grouped by the month of `dateOf`, titled "Month Year" (the seed:
 * grouped by year then month, newest first); items keep their order within
 * a month, and the months are sorted newest first.
 */
export function groupByMonth<T>(
  items: readonly T[],
  dateOf: (item: T) => Date,
  locale?: string,
): MonthGroup<T>[] {
  const format = new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric' })
  const groups = new Map<string, MonthGroup<T>>()
  for (const item of items) {
    const date = dateOf(item)
    const key = `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}`
    const group = groups.get(key) ?? { key, title: format.format(date), items: [] }
    group.items.push(item)
    groups.set(key, group)
  }
  return [...groups.values()].sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0))
}
