/**
 * Address checks and display per chain namespace. Shape checks only: no
 * checksum is verified (EIP-55, base58check and bech32 checksums need hashing
 * this package does not carry).
 */
import type { ChainNamespace } from './Networks.js'

// Regex literals, not `new RegExp`, keep the module free of side effects for tree-shaking.
const evmRegex = /^(0x)?[0-9a-fA-F]{40}$/
/** Base58: digits and letters without 0, O, I and l. */
const solanaRegex = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/
/** P2PKH and P2SH, mainnet (`1`, `3`) and testnet (`m`, `n`, `2`). */
const bitcoinBase58Regex = /^[13mn2][1-9A-HJ-NP-Za-km-z]{25,34}$/
/** Segwit v0 and taproot, mainnet (`bc1`) and testnet or signet (`tb1`). */
const bitcoinBech32Regex = /^(bc1|tb1)[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{11,71}$/

/** EVM address: 40 hex characters with an optional `0x` prefix (SPEC section 5). */
export function validateEvm(address: string): boolean {
  return evmRegex.test(address)
}

/** Solana address: 32 to 44 base58 characters (SPEC section 5). */
export function validateSolana(address: string): boolean {
  return solanaRegex.test(address)
}

/**
 * Bitcoin address shape: base58 P2PKH/P2SH, or bech32 `bc1`/`tb1` in one case
 * (all lower or all upper). Mainnet and test networks are both accepted.
 */
export function validateBitcoin(address: string): boolean {
  if (bitcoinBase58Regex.test(address)) return true
  const lower = address.toLowerCase()
  if (address !== lower && address !== address.toUpperCase()) return false
  return bitcoinBech32Regex.test(lower)
}

/**
 * Whether `address` is valid for `namespace` (`eip155`, `solana` or `bip122`).
 * Any other namespace gives `false`.
 */
export function validate(address: string, namespace: ChainNamespace | (string & {})): boolean {
  if (typeof address !== 'string') return false
  switch (namespace) {
    case 'eip155':
      return validateEvm(address)
    case 'solana':
      return validateSolana(address)
    case 'bip122':
      return validateBitcoin(address)
    default:
      return false
  }
}

/** Leading characters kept by {@link truncate} (SPEC section 2). */
export const truncateLeading = 4
/** Trailing characters kept by {@link truncate} (SPEC section 2). */
export const truncateTrailing = 6

/**
 * Shortens an address for display to its first 4 and last 6 characters
 * joined by '…', e.g. `0x12…abcdef`. The `0x` prefix counts among the 4.
 * An address of 11 characters or fewer is returned unchanged, since
 * truncating it would not make it shorter.
 */
export function truncate(address: string): string {
  if (address.length <= truncateLeading + truncateTrailing + 1) return address
  return `${address.slice(0, truncateLeading)}…${address.slice(-truncateTrailing)}`
}
