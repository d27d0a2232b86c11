/**
 * Classifies what a wallet returned, as the seed does (SPEC section 3):
 * - a string matching a `0x`-prefixed 64-hex-digit hash is a transaction hash;
 * - otherwise a `0x`-prefixed hex string of at least 62 digits is a signed message;
 * - anything else is an object.
 * The hash test runs first: exactly 64 hex digits is always a hash.
 */

export type Kind = 'transactionHash' | 'signature' | 'object'

const transactionHashRegex = /^0x[0-9a-fA-F]{64}$/
const signatureRegex = /^0x[0-9a-fA-F]{62,}$/

/** The kind of a wallet response: 'transactionHash', 'signature' or 'object'. */
export function classify(response: unknown): Kind {
  if (typeof response !== 'string') return 'object'
  if (transactionHashRegex.test(response)) return 'transactionHash'
  if (signatureRegex.test(response)) return 'signature'
  return 'object'
}
