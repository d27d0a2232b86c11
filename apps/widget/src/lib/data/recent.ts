/**
 * The connection list's recent flag: the connector ids of the 2 wallets used
 * last on this host (most recent first), kept per host origin (SECURITY.md 9).
 */

import { store } from '../state/store.js'
import { storage as defaultStorage, type SafeStorage } from './storage.js'

export const recentLimit = 2

const keyOf = (hostOrigin: string) => `porthole.recent.${hostOrigin}`

/**
 * Where the Solana adapter keeps the connector id of the last Solana
 * connection on a host: set, the adapter loads at start-up and reconnects it.
 */
export const solanaConnectionKey = (hostOrigin: string) => `porthole.solana.${hostOrigin}`

/** Where wagmi keeps this host's EVM state (`lib/chains/evm/config.ts`), per host origin. */
export const evmStorageKey = (hostOrigin: string) => `porthole.evm.${hostOrigin}`

/**
 * Whether wagmi kept a current connection for this host: set, the EVM layer
 * loads at start-up and reconnects it; otherwise it waits for a wallet choice.
 */
export function hasStoredEvmConnection(
  hostOrigin: string,
  from: SafeStorage = defaultStorage,
): boolean {
  try {
    const kept = JSON.parse(from.getItem(`${evmStorageKey(hostOrigin)}.store`) ?? 'null') as {
      state?: { current?: unknown }
    } | null
    return typeof kept?.state?.current === 'string'
  } catch {
    return false
  }
}

export function readRecent(
  hostOrigin: string | null = store.getState().hostOrigin,
  from: SafeStorage = defaultStorage,
): string[] {
  if (!hostOrigin) return []
  try {
    const value: unknown = JSON.parse(from.getItem(keyOf(hostOrigin)) ?? '[]')
    return Array.isArray(value)
      ? value.filter((id): id is string => typeof id === 'string').slice(0, recentLimit)
      : []
  } catch {
    return []
  }
}

/** Puts `connectorId` first in the recent list of the current host. */
export function rememberRecent(
  connectorId: string,
  hostOrigin: string | null = store.getState().hostOrigin,
  to: SafeStorage = defaultStorage,
): void {
  if (!hostOrigin) return
  const next = [connectorId, ...readRecent(hostOrigin, to).filter((id) => id !== connectorId)]
  to.setItem(keyOf(hostOrigin), JSON.stringify(next.slice(0, recentLimit)))
  // The store shows the current host's list only (SECURITY.md 9).
  if (store.getState().hostOrigin === hostOrigin)
    store.setState({ recent: next.slice(0, recentLimit) })
}
