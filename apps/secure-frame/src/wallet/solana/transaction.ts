/**
 * Solana transactions for the embedded wallet, pure: the wire format is read
 * by formats/solanaMessage.ts only as far as needed to sign safely, and signed in
 * place. A transaction is checked whole (a truncated or padded one is
 * refused) and must list this wallet's key among its required signers; what
 * its instructions do is shown by the approval (approval/decodeSolana.ts).
 *
 * Params follow the WalletConnect/Reown convention: base64 transactions,
 * `{ transaction }` for one, `{ transactions }` for a batch.
 */
import { ed25519 } from '@noble/curves/ed25519'
import { InvalidParamsError } from '@porthole/protocol/Errors'
import { z } from '@porthole/protocol/zod'
import { base64 } from '@scure/base'
import {
  keyBytes,
  MalformedTransactionError,
  readTransaction,
  signatureBytes,
} from '../../formats/solanaMessage.js'
import { NotLoggedInError } from '../../lib/errors.js'

/** Solana's packet limit: no transaction is longer (bytes, decoded). */
export const maxTransactionBytes = 1232
/** The most transactions one `solana_signAllTransactions` signs. */
export const maxTransactions = 32

const maxBase64Length = Math.ceil(maxTransactionBytes / 3) * 4

export const Base64Transaction = z
  .string()
  .check(z.minLength(4), z.maxLength(maxBase64Length), z.regex(/^[A-Za-z0-9+/]+={0,2}$/))

export const SignTransactionParams = z.strictObject({ transaction: Base64Transaction })
export const SignAllTransactionsParams = z.strictObject({
  transactions: z.array(Base64Transaction).check(z.minLength(1), z.maxLength(maxTransactions)),
})

/** A transaction checked for signing by one key. */
export type SolanaTransaction = {
  /** The whole serialized transaction (the caller's copy). */
  bytes: Uint8Array
  /** Where the signatures start (after their compact-u16 count). */
  signaturesOffset: number
  /** Where the message starts: the bytes a signature covers run from here to the end. */
  messageOffset: number
  /** The index of the signer's key, and so of its signature slot. */
  signerIndex: number
  version: 'legacy' | 0
}

/** The bytes of a base64 transaction; -32602 when it is not base64 or longer than a packet. */
export function decodeTransaction(text: string): Uint8Array {
  let bytes: Uint8Array
  try {
    bytes = base64.decode(text)
  } catch {
    throw new InvalidParamsError('A Solana transaction must be base64.')
  }
  if (bytes.length > maxTransactionBytes)
    throw new MalformedTransactionError(`longer than ${maxTransactionBytes} bytes`)
  return bytes
}

function sameKey(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== keyBytes || b.length !== keyBytes) return false
  for (let index = 0; index < keyBytes; index++) if (a[index] !== b[index]) return false
  return true
}

/**
 * Checks that `bytes` is one whole transaction that `signer` (a 32-byte
 * ed25519 public key) must sign: -32602 when malformed, 4100 when the signer
 * is not one of its required signers.
 */
export function parseTransaction(bytes: Uint8Array, signer: Uint8Array): SolanaTransaction {
  if (bytes.length > maxTransactionBytes)
    throw new MalformedTransactionError(`longer than ${maxTransactionBytes} bytes`)
  const { signaturesOffset, messageOffset, message } = readTransaction(bytes)
  let signerIndex = -1
  message.keys.forEach((key, index) => {
    if (!sameKey(key, signer)) return
    if (signerIndex !== -1) throw new MalformedTransactionError('an account key listed twice')
    signerIndex = index
  })
  if (signerIndex === -1 || signerIndex >= message.requiredSignatures)
    throw new NotLoggedInError('The transaction is not signed by this wallet’s account')
  return {
    bytes,
    signaturesOffset,
    messageOffset,
    signerIndex,
    version: message.version === 'legacy' ? 'legacy' : 0,
  }
}

/** Decodes and checks every transaction before any is shown or signed. */
export function parseTransactions(
  texts: readonly string[],
  signer: Uint8Array,
): SolanaTransaction[] {
  return texts.map((text) => parseTransaction(decodeTransaction(text), signer))
}

/**
 * The transaction with `privateKey`'s signature over its message put in the
 * signer's slot, base64; every other byte (other signatures included) as given.
 */
export function signTransaction(transaction: SolanaTransaction, privateKey: Uint8Array): string {
  const { bytes, signaturesOffset, messageOffset, signerIndex } = transaction
  const signed = Uint8Array.from(bytes)
  const signature = ed25519.sign(signed.subarray(messageOffset), privateKey)
  signed.set(signature, signaturesOffset + signerIndex * signatureBytes)
  return base64.encode(signed)
}
