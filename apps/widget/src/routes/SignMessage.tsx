import { type FormEvent, useId, useState } from 'react'
import { input, outlineButton, primaryButton } from '../components/Buttons.js'
import { ErrorText } from '../components/ErrorText.js'
import { CopyIcon } from '../components/Icons.js'
import { loadChain } from '../lib/chains/index.js'
import { copyText } from '../lib/clipboard.js'
import { t } from '../lib/i18n.js'
import { showToast } from '../lib/state/toast.js'
import { isUserRejection, messageOf } from '../lib/walletErrors.js'

/** Signs a message (`personal_sign`) with the connected wallet and shows the signature. */
export function SignMessage() {
  const [message, setMessage] = useState('')
  const [signature, setSignature] = useState<string | null>(null)
  const [status, setStatus] = useState<'idle' | 'signing'>('idle')
  const [error, setError] = useState<string | null>(null)
  const ids = { message: useId(), signature: useId() }

  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!message.trim()) return setError(t('sign.empty'))
    setError(null)
    setSignature(null)
    setStatus('signing')
    loadChain()
      .then((chain) => chain.signMessage(message))
      .then(
        (result) => {
          setStatus('idle')
          setSignature(result)
        },
        (reason: unknown) => {
          setStatus('idle')
          setError(
            isUserRejection(reason)
              ? t('sign.rejected')
              : t('sign.failed', { message: messageOf(reason) }),
          )
        },
      )
  }

  return (
    <form noValidate onSubmit={submit} className="flex flex-col gap-3 px-4 pb-4">
      <label htmlFor={ids.message} className="text-xs font-semibold text-muted">
        {t('sign.message')}
      </label>
      <textarea
        id={ids.message}
        className={`${input} h-24 py-2`}
        value={message}
        onChange={(event) => setMessage(event.target.value)}
      />
      {status === 'signing' ? (
        <p role="status" className="text-sm text-muted">
          {t('sign.signing')}
        </p>
      ) : null}
      {error ? <ErrorText>{error}</ErrorText> : null}
      {signature ? (
        <div className="flex flex-col gap-1">
          <label htmlFor={ids.signature} className="text-xs font-semibold text-muted">
            {t('sign.signature')}
          </label>
          <textarea
            id={ids.signature}
            readOnly
            className={`${input} h-20 py-2 font-mono text-xs`}
            value={signature}
          />
          <button
            type="button"
            className={outlineButton}
            onClick={() =>
              void copyText(signature).then((ok) =>
                showToast(ok ? t('toast.copied') : t('toast.copyFailed'), ok ? 'success' : 'error'),
              )
            }
          >
            <CopyIcon />
            {t('sign.copy')}
          </button>
        </div>
      ) : null}
      <button type="submit" className={primaryButton} disabled={status === 'signing'}>
        {t('sign.sign')}
      </button>
    </form>
  )
}
