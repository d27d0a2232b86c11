/** Button classes shared by the views (Notice.tsx has the secondary one). */
export { secondaryButton } from './Notice.js'

const focus =
  'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent disabled:cursor-not-allowed disabled:opacity-50'

export const primaryButton = `inline-flex h-11 w-full items-center justify-center gap-2 rounded-2xl bg-accent px-4 text-sm font-semibold text-accent-fg hover:brightness-105 active:brightness-95 ${focus}`

export const outlineButton = `inline-flex h-11 w-full items-center justify-center gap-2 rounded-2xl border border-line bg-surface px-4 text-sm font-medium text-fg hover:bg-surface-2 active:bg-surface-3 ${focus}`

export const dangerButton = `inline-flex h-11 w-full items-center justify-center gap-2 rounded-2xl bg-danger-soft px-4 text-sm font-semibold text-danger hover:brightness-95 ${focus}`

/** A full-width row button (wallets, networks, tokens). */
export const rowButton = `flex w-full items-center gap-3 rounded-2xl bg-surface-2 p-2.5 text-left hover:bg-surface-3 aria-[current=true]:ring-2 aria-[current=true]:ring-accent ${focus}`

export const input =
  'h-11 w-full rounded-2xl border border-line bg-surface-2 px-3 text-sm text-fg placeholder:text-muted focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-accent aria-[invalid=true]:border-danger'
