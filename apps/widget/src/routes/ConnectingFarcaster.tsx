import { useState } from 'react'
import { outlineButton } from '../components/Buttons.js'
import { CopyIcon } from '../components/Icons.js'
import { QrCode } from '../components/QrCode.js'
import { RetryOrStatus } from '../components/RetryOrStatus.js'
import { useAttempt } from '../hooks/useAttempt.js'
import { connectEmbedded } from '../lib/chains/index.js'
import { copyText } from '../lib/clipboard.js'
import { t } from '../lib/i18n.js'
import { completeSocialLogin, continueWithEmail, farcasterUrl } from '../lib/secure/login.js'
import { router } from '../lib/state/router.js'
import { showToast } from '../lib/state/toast.js'

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
  const [copied, setCopied] = useState(false)
  const { error, retry } = useAttempt(async (signal) => {
    setUrl(null)
    const next = await farcasterUrl()
    if (signal.aborted) return
    setUrl(next)
    const result = await completeSocialLogin(next, signal)
    if (signal.aborted) return
    // An account with an email decides a device it has not used by that email (SECURITY.md 23).
    if ('action' in result) return continueWithEmail(result, 'ConnectingFarcaster')
    await connectEmbedded()
    router.closeFrom('ConnectingFarcaster')
  })

  return (
    <div className="flex flex-col items-center gap-3 px-4 pb-4">
      {url ? (
        <div className="rounded-2xl bg-white p-3">
          <QrCode value={url} label={t('farcaster.qrLabel')} />
        </div>
      ) : error ? null : (
        <div className="ph-skeleton size-[232px] rounded-2xl" aria-hidden="true" />
      )}
      <RetryOrStatus error={error} onRetry={retry}>
        {url ? t('farcaster.scan') : t('farcaster.opening')}
      </RetryOrStatus>
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
