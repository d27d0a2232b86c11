import { type SocialProvider, socialProviders } from '@porthole/protocol/Api'
import { useQuery } from '@tanstack/react-query'
import { type FormEvent, useId, useState } from 'react'
import { useStore } from '../hooks/useStore.js'
import { connectEmbedded } from '../lib/chains/index.js'
import { projectConfigQuery } from '../lib/host/projectConfig.js'
import { t } from '../lib/i18n.js'
import { requestSecureFrame } from '../lib/secure/frame.js'
import { checkEmail, loginWithEmail } from '../lib/secure/login.js'
import { startSocialLogin } from '../lib/secure/social.js'
import { router } from '../lib/state/router.js'
import { store } from '../lib/state/store.js'
import { messageOf } from '../lib/walletErrors.js'
import { input, outlineButton, primaryButton } from './Buttons.js'
import { ErrorText } from './ErrorText.js'

/** The providers with a popup login; Farcaster has its own flow (ConnectingFarcaster). */
const popupProviders: readonly SocialProvider[] = socialProviders.filter(
  (provider) => provider !== 'farcaster',
)

/**
 * Connect's embedded-wallet logins: the email field and the social buttons,
 * each shown only when the project's features enable it and the secure frame
 * has not failed. The frame is made when the visitor starts one of them
 * (typing in or pointing at the field, a social button), not when Connect
 * merely focuses the field on opening.
 */
export function EmbeddedLogin() {
  const { data } = useQuery(projectConfigQuery)
  const frame = useStore((state) => state.secureFrame)
  if (!data || frame === 'failed') return null
  const socials = data.features.socials.filter(
    (provider) => popupProviders.includes(provider) || provider === 'farcaster',
  )
  if (!data.features.email && socials.length === 0) return null
  return (
    <div className="flex flex-col gap-2">
      {data.features.email ? <EmailForm /> : null}
      {socials.length > 0 ? (
        <ul aria-label={t('social.list')} className="grid grid-flow-col gap-2">
          {socials.map((provider) => (
            <li key={provider}>
              <button
                type="button"
                className={outlineButton}
                onClick={() => {
                  requestSecureFrame()
                  if (provider === 'farcaster') router.navigate('ConnectingFarcaster')
                  else startSocialLogin(provider, connectEmbedded)
                }}
              >
                {t(`social.${provider}`)}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <p className="text-center text-xs text-muted">{t('connect.or')}</p>
    </div>
  )
}

function EmailForm() {
  const [email, setEmail] = useState('')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const errorId = useId()

  const submit = (event: FormEvent) => {
    event.preventDefault()
    requestSecureFrame()
    const invalid = checkEmail(email)
    if (invalid) return setError(invalid)
    setBusy(true)
    setError('')
    loginWithEmail(email)
      .then(async (action) => {
        store.setState({ loginEmail: email.trim() })
        if (action === 'VERIFY_OTP') router.navigate('EmailVerifyOtp')
        else if (action === 'VERIFY_DEVICE') router.navigate('EmailVerifyDevice')
        else {
          await connectEmbedded()
          router.closeFrom('Connect')
        }
      })
      .catch((reason: unknown) => setError(messageOf(reason)))
      .finally(() => setBusy(false))
  }

  return (
    <form className="flex flex-col gap-2" onSubmit={submit} noValidate>
      <label className="sr-only" htmlFor={`${errorId}-email`}>
        {t('email.label')}
      </label>
      <input
        id={`${errorId}-email`}
        type="email"
        name="email"
        autoComplete="email"
        inputMode="email"
        placeholder={t('email.placeholder')}
        className={input}
        value={email}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        onPointerDown={() => requestSecureFrame()}
        onKeyDown={() => requestSecureFrame()}
        onChange={(event) => {
          requestSecureFrame()
          setEmail(event.target.value)
          if (error) setError('')
        }}
      />
      {error ? <ErrorText id={errorId}>{error}</ErrorText> : null}
      <button type="submit" className={primaryButton} disabled={busy || !email.trim()}>
        {busy ? t('email.sending') : t('email.continue')}
      </button>
    </form>
  )
}
