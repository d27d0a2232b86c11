import type { ReactNode } from 'react'
import { useStore } from '../hooks/useStore.js'
import { runVerification } from '../lib/host/verification.js'
import { t } from '../lib/i18n.js'
import { Notice, secondaryButton } from './Notice.js'

/**
 * Wallet features only for a verified host (SECURITY.md 4): `children` once
 * the host origin is on the project's allowed origins, `loading` while that is
 * being checked, and otherwise why wallets are off, for the site's developer.
 */
export function HostGate({ children, loading }: { children: ReactNode; loading: ReactNode }) {
  const verification = useStore((state) => state.verification)
  const hostOrigin = useStore((state) => state.hostOrigin) ?? ''
  const projectId = useStore((state) => state.projectId) ?? ''
  const refusedOrigin = useStore((state) => state.refusedOrigin) ?? hostOrigin
  const values = { origin: refusedOrigin, host: hostOrigin, projectId }
  switch (verification) {
    case 'verified':
      return children
    case 'pending':
      return loading
    case 'unverified':
      return (
        <Notice role="alert" tone="danger" title={t('alert.UNVERIFIED_DOMAIN.title')}>
          <p>
            {refusedOrigin === hostOrigin
              ? t('alert.UNVERIFIED_DOMAIN.body', values)
              : t('alert.UNVERIFIED_DOMAIN.ancestorBody', values)}
          </p>
          <p className="text-xs">{t('alert.UNVERIFIED_DOMAIN.hint', values)}</p>
          <code className="block rounded-lg bg-surface-3 px-2 py-1.5 font-mono text-[11px] wrap-break-word text-fg select-all">
            {t('alert.UNVERIFIED_DOMAIN.command', values)}
          </code>
        </Notice>
      )
    case 'rate_limited':
    case 'server_error': {
      const code = verification === 'rate_limited' ? 'RATE_LIMITED' : 'SERVER_ERROR'
      return (
        <Notice
          role="alert"
          tone="warning"
          title={t(`alert.${code}.title`)}
          actions={
            <button
              type="button"
              className={secondaryButton}
              onClick={() => void runVerification()}
            >
              {t('alert.retry')}
            </button>
          }
        >
          <p>{t(`alert.${code}.body`)}</p>
        </Notice>
      )
    }
    case 'unknown_project':
      return (
        <Notice role="alert" tone="danger" title={t('alert.unknownProject.title')}>
          <p>{t('alert.unknownProject.body', values)}</p>
          <p className="text-xs">{t('alert.unknownProject.hint')}</p>
          <code className="block rounded-lg bg-surface-3 px-2 py-1.5 font-mono text-[11px] wrap-break-word text-fg select-all">
            {t('alert.unknownProject.command', values)}
          </code>
        </Notice>
      )
    case 'missing_project':
      return (
        <Notice role="alert" tone="danger" title={t('alert.missingProject.title')}>
          <p>{t('alert.missingProject.body')}</p>
          <p className="text-xs">{t('alert.missingProject.hint')}</p>
        </Notice>
      )
    case 'no_host':
      return (
        <Notice role="status" tone="warning" title={t('alert.noHost.title')}>
          <p>{t('alert.noHost.body')}</p>
        </Notice>
      )
  }
}
