import { getByCaipNetworkId, type Network } from '@porthole/chains/Networks'
import { useQuery } from '@tanstack/react-query'
import { projectConfigQuery } from '../lib/host/projectConfig.js'
import { t } from '../lib/i18n.js'
import { rowButton } from './Buttons.js'
import { CheckIcon } from './Icons.js'
import { WalletRowsSkeleton } from './Skeleton.js'
import { WalletError } from './WalletError.js'

/** The project's networks, the current one marked; `onSelect` gets the one picked. */
export function NetworkList(props: {
  current: string | null
  disabled?: boolean
  onSelect(network: Network): void
}) {
  const { current, disabled, onSelect } = props
  const { data, isPending, isError, refetch } = useQuery(projectConfigQuery)
  if (isPending) return <WalletRowsSkeleton rows={3} />
  if (isError) return <WalletError onRetry={() => void refetch()} />
  const networks = data.networks.flatMap((id) => {
    const network = getByCaipNetworkId(id)
    return network ? [network] : []
  })
  return (
    <ul aria-label={t('modal.label.SwitchNetwork')} className="flex flex-col gap-2">
      {networks.map((network) => {
        const selected = network.caipNetworkId === current
        return (
          <li key={network.caipNetworkId}>
            <button
              type="button"
              className={rowButton}
              aria-current={selected}
              disabled={disabled}
              onClick={() => onSelect(network)}
            >
              <span className="inline-flex size-8 items-center justify-center rounded-full bg-accent-soft text-xs font-bold text-accent">
                {network.name.slice(0, 2)}
              </span>
              <span className="flex flex-1 flex-col">
                <span className="text-sm font-medium">{network.name}</span>
                {network.testnet ? (
                  <span className="text-xs text-muted">{t('network.testnet')}</span>
                ) : null}
                {data.networksWithoutRpc?.includes(network.caipNetworkId) ? (
                  <span className="text-xs text-muted">{t('network.noRpc')}</span>
                ) : null}
              </span>
              {selected ? (
                <span className="text-accent" title={t('network.current')}>
                  <CheckIcon />
                  <span className="sr-only">{t('network.current')}</span>
                </span>
              ) : null}
            </button>
          </li>
        )
      })}
    </ul>
  )
}
