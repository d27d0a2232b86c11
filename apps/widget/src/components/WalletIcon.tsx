import type { WalletEntry } from '@porthole/protocol/Api'
import { WalletLogo } from './WalletLogo.js'

/**
 * A wallet's picture: the data-URI icon a host wallet announced (EIP-6963),
 * else its explorer logo, else its initial.
 */
export function WalletIcon({
  icon,
  wallet,
  className,
}: {
  icon?: string | null | undefined
  wallet: Pick<WalletEntry, 'name' | 'image_id'>
  className: string
}) {
  if (icon?.startsWith('data:image/'))
    return (
      <span
        aria-hidden="true"
        className={`inline-flex shrink-0 overflow-hidden border border-line bg-surface-2 ${className}`}
      >
        <img src={icon} alt="" draggable={false} className="size-full object-cover" />
      </span>
    )
  return <WalletLogo wallet={wallet} className={className} />
}
