import { useStore } from '../hooks/useStore.js'
import { t } from '../lib/i18n.js'
import { dismissAlert } from '../lib/state/store.js'
import { Notice, secondaryButton } from './Notice.js'

/** Alerts about the host's verification are shown by `HostGate` instead. */
const hostCodes = new Set(['UNVERIFIED_DOMAIN', 'UNKNOWN_PROJECT', 'RATE_LIMITED', 'SERVER_ERROR'])

/** The secure frame's alerts, shown as banners. */
const frameCodes = ['IFRAME_LOAD_FAILED', 'IFRAME_REQUEST_TIMEOUT'] as const
const isFrameCode = (code: string): code is (typeof frameCodes)[number] =>
  (frameCodes as readonly string[]).includes(code)

/** Banners for the widget's other alerts (the secure frame failing to load or to answer). */
export function Alerts() {
  const alerts = useStore((state) => state.alerts)
  const shown = alerts.filter((alert) => !hostCodes.has(alert.code))
  if (shown.length === 0) return null
  return (
    <div className="flex flex-col gap-2 px-4 pb-3">
      {shown.map(({ code, id }) =>
        isFrameCode(code) ? (
          <Notice
            key={id}
            role="alert"
            tone="warning"
            title={t(`alert.${code}.title`)}
            actions={
              <button type="button" className={secondaryButton} onClick={() => dismissAlert(id)}>
                {t('alert.dismiss')}
              </button>
            }
          >
            <p>{t(`alert.${code}.body`)}</p>
          </Notice>
        ) : null,
      )}
    </div>
  )
}
