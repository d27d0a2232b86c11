import type { WalletEntry } from '@porthole/protocol/Api'
import { useRef } from 'react'
import { useImageStatus } from '../hooks/useImageStatus.js'
import { walletImageUrl } from '../lib/data/explorer.js'
import { Skeleton } from './Skeleton.js'

export type WalletLogoProps = {
  wallet: Pick<WalletEntry, 'name' | 'image_id'>
  /** Tailwind size and radius classes, e.g. `size-10 rounded-xl`. */
  className: string
}

/**
 * A wallet's logo, lazy-loaded: a skeleton while it loads, its initial on
 * failure or 2 s after it came into view (the image still replaces the initial
 * if it arrives later). Connect's logos are preloaded at start-up, so they show
 * at once.
 */
export function WalletLogo({ wallet, className }: WalletLogoProps) {
  const url = wallet.image_id === null ? null : walletImageUrl(wallet.image_id)
  const ref = useRef<HTMLSpanElement>(null)
  const [status, settle] = useImageStatus(url, ref)
  const initial = Array.from(wallet.name.trim())[0]?.toUpperCase() ?? '?'
  return (
    <span
      ref={ref}
      aria-hidden="true"
      className={`relative inline-flex shrink-0 items-center justify-center overflow-hidden border border-line bg-surface-2 ${className}`}
    >
      {status === 'loading' ? <Skeleton className="absolute inset-0" /> : null}
      {status === 'timeout' || status === 'failed' ? (
        <span className="font-semibold text-muted">{initial}</span>
      ) : null}
      {url !== null && status !== 'failed' ? (
        <img
          src={url}
          alt=""
          loading="lazy"
          decoding="async"
          draggable={false}
          onLoad={() => settle('loaded')}
          onError={() => settle('failed')}
          className={`absolute inset-0 size-full object-cover transition-opacity duration-150 ${status === 'loaded' ? 'opacity-100' : 'opacity-0'}`}
        />
      ) : null}
    </span>
  )
}
