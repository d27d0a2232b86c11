import type { ReactNode } from 'react'
import { t } from '../lib/i18n.js'
import { secondaryButton } from './Buttons.js'
import { ErrorText } from './ErrorText.js'

/** A flow's error with Try again, or while it has none its status line. */
export function RetryOrStatus({
  error,
  onRetry,
  children,
}: {
  error: string
  onRetry: () => void
  children: ReactNode
}) {
  if (!error)
    return (
      <p role="status" className="text-center text-sm text-muted">
        {children}
      </p>
    )
  return (
    <>
      <ErrorText>{error}</ErrorText>
      <button type="button" className={secondaryButton} onClick={onRetry}>
        {t('connecting.retry')}
      </button>
    </>
  )
}
