import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import {
  markMined,
  minedHashes,
  onPendingChange,
  type PendingTransaction,
  readPending,
  removePending,
} from '../lib/data/pending.js'
import { projectConfigQuery } from '../lib/host/projectConfig.js'

/**
 * The account's pending transactions on an EVM network, kept current: checked
 * for receipts once when the view opens, then every
 * `features.pendingTransactionsPollMs` if the project turned polling on. A
 * mined one leaves the list, and the history and balances are read again.
 */
export function usePendingTransactions(
  address: string,
  caipNetworkId: string,
): PendingTransaction[] {
  const evm = caipNetworkId.startsWith('eip155:')
  const [entries, setEntries] = useState(() => (evm ? readPending(address, caipNetworkId) : []))
  const config = useQuery(projectConfigQuery)
  const pollMs = config.data?.features.pendingTransactionsPollMs ?? null
  const queryClient = useQueryClient()

  useEffect(() => {
    if (!evm) return
    setEntries(readPending(address, caipNetworkId))
    return onPendingChange(() => setEntries(readPending(address, caipNetworkId)))
  }, [evm, address, caipNetworkId])

  useEffect(() => {
    if (!evm || config.isPending) return
    const controller = new AbortController()
    const check = async () => {
      const pending = readPending(address, caipNetworkId)
      if (pending.length === 0) return
      try {
        const mined = await minedHashes(caipNetworkId, pending, controller.signal)
        if (mined.length === 0) return
        markMined(mined)
        removePending(address, caipNetworkId, mined)
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: ['transactions', caipNetworkId] }),
          queryClient.invalidateQueries({ queryKey: ['balance'] }),
        ])
      } catch {
        // The next check tries again; the entries stay pending meanwhile.
      }
    }
    void check()
    const timer = pollMs === null ? undefined : setInterval(() => void check(), pollMs)
    return () => {
      controller.abort()
      clearInterval(timer)
    }
  }, [evm, address, caipNetworkId, pollMs, config.isPending, queryClient])

  return entries
}
