import { recommendedWalletsCount } from '@porthole/protocol/Constants'
import { useQuery } from '@tanstack/react-query'
import { HostGate } from '../components/HostGate.js'
import { GridIcon } from '../components/Icons.js'
import { WalletRowsSkeleton } from '../components/Skeleton.js'
import { WalletError } from '../components/WalletError.js'
import { WalletLogo } from '../components/WalletLogo.js'
import { recommendedWalletsQuery } from '../lib/explorer.js'
import { t } from '../lib/i18n.js'
import { router } from '../lib/router.js'

/** The first view: the recommended wallets and the way to all of them. */
export function Connect() {
  return (
    <section className="flex flex-col gap-2 px-4 pb-4">
      <HostGate loading={<WalletRowsSkeleton rows={recommendedWalletsCount + 1} />}>
        {/*
         * The email field and social buttons go here when login is built,
         * each shown only when `projectConfigQuery`'s features enable it.
         */}
        <RecommendedWallets />
      </HostGate>
    </section>
  )
}

function RecommendedWallets() {
  const { data, isPending, isError, refetch } = useQuery(recommendedWalletsQuery)
  if (isPending) return <WalletRowsSkeleton rows={recommendedWalletsCount + 1} />
  if (isError) return <WalletError onRetry={() => void refetch()} />
  return (
    <>
      <ul aria-label={t('connect.recommended')} className="flex flex-col gap-2">
        {data.data.map((wallet) => (
          // Connecting comes with its own views: for now an entry shows, it does nothing.
          <li
            key={wallet.id}
            data-wallet-id={wallet.id}
            className="flex items-center gap-3 rounded-2xl bg-surface-2 p-2.5"
          >
            <WalletLogo wallet={wallet} className="size-10 rounded-xl" />
            <span className="truncate text-sm font-medium">{wallet.name}</span>
          </li>
        ))}
      </ul>
      <button
        type="button"
        onClick={() => router.navigate('AllWallets')}
        className="flex items-center gap-3 rounded-2xl bg-surface-2 p-2.5 text-left hover:bg-surface-3 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
      >
        <span className="inline-flex size-10 items-center justify-center rounded-xl bg-accent-soft text-accent">
          <GridIcon />
        </span>
        <span className="flex-1 text-sm font-medium">{t('connect.allWallets')}</span>
        <span
          className="rounded-full bg-accent-soft px-2 py-0.5 text-xs font-semibold text-accent tabular-nums"
          title={t('connect.allWalletsCount', { count: data.count })}
        >
          {data.count}
        </span>
      </button>
    </>
  )
}
