import { useStore } from '../hooks/useStore.js'
import { t } from '../lib/i18n.js'
import { dismissToast } from '../lib/state/toast.js'
import { CloseIcon } from './Icons.js'

const tones = {
  success: 'text-fg',
  error: 'text-danger',
  info: 'text-fg',
} as const

/** The current toast, announced politely to screen readers. */
export function Toast() {
  const toast = useStore((state) => state.toast)
  return (
    <div
      aria-live="polite"
      className="pointer-events-none absolute inset-x-0 bottom-3 flex justify-center px-4"
    >
      {toast ? (
        <div
          role="status"
          className={`pointer-events-auto flex max-w-full items-center gap-2 rounded-full border border-line bg-surface px-4 py-2 text-sm font-medium shadow-card ${tones[toast.tone]}`}
        >
          <span className="truncate">{toast.message}</span>
          <button
            type="button"
            aria-label={t('toast.dismiss')}
            className="inline-flex size-6 items-center justify-center rounded-full text-muted hover:bg-surface-2"
            onClick={() => dismissToast(toast.id)}
          >
            <CloseIcon className="size-4" />
          </button>
        </div>
      ) : null}
    </div>
  )
}
