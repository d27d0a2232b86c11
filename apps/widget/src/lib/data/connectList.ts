/**
 * The Connect view's list, in the seed's connector type order (walletConnect,
 * recent, injected, …, recommended): the WalletConnect QR entry, the 2 most
 * recent wallets, the host page's installed wallets, then the recommended
 * registry wallets. A registry wallet with the rdns of an installed one is
 * merged into it, and no wallet is listed twice.
 */
import type { WalletEntry } from '@porthole/protocol/Api'
import type { HostWallet } from '@porthole/protocol/Host'
import { recentLimit } from './recent.js'

export const walletConnectId = 'walletConnect'

type Tag = 'recent' | 'installed' | 'qr' | null

export type ConnectEntry =
  | {
      key: string
      kind: 'walletConnect'
      name: string
      tag: Tag
      hostWallet?: undefined
      registry?: undefined
    }
  | {
      key: string
      kind: 'installed'
      name: string
      tag: Tag
      hostWallet: HostWallet
      /** The registry listing of this wallet, when there is one. */
      registry?: WalletEntry | undefined
    }
  | {
      key: string
      kind: 'registry'
      name: string
      tag: Tag
      hostWallet?: undefined
      registry: WalletEntry
    }

/** A host wallet's connector id: its rdns, or its uuid when it has none (legacy `window.ethereum`). */
export const connectorIdOf = (wallet: HostWallet): string => wallet.rdns || wallet.uuid

export function toConnectList(parameters: {
  hostWallets: readonly HostWallet[]
  recent: readonly string[]
  recommended: readonly WalletEntry[]
}): ConnectEntry[] {
  const { hostWallets, recent, recommended } = parameters
  const byRdns = new Map(
    recommended.filter((wallet) => wallet.rdns).map((wallet) => [wallet.rdns as string, wallet]),
  )
  const installed = new Map<string, ConnectEntry>()
  for (const wallet of hostWallets) {
    const id = connectorIdOf(wallet)
    if (installed.has(id)) continue
    installed.set(id, {
      key: `installed:${id}`,
      kind: 'installed',
      name: wallet.name,
      tag: 'installed',
      hostWallet: wallet,
      registry: wallet.rdns ? byRdns.get(wallet.rdns) : undefined,
    })
  }
  const recentIds = recent.slice(0, recentLimit)
  const walletConnect: ConnectEntry = {
    key: walletConnectId,
    kind: 'walletConnect',
    name: 'WalletConnect',
    tag: recentIds.includes(walletConnectId) ? 'recent' : 'qr',
  }
  const recentEntries = recentIds.flatMap((id) => {
    const entry = installed.get(id)
    if (!entry) return []
    installed.delete(id)
    return [{ ...entry, tag: 'recent' as const }]
  })
  const listed = new Set(
    [...recentEntries, ...installed.values()].flatMap((entry) =>
      entry.registry ? [entry.registry.id] : [],
    ),
  )
  const installedRdns = new Set(hostWallets.map((wallet) => wallet.rdns).filter(Boolean))
  const registryEntries = recommended
    .filter((wallet, index) => recommended.findIndex(({ id }) => id === wallet.id) === index)
    .filter((wallet) => !listed.has(wallet.id) && !(wallet.rdns && installedRdns.has(wallet.rdns)))
    .map(
      (wallet): ConnectEntry => ({
        key: `registry:${wallet.id}`,
        kind: 'registry',
        name: wallet.name,
        tag: null,
        registry: wallet,
      }),
    )
  return [walletConnect, ...recentEntries, ...installed.values(), ...registryEntries]
}
