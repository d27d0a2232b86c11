import { useCallback, useEffect, useRef, useState } from 'react'
import { secondaryButton } from '../components/Buttons.js'
import { ConnectingCard, connectingCopy } from '../components/ConnectingCard.js'
import { useStore } from '../hooks/useStore.js'
import { loadChain, namespaceOfConnector } from '../lib/chains/index.js'
import { trackConnectError } from '../lib/data/analytics.js'
import { t } from '../lib/i18n.js'
import { router } from '../lib/state/router.js'
import type { ConnectingStatus } from '../lib/state/store.js'
import { isUserRejection, messageOf } from '../lib/walletErrors.js'

/** Connecting a wallet of the host page: waiting on it, declined (retry), or failed (retry). */
export function ConnectingExternal() {
  const wallet = useStore((state) => state.connecting)
  const [status, setStatus] = useState<ConnectingStatus>('waiting')
  const [error, setError] = useState('')
  const attempt = useRef(0)

  const start = useCallback(() => {
    const connectorId = wallet?.connectorId
    if (!connectorId) return
    const id = ++attempt.current
    setStatus('waiting')
    loadChain(namespaceOfConnector(connectorId))
      .then((chain) => chain.connect(connectorId))
      .then(
        () => {
          // Unless sign-in took over (SIWXSignMessage), connecting ends the modal.
          if (id === attempt.current) router.closeFrom('ConnectingExternal')
        },
        (reason: unknown) => {
          if (id !== attempt.current) return
          setStatus(isUserRejection(reason) ? 'rejected' : 'error')
          setError(messageOf(reason))
          void trackConnectError(reason)
        },
      )
  }, [wallet?.connectorId])

  useEffect(() => {
    start()
    // Leaving the view abandons the attempt: its outcome no longer moves the modal.
    return () => {
      attempt.current++
    }
  }, [start])

  if (!wallet) return null
  const retry = (
    <button type="button" className={secondaryButton} onClick={start}>
      {t('connecting.retry')}
    </button>
  )
  return (
    <ConnectingCard
      wallet={wallet}
      status={status}
      {...connectingCopy(status, wallet.name, error)}
      actions={status === 'waiting' ? null : retry}
    />
  )
}
