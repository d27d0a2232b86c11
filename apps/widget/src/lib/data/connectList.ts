/**
 * The Connect view's list, in the seed's connector type order (walletConnect,
 * recent, injected, …, recommended): the WalletConnect QR entry, the 2 most
 * recent wallets, the host page's installed wallets (EIP-6963, then Wallet
 * Standard), then the recommended registry wallets. A registry wallet with
 * the rdns (or, for a Standard wallet, the name) of an installed one is
 * merged into it, and no wallet is listed twice: a wallet with both an
 * EIP-6963 and a Standard listing (the same name) is one entry, which
 * connects in the namespace the host or project asked for (`namespace`).
 */
import type { WalletEntry } from '@porthole/protocol/Api'
import type { HostWallet, StandardWallet } from '@porthole/protocol/Host'
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
      standardWallet?: undefined
      registry?: undefined
    }
  | {
      key: string
      kind: 'installed'
      name: string
      tag: Tag
      /** The connector id a click connects: its EIP-6963 one, or `standard:<name>`. */
      connectorId: string
      /** The wallet's EIP-6963 listing, when it has one. */
      hostWallet?: HostWallet | undefined
      /** The wallet's Wallet Standard (Solana) listing, when it has one. */
      standardWallet?: StandardWallet | undefined
      /** The registry listing of this wallet, when there is one. */
      registry?: WalletEntry | undefined
    }
  | {
      key: string
      kind: 'registry'
      name: string
      tag: Tag
      hostWallet?: undefined
      standardWallet?: undefined
      registry: WalletEntry
    }

/** A host wallet's connector id: its rdns, or its uuid when it has none (legacy `window.ethereum`). */
export const connectorIdOf = (wallet: HostWallet): string => wallet.rdns || wallet.uuid

/** A Standard wallet's connector id: `standard:<its name>` (the loader's ids are per page). */
export const standardConnectorIdOf = (wallet: Pick<StandardWallet, 'name'>): string =>
  `standard:${wallet.name}`

const sameName = (name: string) => name.trim().toLowerCase()

/**
 * The namespace a wallet listed in both connects with: the one the host asked
 * for last (`eth_requestAccounts`, `standard:connect`), else the one of the
 * project's default network (its first).
 */
export const preferredNamespace = (
  requested: 'eip155' | 'solana' | null,
  projectNetworks: readonly string[],
): 'eip155' | 'solana' =>
  requested ?? (projectNetworks[0]?.startsWith('solana:') ? 'solana' : 'eip155')

export function toConnectList(parameters: {
  hostWallets: readonly HostWallet[]
  standardWallets?: readonly StandardWallet[] | undefined
  /** The namespace a wallet listed in both connects with (EIP-155 by default). */
  namespace?: 'eip155' | 'solana' | undefined
  recent: readonly string[]
  recommended: readonly WalletEntry[]
}): ConnectEntry[] {
  const {
    hostWallets,
    standardWallets = [],
    namespace = 'eip155',
    recent,
    recommended,
  } = parameters
  const byRdns = new Map(
    recommended.filter((wallet) => wallet.rdns).map((wallet) => [wallet.rdns as string, wallet]),
  )
  const byName = new Map(recommended.map((wallet) => [sameName(wallet.name), wallet]))
  type Installed = Extract<ConnectEntry, { kind: 'installed' }>
  const installed = new Map<string, Installed>()
  /** Each connector id of an installed entry (a wallet in both has two), to its entry's key. */
  const aliases = new Map<string, string>()
  for (const wallet of hostWallets) {
    const id = connectorIdOf(wallet)
    if (installed.has(id)) continue
    installed.set(id, {
      key: `installed:${id}`,
      kind: 'installed',
      name: wallet.name,
      tag: 'installed',
      connectorId: id,
      hostWallet: wallet,
      registry: wallet.rdns ? byRdns.get(wallet.rdns) : undefined,
    })
    aliases.set(id, id)
  }
  for (const wallet of standardWallets) {
    const id = standardConnectorIdOf(wallet)
    if (aliases.has(id)) continue
    const twin = [...installed.values()].find(
      (entry) => !entry.standardWallet && sameName(entry.name) === sameName(wallet.name),
    )
    if (twin) {
      twin.standardWallet = wallet
      if (namespace === 'solana') twin.connectorId = id
      aliases.set(id, twin.key.slice('installed:'.length))
      continue
    }
    installed.set(id, {
      key: `installed:${id}`,
      kind: 'installed',
      name: wallet.name,
      tag: 'installed',
      connectorId: id,
      standardWallet: wallet,
      registry: byName.get(sameName(wallet.name)),
    })
    aliases.set(id, id)
  }
  const recentIds = [...new Set(recent.slice(0, recentLimit).map((id) => aliases.get(id) ?? id))]
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
