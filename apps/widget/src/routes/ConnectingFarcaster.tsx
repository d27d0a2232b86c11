import { useCallback, useEffect, useRef, useState } from 'react'
import { outlineButton, secondaryButton } from '../components/Buttons.js'
import { ErrorText } from '../components/ErrorText.js'
import { CopyIcon } from '../components/Icons.js'
import { QrCode } from '../components/QrCode.js'
import { connectEmbedded } from '../lib/chains/index.js'
import { copyText } from '../lib/clipboard.js'
import { t } from '../lib/i18n.js'
import { completeSocialLogin, continueWithEmail, farcasterUrl } from '../lib/secure/login.js'
import { router } from '../lib/state/router.js'
import { showToast } from '../lib/state/toast.js'
import { messageOf } from '../lib/walletErrors.js'

/**
 * Sign In With Farcaster: the secure frame opens a channel at the Farcaster
 * relay (through the API) and gives its URL, shown here as a QR code and a
 * link for the Farcaster app. Once the app has signed, the frame (not the
 * widget) collects the result, and the embedded wallet connects; or, on a
 * device an account with an email has not used, the login goes on with that
 * email's device approval (EmailVerifyDevice).
 */
export function ConnectingFarcaster() {
  const [url, setUrl] = useState<string | null>(null)
  const [error, setError] = useState('')
  const [copied, setCopied] = useState(false)
  const attempt = useRef<AbortController | null>(null)

  const start = useCallback(() => {
    attempt.current?.abort()
    const controller = new AbortController()
    attempt.current = controller
    setUrl(null)
    setError('')
    void (async () => {
      try {
        const next = await farcasterUrl()
        if (controller.signal.aborted) return
        setUrl(next)
        const result = await completeSocialLogin(next, controller.signal)
        if (controller.signal.aborted) return
        // An account with an email decides a device it has not used by that email (SECURITY.md 23).
        if ('action' in result) return continueWithEmail(result, 'ConnectingFarcaster')
        await connectEmbedded()
        router.closeFrom('ConnectingFarcaster')
      } catch (reason) {
        if (!controller.signal.aborted) setError(messageOf(reason))
      }
    })()
  }, [])

  useEffect(() => {
    start()
    return () => attempt.current?.abort()
  }, [start])

  return (
    <div className="flex flex-col items-center gap-3 px-4 pb-4">
      {url ? (
        <div className="rounded-2xl bg-white p-3">
          <QrCode value={url} label={t('farcaster.qrLabel')} />
        </div>
      ) : error ? null : (
        <div className="ph-skeleton size-[232px] rounded-2xl" aria-hidden="true" />
      )}
      {error ? (
        <>
          <ErrorText>{error}</ErrorText>
          <button type="button" className={secondaryButton} onClick={start}>
            {t('connecting.retry')}
          </button>
        </>
      ) : (
        <p role="status" className="text-center text-sm text-muted">
          {url ? t('farcaster.scan') : t('farcaster.opening')}
        </p>
      )}
      {url ? (
        <div className="flex w-full flex-col gap-2">
          <a className={outlineButton} href={url} target="_blank" rel="noopener noreferrer">
            {t('farcaster.open')}
          </a>
          <button
            type="button"
            className={outlineButton}
            onClick={() => {
              void copyText(url).then((ok) => {
                setCopied(ok)
                showToast(
                  ok ? t('farcaster.copied') : t('toast.copyFailed'),
                  ok ? 'success' : 'error',
                )
              })
            }}
          >
            <CopyIcon />
            {copied ? t('farcaster.copied') : t('farcaster.copy')}
          </button>
        </div>
      ) : null}
    </div>
  )
}
