import type { HistoryTransaction } from '@porthole/protocol/History'
import { describe, expect, test } from 'vitest'
import { fetchTransactions, groupByMonth, visibleTransactions } from './history.js'

const tx = (
  id: string,
  minedAt: string,
  options: { chain?: string; spam?: boolean[] } = {},
): HistoryTransaction => ({
  id: `0x${id.padStart(64, '0')}`,
  metadata: {
    minedAt,
    chain: options.chain ?? 'eip155:31337',
    status: 'confirmed',
    sentFrom: `0x${'1'.repeat(40)}`,
    blockNumber: '1',
  },
  transfers: (options.spam ?? [false]).map((spam) => ({
    direction: 'in',
    kind: 'erc721',
    amount: '1',
    token: null,
    tokenId: '1',
    counterparty: `0x${'2'.repeat(40)}`,
    nft_info: { flags: { is_spam: spam } },
  })),
})

describe('the transaction list', () => {
  test('drops a transaction whose transfers are all spam, keeps one with any that is not', () => {
    const all = [
      tx('1', '2026-11-02T00:00:00Z', { spam: [true] }),
      tx('2', '2026-11-02T00:00:00Z', { spam: [true, false] }),
      tx('3', '2026-11-02T00:00:00Z', { spam: [false] }),
    ]
    expect(visibleTransactions(all, 'eip155:31337').map((t) => t.id.slice(-1))).toEqual(['2', '3'])
  })

  test('keeps only the active chain', () => {
    const all = [
      tx('1', '2026-11-02T00:00:00Z', { chain: 'eip155:1' }),
      tx('2', '2026-11-02T00:00:00Z'),
    ]
    expect(visibleTransactions(all, 'eip155:31337').map((t) => t.id.slice(-1))).toEqual(['2'])
  })

  test('groups by month, titled month and year, newest month first, order kept inside', () => {
    const items = [
      { id: 'a', at: new Date(2026, 10, 20) },
      { id: 'b', at: new Date(2026, 10, 3) },
      { id: 'c', at: new Date(2025, 11, 31) },
      { id: 'd', at: new Date(2026, 0, 5) },
    ]
    const groups = groupByMonth(items, (item) => item.at, 'en-US')
    expect(groups.map((group) => [group.title, group.items.map((item) => item.id)])).toEqual([
      ['November 2026', ['a', 'b']],
      ['January 2026', ['d']],
      ['December 2025', ['c']],
    ])
  })

  test("refuses to fetch without an account, with the seed's message", async () => {
    await expect(fetchTransactions({ accountAddress: '', chainId: 'eip155:1' })).rejects.toThrow(
      "Transactions can't be fetched without an accountAddress",
    )
  })
})
