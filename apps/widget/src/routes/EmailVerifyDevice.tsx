import { secondaryButton } from '../components/Buttons.js'
import { RetryOrStatus } from '../components/RetryOrStatus.js'
import { useAttempt } from '../hooks/useAttempt.js'
import { useStore } from '../hooks/useStore.js'
import { t } from '../lib/i18n.js'
import { waitForDeviceApproval } from '../lib/secure/login.js'
import { router } from '../lib/state/router.js'
import { store } from '../lib/state/store.js'
import { displayEmail } from './emailDisplay.js'

/**
 * A login from a device the account has not used: the API mailed an approval
 * link, and no key material is released until it is followed (SECURITY.md
 * 16). Once it is, the API mails the code and the view moves on to it.
 */
export function EmailVerifyDevice() {
  const email = useStore((state) => state.loginEmail) ?? ''
  const { error, retry } = useAttempt(async (signal) => {
    await waitForDeviceApproval(signal)
    if (signal.aborted) return
    // The code view replaces this one: Back returns to Connect.
    store.setState((state) => ({ history: [...state.history.slice(0, -1), 'EmailVerifyOtp'] }))
  })

  return (
    <section className="flex flex-col gap-3 px-4 pb-4">
      <p className="text-center text-base font-semibold">{t('device.title')}</p>
      <p className="text-center text-sm text-muted">
        {t('device.body', { email: displayEmail(email) })}
      </p>
      <RetryOrStatus error={error} onRetry={retry}>
        {t('device.waiting')}
      </RetryOrStatus>
      <button type="button" className={secondaryButton} onClick={() => router.back()}>
        {t('device.otherEmail')}
      </button>
    </section>
  )
}
