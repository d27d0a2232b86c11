import { useState } from 'react'
import { outlineButton, secondaryButton } from '../components/Buttons.js'
import { ConnectingCard, connectingCopy } from '../components/ConnectingCard.js'
import { CopyIcon } from '../components/Icons.js'
import { QrCode } from '../components/QrCode.js'
import { Skeleton } from '../components/Skeleton.js'
import { WalletIcon } from '../components/WalletIcon.js'
import { usePairing } from '../hooks/usePairing.js'
import { useStore } from '../hooks/useStore.js'
import { copyText } from '../lib/clipboard.js'
import { t } from '../lib/i18n.js'
import { router } from '../lib/state/router.js'
import { showToast } from '../lib/state/toast.js'

/** Pairing over WalletConnect: a QR code, the link to copy, and the wallet's app links. */
export function ConnectingWalletConnect() {
  const wallet = useStore((state) => state.connecting)
  const { pairing, status, error, renewed, retry } = usePairing()
  const [copied, setCopied] = useState(false)
  if (!wallet) return null
  if (status !== 'waiting')
    return (
      <ConnectingCard
        wallet={wallet}
        status={status}
        {...connectingCopy(status, wallet.name, error)}
        actions={
          <button type="button" className={secondaryButton} onClick={() => retry()}>
            {t('connecting.retry')}
          </button>
        }
      />
    )
  const hasLinks = Object.values(wallet.links).some(Boolean)
  return (
    <div className="flex flex-col items-center gap-4 px-6 pt-2 pb-6">
      <div className="relative size-[248px] rounded-3xl border border-line bg-white p-2">
        {pairing ? (
          <>
            <QrCode value={pairing.uri} label={t('walletConnect.qrLabel')} />
            {wallet.imageId || wallet.icon ? (
              <span className="absolute inset-0 m-auto size-14 rounded-2xl bg-white p-1">
                <WalletIcon
                  icon={wallet.icon}
                  wallet={{ name: wallet.name, image_id: wallet.imageId }}
                  className="size-12 rounded-xl"
                />
              </span>
            ) : null}
          </>
        ) : (
          <Skeleton className="size-full rounded-2xl" />
        )}
      </div>
      <p role="status" className="text-center text-sm text-muted">
        {pairing
          ? renewed
            ? t('walletConnect.expired')
            : t('walletConnect.scan')
          : t('walletConnect.generating')}
      </p>
      <div className="flex w-full flex-col gap-2">
        <button
          type="button"
          className={outlineButton}
          disabled={!pairing}
          onClick={() => {
            if (!pairing) return
            void copyText(pairing.uri).then((ok) => {
              setCopied(ok)
              showToast(
                ok ? t('walletConnect.copied') : t('toast.copyFailed'),
                ok ? 'success' : 'error',
              )
            })
          }}
        >
          <CopyIcon />
          {copied ? t('walletConnect.copied') : t('walletConnect.copy')}
        </button>
        {pairing ? (
          <a className={outlineButton} href={pairing.uri}>
            {t('walletConnect.openDesktop')}
          </a>
        ) : null}
        {hasLinks ? (
          <button
            type="button"
            className={outlineButton}
            onClick={() => router.navigate('ConnectingWalletConnectBasic')}
          >
            {t('walletConnect.openIn', { name: wallet.name })}
          </button>
        ) : null}
      </div>
    </div>
  )
}
