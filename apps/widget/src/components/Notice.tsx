import type { ReactNode } from 'react'
import { WarningIcon } from './Icons.js'

const tones = {
  warning: 'bg-warning-soft text-warning',
  danger: 'bg-danger-soft text-danger',
} as const

/** A message in the card: an icon, a title, a body and optional actions. */
export function Notice(props: {
  tone: keyof typeof tones
  title: string
  children: ReactNode
  actions?: ReactNode
  role?: 'alert' | 'status'
}) {
  const { tone, title, children, actions, role } = props
  return (
    <div role={role} className="flex flex-col gap-3 rounded-2xl bg-surface-2 p-4 text-sm">
      <div className="flex items-start gap-3">
        <span
          className={`inline-flex size-9 shrink-0 items-center justify-center rounded-full ${tones[tone]}`}
        >
          <WarningIcon />
        </span>
        <div className="flex min-w-0 flex-col gap-1">
          <p className="font-semibold text-fg">{title}</p>
          <div className="flex flex-col gap-2 break-words text-muted">{children}</div>
        </div>
      </div>
      {actions ? <div className="flex justify-end gap-2">{actions}</div> : null}
    </div>
  )
}

export const secondaryButton =
  'inline-flex h-9 items-center justify-center rounded-full bg-surface-3 px-4 text-sm font-medium text-fg hover:brightness-95 active:brightness-90 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent disabled:opacity-50'
