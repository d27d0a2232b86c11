import type { WalletEntry } from '@porthole/protocol/Api'
import { recommendedWalletsCount } from '@porthole/protocol/Constants'
import type { HostWallet } from '@porthole/protocol/Host'
import { useQuery } from '@tanstack/react-query'
import { lazy, Suspense } from 'react'
import { rowButton } from '../components/Buttons.js'
import { HostGate } from '../components/HostGate.js'
import { GridIcon, QrIcon } from '../components/Icons.js'
import { WalletRowsSkeleton } from '../components/Skeleton.js'
import { WalletError } from '../components/WalletError.js'
import { WalletIcon } from '../components/WalletIcon.js'
import { useStore } from '../hooks/useStore.js'
import {
  type ConnectEntry,
  connectorIdOf,
  preferredNamespace,
  toConnectList,
} from '../lib/data/connectList.js'
import { recommendedWalletsQuery } from '../lib/data/explorer.js'
import { projectConfigQuery } from '../lib/host/projectConfig.js'
import { t } from '../lib/i18n.js'
import { router } from '../lib/state/router.js'
import {
  type ConnectingWallet,
  currentView,
  type Store,
  store,
  type WidgetState,
} from '../lib/state/store.js'
import { warmUp } from './preload.js'

/**
 * The email field and social buttons, a chunk of their own: Connect is
 * rendered at start-up, so it loads then, while the project's config (which
 * says whether they show at all) is fetched.
 */
const EmbeddedLogin = lazy(() =>
  import('../components/EmbeddedLogin.js').then((module) => ({ default: module.EmbeddedLogin })),
)

/**
 * The first view: WalletConnect, recent and installed wallets, the
 * recommended ones, and all. The list paints while the host's origin is still
 * being checked; a wallet chosen then is connected only once the check passes
 * (`chooseWhenVerified`, SECURITY.md 4).
 */
export function Connect() {
  const body = (
    <>
      <Suspense fallback={null}>
        <EmbeddedLogin />
      </Suspense>
      <Wallets />
    </>
  )
  return (
    <section className="flex flex-col gap-2 px-4 pb-4">
      <HostGate loading={body}>{body}</HostGate>
    </section>
  )
}

/** The wallet chosen while the check runs: the last one only. */
let waiting: (() => void) | null = null

/**
 * `choose`, once the host is verified: at once when it is, when the check
 * passes while it runs (only the last wallet chosen meanwhile), and never when
 * it fails, nor once the visitor has left Connect or closed the modal (a
 * dismissed choice starts no connection later).
 */
export function chooseWhenVerified(entry: ConnectEntry, target: Store<WidgetState> = store): void {
  warmUp()
  waiting?.()
  waiting = null
  const { verification } = target.getState()
  if (verification === 'verified') choose(entry)
  if (verification !== 'pending') return
  const stop = target.subscribe(() => {
    const state = target.getState()
    const dismissed = !state.open || currentView(state) !== 'Connect'
    if (state.verification === 'pending' && !dismissed) return
    stop()
    waiting = null
    if (state.verification === 'verified' && !dismissed) choose(entry)
  })
  waiting = stop
}

const noLinks = { mobile: null, desktop: null, webapp: null }

const linksOf = (wallet: WalletEntry): ConnectingWallet['links'] => ({
  mobile: wallet.mobile_link,
  desktop: wallet.desktop_link,
  webapp: wallet.webapp_link,
})

/** Where a click on an entry goes: a host wallet connects itself, the others pair over WalletConnect. */
export function choose(entry: ConnectEntry): void {
  if (entry.kind === 'installed') {
    store.setState({
      connecting: {
        ...(entry.hostWallet
          ? toConnecting(entry.hostWallet, entry.registry)
          : toConnecting(
              { name: entry.name, icon: entry.standardWallet?.icon ?? '' },
              entry.registry,
            )),
        connectorId: entry.connectorId,
      },
    })
    router.navigate('ConnectingExternal')
    return
  }
  store.setState({
    connecting:
      entry.kind === 'walletConnect'
        ? {
            connectorId: null,
            name: t('connect.walletConnect'),
            icon: null,
            imageId: null,
            links: noLinks,
          }
        : {
            connectorId: null,
            name: entry.registry.name,
            icon: null,
            imageId: entry.registry.image_id,
            links: linksOf(entry.registry),
          },
  })
  router.navigate('ConnectingWalletConnect')
}

export function toConnecting(
  wallet: HostWallet | Pick<HostWallet, 'name' | 'icon'>,
  registry?: WalletEntry | undefined,
): ConnectingWallet {
  return {
    connectorId: 'uuid' in wallet ? connectorIdOf(wallet) : null,
    name: wallet.name,
    icon: wallet.icon || null,
    imageId: registry?.image_id ?? null,
    links: registry ? linksOf(registry) : noLinks,
  }
}

function Wallets() {
  const { data, isPending, isError, refetch } = useQuery(recommendedWalletsQuery)
  const hostWallets = useStore((state) => state.hostWallets)
  const standardWallets = useStore((state) => state.standardWallets)
  const requested = useStore((state) => state.requestedNamespace)
  const networks = useQuery(projectConfigQuery).data?.networks ?? []
  const recent = useStore((state) => state.recent)
  const pending = useStore((state) => state.verification === 'pending')
  const entries = toConnectList({
    hostWallets,
    // Solana wallets only for a project with a Solana network.
    standardWallets: networks.some((id) => id.startsWith('solana:')) ? standardWallets : [],
    namespace: preferredNamespace(requested, networks),
    recent,
    recommended: data?.data ?? [],
  })
  return (
    <>
      <ul
        aria-label={t('connect.list')}
        aria-busy={pending ? true : undefined}
        className="flex flex-col gap-2"
        onPointerEnter={warmUp}
        onKeyDown={warmUp}
      >
        {entries.map((entry) => (
          <li key={entry.key} data-wallet-id={entry.registry?.id}>
            <button type="button" className={rowButton} onClick={() => chooseWhenVerified(entry)}>
              {entry.kind === 'walletConnect' ? (
                <span className="inline-flex size-10 items-center justify-center rounded-xl bg-accent text-accent-fg">
                  <QrIcon />
                </span>
              ) : (
                <WalletIcon
                  icon={entry.hostWallet?.icon ?? entry.standardWallet?.icon}
                  wallet={{ name: entry.name, image_id: entry.registry?.image_id ?? null }}
                  className="size-10 rounded-xl"
                />
              )}
              <span className="flex-1 truncate text-sm font-medium">{entry.name}</span>
              {entry.tag ? (
                <span className="rounded-full bg-accent-soft px-2 py-0.5 text-xs font-semibold text-accent">
                  {t(`connect.tag.${entry.tag}`)}
                </span>
              ) : null}
            </button>
          </li>
        ))}
      </ul>
      {isPending ? <WalletRowsSkeleton rows={recommendedWalletsCount} /> : null}
      {isError && !data ? <WalletError onRetry={() => void refetch()} /> : null}
      {data ? (
        <button type="button" onClick={() => router.navigate('AllWallets')} className={rowButton}>
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
      ) : null}
    </>
  )
}
