/** Loading placeholders in the shape of what will come. */
import { t } from '../lib/i18n.js'

export function Skeleton({ className }: { className: string }) {
  return <span aria-hidden="true" className={`ph-skeleton block ${className}`} />
}

/** Rows like Connect's wallet list. */
export function WalletRowsSkeleton({ rows }: { rows: number }) {
  return (
    <div
      role="status"
      aria-busy="true"
      aria-label={t('modal.loading')}
      className="flex flex-col gap-2"
    >
      {Array.from({ length: rows }, (_, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: identical placeholders in a fixed order.
        <div key={index} className="flex items-center gap-3 rounded-2xl bg-surface-2 p-2.5">
          <Skeleton className="size-10 rounded-xl" />
          <Skeleton className="h-3.5 w-28 rounded-full" />
        </div>
      ))}
    </div>
  )
}

/** Tiles like the All wallets grid. */
export function WalletGridSkeleton({ tiles }: { tiles: number }) {
  return (
    <div
      role="status"
      aria-busy="true"
      aria-label={t('modal.loading')}
      className="grid grid-cols-4 gap-x-2 gap-y-3"
    >
      {Array.from({ length: tiles }, (_, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: identical placeholders in a fixed order.
        <div key={index} className="flex flex-col items-center gap-1.5 rounded-2xl p-1.5">
          <Skeleton className="size-14 rounded-2xl" />
          <Skeleton className="h-2.5 w-12 rounded-full" />
        </div>
      ))}
    </div>
  )
}
