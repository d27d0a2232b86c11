/** Transactions' bytes, for wallets that answer less than a signed transaction. */
import { ErrorCode, RpcError } from '@porthole/protocol/Errors'
import { VersionedTransaction } from '@solana/web3.js'

/** The transaction with `signer`'s signature in its place (a wallet answered the signature only). */
export function fromSignature(
  transaction: Uint8Array,
  signer: string,
  signature: Uint8Array,
): Uint8Array {
  const parsed = VersionedTransaction.deserialize(transaction)
  const index = parsed.message.staticAccountKeys.findIndex((key) => key.toBase58() === signer)
  if (index < 0 || index >= parsed.signatures.length || signature.length !== 64)
    throw new RpcError(ErrorCode.internal, 'The wallet signed for another account.')
  parsed.signatures[index] = signature
  return parsed.serialize()
}
