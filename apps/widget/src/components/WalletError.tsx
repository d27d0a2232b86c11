import { t } from '../lib/i18n.js'
import { Notice, secondaryButton } from './Notice.js'

/** Wallets could not be loaded: say so, and offer Retry. */
export function WalletError({ onRetry }: { onRetry: () => void }) {
  return (
    <Notice
      role="alert"
      tone="danger"
      title={t('allWallets.error')}
      actions={
        <button type="button" className={secondaryButton} onClick={onRetry}>
          {t('allWallets.retry')}
        </button>
      }
    >
      <p>{t('allWallets.errorHint')}</p>
    </Notice>
  )
}
