import type { ReactNode } from 'react'
import { t } from '../lib/i18n.js'
import type { ConnectingStatus, ConnectingWallet } from '../lib/state/store.js'
import { WalletIcon } from './WalletIcon.js'

/** A Connecting view's title and hint for its status; `waitingHint` is what to do meanwhile. */
export function connectingCopy(
  status: ConnectingStatus,
  name: string,
  error: string,
  waitingHint: string = t('connecting.waitingHint'),
): { title: string; hint: string } {
  switch (status) {
    case 'waiting':
      return { title: t('connecting.waiting', { name }), hint: waitingHint }
    case 'rejected':
      return { title: t('connecting.rejected'), hint: t('connecting.rejectedHint') }
    case 'error':
      return { title: t('connecting.error'), hint: error }
  }
}

/** A Connecting view's body: the wallet's picture, what is going on, and the actions. */
export function ConnectingCard(props: {
  wallet: ConnectingWallet
  status: ConnectingStatus
  title: string
  hint: string
  actions?: ReactNode
}) {
  const { wallet, status, title, hint, actions } = props
  return (
    <div className="flex flex-col items-center gap-4 px-6 pt-4 pb-6 text-center">
      <span className="relative inline-flex">
        <WalletIcon
          icon={wallet.icon}
          wallet={{ name: wallet.name, image_id: wallet.imageId }}
          className="size-20 rounded-3xl"
        />
        {status === 'waiting' ? (
          <span
            aria-hidden="true"
            className="absolute -inset-1.5 animate-spin rounded-[1.9rem] border-2 border-transparent border-t-accent"
          />
        ) : null}
      </span>
      <div className="flex flex-col gap-1" role={status === 'waiting' ? 'status' : 'alert'}>
        <p
          className={`text-base font-semibold ${status === 'waiting' ? 'text-fg' : 'text-danger'}`}
        >
          {title}
        </p>
        <p className="text-sm text-muted">{hint}</p>
      </div>
      {actions}
    </div>
  )
}
