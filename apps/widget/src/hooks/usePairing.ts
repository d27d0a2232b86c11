import { useCallback, useEffect, useRef, useState } from 'react'
import { loadChain, pairWalletConnect } from '../lib/chains/index.js'
import { trackConnectError } from '../lib/data/analytics.js'
import { createPairing, type Pairing, untilExpired } from '../lib/pairing.js'
import { router } from '../lib/state/router.js'
import type { ConnectingStatus } from '../lib/state/store.js'
import { isUserRejection, messageOf } from '../lib/walletErrors.js'

/**
 * A WalletConnect pairing for as long as the view shows: a URI, replaced by a
 * fresh one when it counts as expired; the modal closes once a wallet
 * connects. Leaving the view abandons the pairing.
 */
export function usePairing() {
  const [pairing, setPairing] = useState<Pairing | null>(null)
  const [status, setStatus] = useState<ConnectingStatus>('waiting')
  const [error, setError] = useState('')
  const [renewed, setRenewed] = useState(false)
  const attempt = useRef(0)

  const start = useCallback(() => {
    const id = ++attempt.current
    let timer: ReturnType<typeof setTimeout> | undefined
    setStatus('waiting')
    setPairing(null)
    const renew = () => {
      if (id !== attempt.current) return
      setRenewed(true)
      start()
    }
    pairWalletConnect((uri) => {
      if (id !== attempt.current) return
      const next = createPairing(uri)
      setPairing(next)
      clearTimeout(timer)
      timer = setTimeout(renew, untilExpired(next))
    }).then(
      () => {
        clearTimeout(timer)
        if (id === attempt.current)
          router.closeFrom('ConnectingWalletConnect', 'ConnectingWalletConnectBasic')
      },
      (reason: unknown) => {
        clearTimeout(timer)
        if (id !== attempt.current) return
        setStatus(isUserRejection(reason) ? 'rejected' : 'error')
        setError(messageOf(reason))
        void trackConnectError(reason)
      },
    )
    return () => clearTimeout(timer)
  }, [])

  useEffect(() => {
    const stop = start()
    return () => {
      attempt.current++
      stop()
      void loadChain('eip155').then((chain) => chain.cancelConnecting())
    }
  }, [start])

  return { pairing, status, error, renewed, retry: start }
}
