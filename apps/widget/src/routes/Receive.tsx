import { getByCaipNetworkId } from '@porthole/chains/Networks'
import { useQuery } from '@tanstack/react-query'
import { useId } from 'react'
import { outlineButton } from '../components/Buttons.js'
import { CopyIcon } from '../components/Icons.js'
import { QrCode } from '../components/QrCode.js'
import { WalletRowsSkeleton } from '../components/Skeleton.js'
import { WalletError } from '../components/WalletError.js'
import { useStore } from '../hooks/useStore.js'
import { projectConfigQuery } from '../lib/host/projectConfig.js'
import { t } from '../lib/i18n.js'
import { copyAddress } from '../lib/state/toast.js'

/**
 * Receive: the connected address as a QR code (the plain address, which any
 * wallet's scanner reads) and as text, a copy button, and the project's
 * networks of the address's namespace, the only ones a transfer to it should
 * use.
 */
export function Receive() {
  const connection = useStore((state) => state.connection)
  const config = useQuery(projectConfigQuery)
  const networksId = useId()
  const { address, namespace } = connection
  if (address === null || namespace === null) return null
  const networks = (config.data?.networks ?? []).flatMap((id) => {
    const network = id.startsWith(`${namespace}:`) ? getByCaipNetworkId(id) : undefined
    return network ? [network] : []
  })
  const copy = () => copyAddress(address)
  return (
    <section className="flex flex-col gap-4 px-4 pb-4">
      <div className="mx-auto size-52">
        <QrCode value={address} label={t('receive.qr', { address })} />
      </div>
      <div className="flex flex-col gap-1">
        <h3 className="text-xs font-semibold text-muted">{t('receive.address')}</h3>
        <p className="break-all font-mono text-sm" data-testid="receive-address">
          {address}
        </p>
      </div>
      <button type="button" className={outlineButton} onClick={copy}>
        <span className="inline-flex items-center justify-center gap-2">
          <CopyIcon />
          {t('account.copy')}
        </span>
      </button>
      <div className="flex flex-col gap-2">
        <h3 className="text-xs font-semibold text-muted" id={networksId}>
          {t('receive.networks')}
        </h3>
        {config.isPending ? (
          <WalletRowsSkeleton rows={2} />
        ) : config.isError ? (
          <WalletError onRetry={() => void config.refetch()} />
        ) : (
          <ul aria-labelledby={networksId} className="flex flex-wrap gap-2">
            {networks.map((network) => (
              <li
                key={network.caipNetworkId}
                className="rounded-full bg-surface-2 px-3 py-1 text-xs font-medium"
              >
                {network.name}
              </li>
            ))}
          </ul>
        )}
        <p className="text-xs text-muted">{t('receive.other')}</p>
      </div>
    </section>
  )
}
