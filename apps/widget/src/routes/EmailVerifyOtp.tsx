import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import { input, outlineButton, primaryButton } from '../components/Buttons.js'
import { ErrorText } from '../components/ErrorText.js'
import { useStore } from '../hooks/useStore.js'
import { connectEmbedded } from '../lib/chains/index.js'
import { t } from '../lib/i18n.js'
import { emailLoginWait, loginWithEmail, verifyOtp } from '../lib/secure/login.js'
import { router } from '../lib/state/router.js'
import { messageOf } from '../lib/walletErrors.js'
import { displayEmail } from './emailDisplay.js'

/**
 * The mailed code: six digits, sent to the frame as soon as they are typed
 * (or on Continue). A wrong code shows the API's message (tries left); Resend
 * respects the 30 s between mails. Every email login lands here, an account
 * on a new device too (SECURITY.md 26: the API's answer does not say which):
 * its mail asks to approve the device first and the code follows, as the
 * view says; a code entered before that is refused with the API's words.
 */
export function EmailVerifyOtp() {
  const email = useStore((state) => state.loginEmail) ?? ''
  const [code, setCode] = useState('')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const [wait, setWait] = useState(() => emailLoginWait())
  const [resent, setResent] = useState(false)
  const errorId = useId()
  const submitted = useRef('')

  useEffect(() => {
    if (wait <= 0) return
    const timer = setTimeout(() => setWait(emailLoginWait()), 1000)
    return () => clearTimeout(timer)
  }, [wait])

  const check = (value: string) => {
    if (busy || submitted.current === value) return
    submitted.current = value
    setBusy(true)
    setError('')
    verifyOtp(value)
      .then(() => connectEmbedded())
      .then(() => router.closeFrom('EmailVerifyOtp'))
      .catch((reason: unknown) => {
        submitted.current = ''
        setError(messageOf(reason))
      })
      .finally(() => setBusy(false))
  }

  const submit = (event: FormEvent) => {
    event.preventDefault()
    check(code)
  }

  const resend = () => {
    setError('')
    loginWithEmail(email).then(
      () => {
        setResent(true)
        setWait(emailLoginWait())
      },
      (reason: unknown) => setError(messageOf(reason)),
    )
  }

  return (
    <form className="flex flex-col gap-3 px-4 pb-4" onSubmit={submit} noValidate>
      <p className="text-center text-sm text-muted">
        {t('email.codeSent', { email: displayEmail(email) })}
      </p>
      <p className="text-center text-xs text-muted">{t('email.newDeviceHint')}</p>
      <label className="sr-only" htmlFor={`${errorId}-code`}>
        {t('email.codeLabel')}
      </label>
      <input
        id={`${errorId}-code`}
        name="otp"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={6}
        pattern="[0-9]*"
        placeholder="000000"
        className={`${input} text-center font-mono text-lg tracking-[0.5em]`}
        value={code}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        onChange={(event) => {
          const digits = event.target.value.replace(/\D/g, '').slice(0, 6)
          setCode(digits)
          if (digits.length === 6) check(digits)
        }}
      />
      {error ? <ErrorText id={errorId}>{error}</ErrorText> : null}
      {busy ? (
        <p role="status" className="text-center text-sm text-muted">
          {t('email.checking')}
        </p>
      ) : null}
      <button type="submit" className={primaryButton} disabled={busy || code.length !== 6}>
        {t('email.continue')}
      </button>
      <button type="button" className={outlineButton} disabled={wait > 0} onClick={resend}>
        {wait > 0 ? t('email.resendIn', { seconds: wait }) : t('email.resend')}
      </button>
      {resent ? (
        <p role="status" className="text-center text-xs text-muted">
          {t('email.resent')}
        </p>
      ) : null}
    </form>
  )
}
