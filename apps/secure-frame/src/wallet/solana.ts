/**
 * Solana transactions for the embedded wallet, pure: the wire format is read
 * here (no @solana/web3.js) only as far as needed to sign safely, and signed
 * in place. A serialized transaction is a compact-u16 signature count N, N
 * 64-byte signatures, then the message: an optional version byte (0x80 = v0;
 * any other value with the high bit set is refused), the header (required
 * signatures, read-only signed, read-only unsigned), the compact-u16 count of
 * 32-byte account keys, the keys, the recent blockhash, the instructions and,
 * for v0, the address-table lookups. The whole message is walked, so a
 * truncated or padded transaction is refused; what the instructions do is
 * not decoded (the approval UI says so).
 *
 * Params follow the WalletConnect/Reown convention: base64 transactions,
 * `{ transaction }` for one, `{ transactions }` for a batch.
 */
import { ed25519 } from '@noble/curves/ed25519'
import { InvalidParamsError } from '@porthole/protocol/Errors'
import { z } from '@porthole/protocol/zod'
import { base64 } from '@scure/base'
import { NotConnectedError } from '../errors.js'

/** Solana's packet limit: no transaction is longer (bytes, decoded). */
export const maxTransactionBytes = 1232
/** The most transactions one `solana_signAllTransactions` signs. */
export const maxTransactions = 32

const signatureBytes = 64
const keyBytes = 32
const versionPrefix = 0x80
const maxBase64Length = Math.ceil(maxTransactionBytes / 3) * 4

const Base64Transaction = z
  .string()
  .min(4)
  .max(maxBase64Length)
  .regex(/^[A-Za-z0-9+/]+={0,2}$/)

export const SignTransactionParams = z.strictObject({ transaction: Base64Transaction })
export const SignAllTransactionsParams = z.strictObject({
  transactions: z.array(Base64Transaction).min(1).max(maxTransactions),
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

class Malformed extends InvalidParamsError {
  constructor(detail: string) {
    super(`Not a valid Solana transaction: ${detail}.`)
  }
}

/** Reads the wire format front to back; every read past the end is refused. */
class Reader {
  offset = 0
  constructor(readonly bytes: Uint8Array) {}

  u8(): number {
    const byte = this.bytes[this.offset]
    if (byte === undefined) throw new Malformed('truncated')
    this.offset += 1
    return byte
  }

  /** Solana's shortvec: 1-3 bytes, 7 bits each, little-endian, canonical, at most 0xffff. */
  compactU16(): number {
    let value = 0
    for (let index = 0; index < 3; index++) {
      const byte = this.u8()
      if (index === 2 && byte > 0x03) throw new Malformed('a length over 0xffff')
      value |= (byte & 0x7f) << (7 * index)
      if ((byte & 0x80) === 0) {
        if (index > 0 && byte === 0) throw new Malformed('a length not in its shortest form')
        return value
      }
    }
    throw new Malformed('a length over 0xffff')
  }

  skip(length: number): number {
    const start = this.offset
    if (length > this.bytes.length - start) throw new Malformed('truncated')
    this.offset += length
    return start
  }

  /** A compact-u16 count, then that many items of `size` bytes. */
  skipArray(size: number): number {
    const count = this.compactU16()
    this.skip(count * size)
    return count
  }
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
    throw new Malformed(`longer than ${maxTransactionBytes} bytes`)
  return bytes
}

function sameKey(bytes: Uint8Array, offset: number, key: Uint8Array): boolean {
  for (let index = 0; index < keyBytes; index++)
    if (bytes[offset + index] !== key[index]) return false
  return true
}

/**
 * Checks that `bytes` is one whole transaction that `signer` (a 32-byte
 * ed25519 public key) must sign: -32602 when malformed, 4100 when the signer
 * is not one of its required signers.
 */
export function parseTransaction(bytes: Uint8Array, signer: Uint8Array): SolanaTransaction {
  if (bytes.length > maxTransactionBytes)
    throw new Malformed(`longer than ${maxTransactionBytes} bytes`)
  const reader = new Reader(bytes)
  const signatureCount = reader.compactU16()
  const signaturesOffset = reader.offset
  reader.skip(signatureCount * signatureBytes)
  const messageOffset = reader.offset

  let version: SolanaTransaction['version'] = 'legacy'
  const first = reader.u8()
  let required = first
  if (first & versionPrefix) {
    if (first !== versionPrefix) throw new Malformed(`unknown version ${first & 0x7f}`)
    version = 0
    required = reader.u8()
  }
  const readonlySigned = reader.u8()
  const readonlyUnsigned = reader.u8()
  const keyCount = reader.compactU16()
  const keysStart = reader.skip(keyCount * keyBytes)

  if (required === 0) throw new Malformed('no required signature')
  if (signatureCount !== required)
    throw new Malformed(`${signatureCount} signatures for ${required} required signers`)
  if (required > keyCount) throw new Malformed('more signers than account keys')
  if (readonlySigned >= required) throw new Malformed('a read-only fee payer')
  if (readonlyUnsigned > keyCount - required)
    throw new Malformed('more read-only accounts than accounts')

  // Recent blockhash, then the instructions: program index, account indexes, data.
  reader.skip(keyBytes)
  const instructions = reader.compactU16()
  for (let index = 0; index < instructions; index++) {
    reader.u8()
    reader.skipArray(1)
    reader.skipArray(1)
  }
  if (version === 0) {
    // Address-table lookups: table key, writable indexes, read-only indexes.
    const lookups = reader.compactU16()
    for (let index = 0; index < lookups; index++) {
      reader.skip(keyBytes)
      reader.skipArray(1)
      reader.skipArray(1)
    }
  }
  if (reader.offset !== bytes.length) throw new Malformed('bytes after the message')

  let signerIndex = -1
  for (let index = 0; index < keyCount; index++) {
    if (!sameKey(bytes, keysStart + index * keyBytes, signer)) continue
    if (signerIndex !== -1) throw new Malformed('an account key listed twice')
    signerIndex = index
  }
  if (signerIndex === -1 || signerIndex >= required)
    throw new NotConnectedError('The transaction is not signed by this wallet’s account')
  return { bytes, signaturesOffset, messageOffset, signerIndex, version }
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
