/**
 * A Solana wallet's signature of a message, checked before it is passed on:
 * whatever answered (a host page's Standard wallet, a WalletConnect wallet)
 * is untrusted, and what the host receives from `solana_signMessage` says
 * that `pubkey` signed `message` (Porthole's Standard wallet answers it as
 * the `signedMessage`).
 */
import { ed25519 } from '@noble/curves/ed25519'
import { ErrorCode, RpcError } from '@porthole/protocol/Errors'
import { base58 } from '@scure/base'

/** `signature` if it is `address`'s ed25519 signature of exactly `message`; -32603 otherwise. */
export function signatureOf(
  address: string,
  message: Uint8Array,
  signature: Uint8Array,
): Uint8Array {
  let valid = false
  try {
    valid = signature.length === 64 && ed25519.verify(signature, message, base58.decode(address))
  } catch {
    valid = false
  }
  if (!valid)
    throw new RpcError(
      ErrorCode.internal,
      'The wallet answered with a signature that is not of that message by that account.',
    )
  return signature
}
