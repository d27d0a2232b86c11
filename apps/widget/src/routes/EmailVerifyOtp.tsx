import { type FormEvent, useId, useState } from 'react'
import { outlineButton } from '../components/Buttons.js'
import { CodeField } from '../components/CodeField.js'
import { useCodeCheck, useMailWait } from '../hooks/useMailedCode.js'
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
  const [wait, refreshWait] = useMailWait(emailLoginWait)
  const [resent, setResent] = useState(false)
  const errorId = useId()
  const { error, setError, busy, check } = useCodeCheck(async (value) => {
    await verifyOtp(value)
    await connectEmbedded()
    router.closeFrom('EmailVerifyOtp')
  })

  const submit = (event: FormEvent) => {
    event.preventDefault()
    check(code)
  }

  const resend = () => {
    setError('')
    loginWithEmail(email).then(
      () => {
        setResent(true)
        refreshWait()
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
      <CodeField
        id={`${errorId}-code`}
        value={code}
        error={error}
        busy={busy}
        onChange={setCode}
        onComplete={check}
      />
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
