import { useEffect, useSyncExternalStore } from 'react'
import { secondaryButton } from '../components/Buttons.js'
import { ErrorText } from '../components/ErrorText.js'
import { connectEmbedded } from '../lib/chains/index.js'
import { t } from '../lib/i18n.js'
import { cancelSocialLogin, socialStore, startSocialLogin } from '../lib/secure/social.js'

/** A social login in its popup: waiting, or failed with Try again (which opens a new popup). */
export function ConnectingSocial() {
  const { provider, status, error } = useSyncExternalStore(
    socialStore.subscribe,
    socialStore.getState,
  )
  // Leaving the view abandons the login.
  useEffect(() => cancelSocialLogin, [])
  const name = provider ? t(`social.${provider}`) : ''
  return (
    <section className="flex flex-col gap-3 px-4 pb-4">
      <p className="text-center text-base font-semibold">{t('social.continueIn', { name })}</p>
      {status === 'error' ? (
        <>
          <ErrorText>{error}</ErrorText>
          {provider ? (
            <button
              type="button"
              className={secondaryButton}
              onClick={() => startSocialLogin(provider, connectEmbedded)}
            >
              {t('connecting.retry')}
            </button>
          ) : null}
        </>
      ) : (
        <p role="status" className="text-center text-sm text-muted">
          {t('social.waiting', { name })}
        </p>
      )}
    </section>
  )
}
