/**
 * The account's pending transactions: each send is recorded the moment the
 * wallet returns its hash and kept in storage (so a reload keeps it), at most
 * the seed's 99 per account and network, until a receipt is seen. Activity
 * and Account show them above the mined ones.
 *
 * Checking for receipts follows the project's setting (the seed's polling:
 * off by default, 30 s when on): with an interval, every entry is checked
 * once that long after it was sent and then every interval; off, entries are
 * checked when Account or Activity opens.
 */
import { pendingTransactionsLimit } from '@porthole/protocol/Constants'
import { z } from '@porthole/protocol/zod'
import { projectId } from '../env.js'
import { api } from './api.js'
import { type SafeStorage, storage } from './storage.js'

export const PendingTransaction = z.strictObject({
  hash: z.string().check(z.regex(/^0x[0-9a-fA-F]{64}$/)),
  /** CAIP-2. */
  caipNetworkId: z.string().check(z.maxLength(64)),
  from: z.string().check(z.maxLength(64)),
  to: z.string().check(z.maxLength(64)),
  /** In the token's smallest unit, as decimal digits. */
  amount: z.string().check(z.regex(/^\d{1,78}$/)),
  symbol: z.string().check(z.maxLength(16)),
  decimals: z.number().check(z.int(), z.minimum(0), z.maximum(77)),
  /** `Date.now()` when the wallet returned the hash. */
  sentAt: z.number(),
})
export type PendingTransaction = z.infer<typeof PendingTransaction>

const keyOf = (from: string, caipNetworkId: string) =>
  `porthole.pending.${caipNetworkId}.${from.toLowerCase()}`

/** The account's pending transactions on a network, newest first (what storage holds that parses). */
export function readPending(
  from: string,
  caipNetworkId: string,
  store: SafeStorage = storage,
): PendingTransaction[] {
  try {
    const parsed = z
      .array(PendingTransaction)
      .safeParse(JSON.parse(store.getItem(keyOf(from, caipNetworkId)) ?? '[]'))
    return parsed.success ? parsed.data : []
  } catch {
    return []
  }
}

const write = (
  from: string,
  caipNetworkId: string,
  entries: readonly PendingTransaction[],
  store: SafeStorage,
) => {
  const key = keyOf(from, caipNetworkId)
  if (entries.length === 0) store.removeItem(key)
  else store.setItem(key, JSON.stringify(entries))
  for (const listener of listeners) listener()
}

/** Records a sent transaction; past the seed's limit the oldest is dropped. */
export function addPending(entry: PendingTransaction, store: SafeStorage = storage): void {
  const rest = readPending(entry.from, entry.caipNetworkId, store).filter(
    (pending) => pending.hash.toLowerCase() !== entry.hash.toLowerCase(),
  )
  write(entry.from, entry.caipNetworkId, [entry, ...rest].slice(0, pendingTransactionsLimit), store)
}

/** Forgets `hashes` (their receipts were seen). */
export function removePending(
  from: string,
  caipNetworkId: string,
  hashes: readonly string[],
  store: SafeStorage = storage,
): void {
  const gone = new Set(hashes.map((hash) => hash.toLowerCase()))
  const before = readPending(from, caipNetworkId, store)
  const after = before.filter((pending) => !gone.has(pending.hash.toLowerCase()))
  if (after.length !== before.length) write(from, caipNetworkId, after, store)
}

const listeners = new Set<() => void>()
/** Calls `listener` whenever an entry is added or removed (in this window). */
export function onPendingChange(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/**
 * The hashes among `entries` that have a receipt, asked in one JSON-RPC batch
 * of `eth_getTransactionReceipt` through the API's proxy.
 */
export async function minedHashes(
  caipNetworkId: string,
  entries: readonly PendingTransaction[],
  signal?: AbortSignal,
): Promise<string[]> {
  if (entries.length === 0) return []
  // The proxy takes batches of at most 20.
  const batches: PendingTransaction[][] = []
  for (let index = 0; index < entries.length; index += 20)
    batches.push(entries.slice(index, index + 20))
  const mined: string[] = []
  for (const batch of batches) {
    const answer = await api.post('/v1/', {
      params: { chainId: caipNetworkId, projectId: projectId ?? '' },
      body: batch.map((entry, id) => ({
        jsonrpc: '2.0',
        id,
        method: 'eth_getTransactionReceipt',
        params: [entry.hash],
      })),
      signal,
    })
    if (!Array.isArray(answer)) continue
    for (const item of answer as { id?: unknown; result?: unknown }[]) {
      const entry = typeof item?.id === 'number' ? batch[item.id] : undefined
      if (entry && item.result !== null && typeof item.result === 'object') mined.push(entry.hash)
    }
  }
  return mined
}

/** How long Activity keeps reading the history for a mined send the indexer has not stored yet. */
export const indexWaitMs = 30_000
const recentlyMined = new Map<string, number>()

/** Notes that `hashes` were mined at `now`: Activity reads on until the history has them. */
export function markMined(hashes: readonly string[], now = Date.now()): void {
  for (const hash of hashes) recentlyMined.set(hash.toLowerCase(), now)
}

/** The sends mined within `indexWaitMs` that `known` (the history's hashes) does not hold yet. */
export function awaitingIndex(known: ReadonlySet<string>, now = Date.now()): string[] {
  const waiting: string[] = []
  for (const [hash, at] of recentlyMined) {
    if (known.has(hash) || now - at > indexWaitMs) recentlyMined.delete(hash)
    else waiting.push(hash)
  }
  return waiting
}
