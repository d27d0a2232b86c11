import { useStore } from '../hooks/useStore.js'
import { t } from '../lib/i18n.js'
import { dismissAlert } from '../lib/store.js'
import { Notice, secondaryButton } from './Notice.js'

/** Alerts about the host's verification are shown by `HostGate` instead. */
const hostCodes = new Set(['UNVERIFIED_DOMAIN', 'UNKNOWN_PROJECT', 'RATE_LIMITED', 'SERVER_ERROR'])

/** Banners for the widget's other alerts (the secure frame failing to load). */
export function Alerts() {
  const alerts = useStore((state) => state.alerts)
  const shown = alerts.filter((alert) => !hostCodes.has(alert.code))
  if (shown.length === 0) return null
  return (
    <div className="flex flex-col gap-2 px-4 pb-3">
      {shown.map((alert) =>
        alert.code === 'IFRAME_LOAD_FAILED' ? (
          <Notice
            key={alert.id}
            role="alert"
            tone="warning"
            title={t('alert.IFRAME_LOAD_FAILED.title')}
            actions={
              <button
                type="button"
                className={secondaryButton}
                onClick={() => dismissAlert(alert.id)}
              >
                {t('alert.dismiss')}
              </button>
            }
          >
            <p>{t('alert.IFRAME_LOAD_FAILED.body')}</p>
          </Notice>
        ) : null,
      )}
    </div>
  )
}
