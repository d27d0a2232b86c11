/** Loading placeholders in the shape of what will come. */
import type { ReactNode } from 'react'
import { t } from '../lib/i18n.js'

export function Skeleton({ className }: { className: string }) {
  return <span aria-hidden="true" className={`ph-skeleton block ${className}`} />
}

/** `count` identical placeholders, announced once as loading. */
function Placeholders({
  count,
  className,
  children,
}: {
  count: number
  className: string
  children: ReactNode
}) {
  return (
    <div role="status" aria-busy="true" aria-label={t('modal.loading')} className={className}>
      {Array.from({ length: count }, (_, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: identical placeholders in a fixed order.
        <div key={index} className="contents">
          {children}
        </div>
      ))}
    </div>
  )
}

/** Rows like Connect's wallet list. */
export function WalletRowsSkeleton({ rows }: { rows: number }) {
  return (
    <Placeholders count={rows} className="flex flex-col gap-2">
      <div className="flex items-center gap-3 rounded-2xl bg-surface-2 p-2.5">
        <Skeleton className="size-10 rounded-xl" />
        <Skeleton className="h-3.5 w-28 rounded-full" />
      </div>
    </Placeholders>
  )
}

/** Tiles like the All wallets grid. */
export function WalletGridSkeleton({ tiles }: { tiles: number }) {
  return (
    <Placeholders count={tiles} className="grid grid-cols-4 gap-x-2 gap-y-3">
      <div className="flex flex-col items-center gap-1.5 rounded-2xl p-1.5">
        <Skeleton className="size-14 rounded-2xl" />
        <Skeleton className="h-2.5 w-12 rounded-full" />
      </div>
    </Placeholders>
  )
}
