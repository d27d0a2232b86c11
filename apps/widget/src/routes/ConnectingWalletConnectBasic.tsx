import { outlineButton, secondaryButton } from '../components/Buttons.js'
import { ConnectingCard, connectingCopy } from '../components/ConnectingCard.js'
import { usePairing } from '../hooks/usePairing.js'
import { useStore } from '../hooks/useStore.js'
import { opensInNewTab, toDeepLink } from '../lib/deepLinks.js'
import { t } from '../lib/i18n.js'

const kinds = [
  ['mobile', 'walletConnect.mobile'],
  ['desktop', 'walletConnect.desktop'],
  ['webapp', 'walletConnect.webapp'],
] as const

/** The wallet's own app links (mobile, desktop, web), each carrying the pairing URI. */
export function ConnectingWalletConnectBasic() {
  const wallet = useStore((state) => state.connecting)
  const { pairing, status, error, retry } = usePairing()
  if (!wallet) return null
  const links = kinds.flatMap(([kind, label]) => {
    const base = wallet.links[kind]
    const href = base && pairing ? toDeepLink(base, pairing.uri) : null
    return href ? [{ kind, label, href }] : []
  })
  return (
    <ConnectingCard
      wallet={wallet}
      status={status}
      {...connectingCopy(
        status,
        wallet.name,
        error,
        pairing
          ? t('walletConnect.basicHint', { name: wallet.name })
          : t('walletConnect.generating'),
      )}
      actions={
        status === 'waiting' ? (
          <div className="flex w-full flex-col gap-2">
            {links.map(({ kind, label, href }) => (
              <a
                key={kind}
                className={outlineButton}
                href={href}
                target={opensInNewTab(href) ? '_blank' : undefined}
                rel="noopener noreferrer"
              >
                {t(label)}
              </a>
            ))}
            {pairing && links.length === 0 ? (
              <p className="text-sm text-muted">
                {t('walletConnect.noLinks', { name: wallet.name })}
              </p>
            ) : null}
          </div>
        ) : (
          <button type="button" className={secondaryButton} onClick={() => retry()}>
            {t('connecting.retry')}
          </button>
        )
      }
    />
  )
}
