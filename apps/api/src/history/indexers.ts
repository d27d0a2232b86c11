import type { Db } from '../db/db.js'
import type { Config } from '../http/config.js'
import { createIndexer, type Indexer } from './indexer.js'

/**
 * Starts an indexer for each network of `HISTORY_INDEXER`, through its
 * `RPC_UPSTREAMS` node. Every replica starts them; the lease in the database
 * lets one index each network at a time.
 */
export function startIndexers({
  db,
  config,
  onError,
  pollMs,
}: {
  db: Db
  config: Pick<Config, 'historyIndexer' | 'rpcUpstreams'>
  onError: (error: unknown) => void
  pollMs?: number
}): { indexers: Indexer[]; stop(): Promise<void> } {
  const indexers = Object.entries(config.historyIndexer).flatMap(([chainId, start]) => {
    const rpcUrl = config.rpcUpstreams[chainId]
    // An address-scoped network (Solana) is asked per page: nothing to follow.
    if (rpcUrl === undefined || start === 'address') return []
    const indexer = createIndexer({
      db,
      chainId,
      rpcUrl,
      start: start === 'latest' ? 'latest' : BigInt(start),
      pollMs,
      onError: (error) => onError(new Error(`${chainId}: ${String(error)}`, { cause: error })),
    })
    indexer.start()
    return [indexer]
  })
  return {
    indexers,
    stop: async () => {
      await Promise.all(indexers.map((indexer) => indexer.stop()))
    },
  }
}
