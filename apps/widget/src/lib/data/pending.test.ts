import { pendingTransactionsLimit } from '@porthole/protocol/Constants'
import { describe, expect, test } from 'vitest'
import {
  addPending,
  awaitingIndex,
  markMined,
  onPendingChange,
  type PendingTransaction,
  readPending,
  removePending,
} from './pending.js'
import { createSafeStorage } from './storage.js'

const from = `0x${'A'.repeat(40)}`
const entry = (index: number): PendingTransaction => ({
  hash: `0x${index.toString(16).padStart(64, '0')}`,
  caipNetworkId: 'eip155:31337',
  from,
  to: `0x${'b'.repeat(40)}`,
  amount: String(index),
  symbol: 'ETH',
  decimals: 18,
  sentAt: index,
})

/** A real `Storage`-shaped store, as a reload would find it again. */
function memoryStorage() {
  const values = new Map<string, string>()
  return createSafeStorage(() => ({
    getItem: (key: string) => values.get(key) ?? null,
    setItem: (key: string, value: string) => void values.set(key, value),
    removeItem: (key: string) => void values.delete(key),
    clear: () => values.clear(),
    key: () => null,
    get length() {
      return values.size
    },
  }))
}

describe('pending transactions', () => {
  test('are kept newest first, per account and network, and survive a new reader (a reload)', () => {
    const store = memoryStorage()
    addPending(entry(1), store)
    addPending(entry(2), store)
    expect(readPending(from.toLowerCase(), 'eip155:31337', store).map((e) => e.amount)).toEqual([
      '2',
      '1',
    ])
    expect(readPending(from, 'eip155:1', store)).toEqual([])
  })

  test(`keep at most the seed's ${pendingTransactionsLimit}, dropping the oldest`, () => {
    const store = memoryStorage()
    for (let index = 1; index <= pendingTransactionsLimit + 2; index++)
      addPending(entry(index), store)
    const kept = readPending(from, 'eip155:31337', store)
    expect(kept).toHaveLength(pendingTransactionsLimit)
    expect(kept.at(-1)?.amount).toBe('3')
  })

  test('leave once mined, telling listeners; a garbled store reads as none', () => {
    const store = memoryStorage()
    let changes = 0
    const stop = onPendingChange(() => changes++)
    addPending(entry(1), store)
    addPending(entry(2), store)
    removePending(from, 'eip155:31337', [entry(1).hash.toUpperCase().replace('0X', '0x')], store)
    expect(readPending(from, 'eip155:31337', store).map((e) => e.amount)).toEqual(['2'])
    expect(changes).toBe(3)
    stop()
    store.setItem(`porthole.pending.eip155:31337.${from.toLowerCase()}`, '{not json')
    expect(readPending(from, 'eip155:31337', store)).toEqual([])
  })

  test('a mined send is awaited in the history for a while, then given up', () => {
    markMined(['0xAB'], 1_000)
    expect(awaitingIndex(new Set(), 2_000)).toEqual(['0xab'])
    expect(awaitingIndex(new Set(['0xab']), 2_000)).toEqual([])
    markMined(['0xcd'], 1_000)
    expect(awaitingIndex(new Set(), 1_000 + 31_000)).toEqual([])
  })
})
