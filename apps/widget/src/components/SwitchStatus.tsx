import type { SwitchStatus as Status } from '../hooks/useSwitchNetwork.js'
import { t } from '../lib/i18n.js'

/** What a network switch is doing, announced to screen readers. */
export function SwitchStatus({ status, error }: { status: Status; error: string }) {
  if (status === 'idle') return null
  return (
    <p
      role={status === 'switching' ? 'status' : 'alert'}
      className={`rounded-2xl px-3 py-2 text-sm ${status === 'switching' ? 'bg-surface-2 text-muted' : 'bg-danger-soft text-danger'}`}
    >
      {status === 'switching'
        ? t('network.switching')
        : status === 'rejected'
          ? t('network.rejected')
          : `${t('network.error')}: ${error}`}
    </p>
  )
}
