import { truncate } from '@porthole/chains/Address'
import { t } from '../lib/i18n.js'

/**
 * The send preview's receiver on one line: its name and avatar, when it has
 * them, before the address, which always shows. The avatar's box is as tall
 * as the line and holds its place while it loads, so nothing moves.
 */
export function SendReceiver(props: {
  address: string
  name: string | null
  imageUrl: string | null
}) {
  const { address, name, imageUrl } = props
  if (name === null) return <>{truncate(address)}</>
  return (
    <span className="inline-flex max-w-full items-center gap-1.5 align-bottom">
      {imageUrl === null ? null : (
        <img
          src={imageUrl}
          alt={t('send.receiverAvatar', { name })}
          width={20}
          height={20}
          loading="lazy"
          decoding="async"
          draggable={false}
          className="size-5 shrink-0 rounded-full bg-surface-3 object-cover"
        />
      )}
      <span className="min-w-0 truncate">{name}</span>
      <span className="shrink-0 font-normal text-muted">{truncate(address)}</span>
    </span>
  )
}
