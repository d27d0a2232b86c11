import { useQuery } from '@tanstack/react-query'
import { useEffect } from 'react'
import { tokenBalancesQuery } from '../lib/chains/queries.js'
import { t } from '../lib/i18n.js'
import { mayRetryTokens } from '../lib/state/sendForm.js'
import { store } from '../lib/state/store.js'
import { showToast } from '../lib/state/toast.js'
import { useStore } from './useStore.js'

/**
 * The account's token balances (ERC-20, SPL). A failure shows 'Token Balance Unavailable'
 * once and records the time (the send state's `lastRetry`); the fetch runs
 * again only 30 s after it.
 */
export function useTokenBalances(address: string, caipNetworkId: string) {
  const lastRetry = useStore((state) => state.send.lastRetry)
  const query = useQuery({
    ...tokenBalancesQuery(address, caipNetworkId),
    enabled: mayRetryTokens(lastRetry),
    retryOnMount: false,
  })
  const failedAt = query.isError ? query.errorUpdatedAt : 0
  useEffect(() => {
    if (!failedAt) return
    showToast(t('toast.tokenBalanceUnavailable'), 'error')
    store.setState((state) => ({ send: { ...state.send, lastRetry: failedAt } }))
  }, [failedAt])
  return query
}
