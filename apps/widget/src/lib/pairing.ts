/**
 * WalletConnect pairing expiry (SPEC section 4): a URI lives 4 minutes and
 * counts as expired with 10 seconds or less left, when a fresh one replaces it.
 */
import { pairingExpiry, pairingExpiryMargin } from '@porthole/protocol/Constants'

export type Pairing = { uri: string; expiresAt: number }

export const createPairing = (uri: string, now: number = Date.now()): Pairing => ({
  uri,
  expiresAt: now + pairingExpiry,
})

export const isPairingExpired = (pairing: Pairing, now: number = Date.now()): boolean =>
  pairing.expiresAt - now <= pairingExpiryMargin

/** Milliseconds until the pairing counts as expired (0 when it already does). */
export const untilExpired = (pairing: Pairing, now: number = Date.now()): number =>
  Math.max(0, pairing.expiresAt - pairingExpiryMargin - now)
