import { truncate } from '@porthole/chains/Address'
import { useEffect, useState } from 'react'
import { outlineButton, primaryButton } from '../components/Buttons.js'
import { ErrorText } from '../components/ErrorText.js'
import { Notice } from '../components/Notice.js'
import { useStore } from '../hooks/useStore.js'
import { loadChain } from '../lib/chains/index.js'
import { SiwxMessage } from '../lib/host/siwx.js'
import { t } from '../lib/i18n.js'
import { embeddedConnectorId } from '../lib/secure/approval.js'
import { messageOf } from '../lib/walletErrors.js'

type Status = 'idle' | 'authenticating' | 'declined' | 'error'

/** The accounts (`chainId:address`) the embedded wallet has already been asked to sign in with. */
const autoSignedIn = new Set<string>()

/**
 * The sign-in request: the site's origin as the browser reported it, its
 * statement, and Sign / Cancel. A declined signature shows 'Signature
 * declined' and keeps the view; while sign-in is required the modal cannot be
 * closed here, and Cancel disconnects.
 */
export function SiwxSignMessage() {
  const hostOrigin = useStore((state) => state.hostOrigin) ?? ''
  const siwx = useStore((state) => state.siwx)
  const address = useStore((state) => state.connection.address)
  const [status, setStatus] = useState<Status>('idle')
  const [error, setError] = useState('')
  const [smartAccount, setSmartAccount] = useState(false)

  const embeddedWallet = useStore((state) => state.connection.connectorId === embeddedConnectorId)

  useEffect(() => {
    let live = true
    void loadChain()
      .then((chain) => chain.isSmartAccount())
      .then((value) => {
        if (live) setSmartAccount(value)
      })
    return () => {
      live = false
    }
  }, [])

  const sign = () => {
    setStatus('authenticating')
    loadChain()
      .then((chain) => chain.signIn())
      .then(
        (outcome) => setStatus(outcome === 'signed' ? 'idle' : 'declined'),
        (reason: unknown) => {
          setStatus('error')
          setError(messageOf(reason))
        },
      )
  }

  // The embedded wallet signs in during connect with one approval, in the
  // secure frame (which shows this message): no Sign click here first.
  // Once per account and network: the view remounts when the approval shows
  // over it, and a declined request leaves Sign to the user.
  const chainId = useStore((state) => state.connection.chainId)
  useEffect(() => {
    const key = `${chainId}:${address}`
    if (!embeddedWallet || !address || autoSignedIn.has(key)) return
    autoSignedIn.add(key)
    sign()
  })

  const host = hostOrigin ? new URL(hostOrigin).host : ''
  return (
    <section className="flex flex-col gap-3 px-4 pb-4">
      <p className="text-center text-base font-semibold">{t('siwx.title', { host })}</p>
      <p className="text-center text-sm text-muted">
        {t('siwx.body', { address: address ? truncate(address) : '' })}
      </p>
      <p
        className="rounded-2xl bg-surface-2 px-3 py-2 text-center font-mono text-xs"
        data-testid="siwx-origin"
      >
        {t('siwx.origin', { origin: hostOrigin })}
      </p>
      {siwx?.statement ? (
        <blockquote
          aria-label={t('siwx.statement')}
          className="rounded-2xl border border-line px-3 py-2 text-sm italic"
        >
          {siwx.statement}
        </blockquote>
      ) : null}
      {smartAccount ? (
        <Notice tone="warning" title={SiwxMessage.smartAccount}>
          <p />
        </Notice>
      ) : null}
      {status === 'authenticating' ? (
        <p role="status" className="text-center text-sm text-muted">
          {SiwxMessage.authenticating}
        </p>
      ) : null}
      {status === 'declined' ? <ErrorText>{SiwxMessage.declined}</ErrorText> : null}
      {status === 'error' ? <ErrorText>{error}</ErrorText> : null}
      <button
        type="button"
        className={primaryButton}
        disabled={status === 'authenticating'}
        onClick={sign}
      >
        {t('siwx.sign')}
      </button>
      <button
        type="button"
        className={outlineButton}
        disabled={status === 'authenticating'}
        onClick={() => void loadChain().then((chain) => chain.cancelSignIn())}
      >
        {siwx?.required ? t('siwx.cancelRequired') : t('siwx.cancel')}
      </button>
    </section>
  )
}
