/**
 * Solana's transaction wire format, read strictly and purely (no
 * @solana/web3.js): used to sign (wallet/solana/transaction.ts), to refuse a
 * "message" that is really a transaction (wallet/solana/prepare.ts) and to
 * show what a transaction does (approval/decodeSolana.ts). It imports
 * neither, so both the wallet and the approval UI can read it.
 *
 * A serialized transaction is a compact-u16 signature count N, N 64-byte
 * signatures, then the message: an optional version byte (0x80 = v0), the
 * header (required signatures, read-only signed, read-only unsigned), the
 * compact-u16 count of 32-byte account keys, the keys, the recent blockhash,
 * the instructions (program index, account indexes, data) and, for v0, the
 * address-table lookups. The whole message is walked, so a truncated or
 * padded one is refused.
 */
import { InvalidParamsError } from '@porthole/protocol/Errors'

export const signatureBytes = 64
export const keyBytes = 32
const versionPrefix = 0x80

export type Instruction = {
  /** Index of the program's key (static keys first, then lookup-table keys). */
  readonly programIndex: number
  readonly accounts: readonly number[]
  readonly data: Uint8Array
}

export type Lookup = {
  readonly table: Uint8Array
  readonly writable: readonly number[]
  readonly readonly: readonly number[]
}

export type Message = {
  /** 'legacy', or the version number (0 is the only one Solana has today). */
  readonly version: 'legacy' | number
  readonly requiredSignatures: number
  readonly readonlySigned: number
  readonly readonlyUnsigned: number
  /** The static account keys, 32 bytes each; the first pays the fee. */
  readonly keys: readonly Uint8Array[]
  /** Where the static keys start in the bytes read. */
  readonly keysOffset: number
  readonly recentBlockhash: Uint8Array
  readonly instructions: readonly Instruction[]
  readonly lookups: readonly Lookup[]
}

export class MalformedTransactionError extends InvalidParamsError {
  override name = 'MalformedTransactionError'
  constructor(detail: string) {
    super(`Not a valid Solana transaction: ${detail}.`)
  }
}

/** Reads the wire format front to back; every read past the end is refused. */
export class Reader {
  offset: number
  constructor(
    readonly bytes: Uint8Array,
    offset = 0,
  ) {
    this.offset = offset
  }

  get done(): boolean {
    return this.offset === this.bytes.length
  }

  u8(): number {
    const byte = this.bytes[this.offset]
    if (byte === undefined) throw new MalformedTransactionError('truncated')
    this.offset += 1
    return byte
  }

  /** Solana's shortvec: 1-3 bytes, 7 bits each, little-endian, canonical, at most 0xffff. */
  compactU16(): number {
    let value = 0
    for (let index = 0; index < 3; index++) {
      const byte = this.u8()
      if (index === 2 && byte > 0x03) throw new MalformedTransactionError('a length over 0xffff')
      value |= (byte & 0x7f) << (7 * index)
      if ((byte & 0x80) === 0) {
        if (index > 0 && byte === 0)
          throw new MalformedTransactionError('a length not in its shortest form')
        return value
      }
    }
    throw new MalformedTransactionError('a length over 0xffff')
  }

  /** The next `length` bytes (a view, not a copy). */
  take(length: number): Uint8Array {
    const start = this.offset
    if (length > this.bytes.length - start) throw new MalformedTransactionError('truncated')
    this.offset += length
    return this.bytes.subarray(start, start + length)
  }

  /** A compact-u16 count, then that many bytes. */
  bytesArray(): Uint8Array {
    return this.take(this.compactU16())
  }
}

/**
 * Reads one message from `reader`'s position. Checks its header as Solana's
 * sanitizer does (a signer that pays, counts that fit); any version byte
 * other than 0x80 is refused unless `anyVersion` (a future version is still
 * a transaction, not a message to sign).
 */
export function readMessage(reader: Reader, options: { anyVersion?: boolean } = {}): Message {
  let version: Message['version'] = 'legacy'
  const first = reader.u8()
  let required = first
  if (first & versionPrefix) {
    if (first !== versionPrefix && !options.anyVersion)
      throw new MalformedTransactionError(`unknown version ${first & 0x7f}`)
    version = first & 0x7f
    required = reader.u8()
  }
  const readonlySigned = reader.u8()
  const readonlyUnsigned = reader.u8()
  const keyCount = reader.compactU16()
  const keysOffset = reader.offset
  const keysBytes = reader.take(keyCount * keyBytes)
  const keys = Array.from({ length: keyCount }, (_, index) =>
    keysBytes.subarray(index * keyBytes, (index + 1) * keyBytes),
  )

  if (required === 0) throw new MalformedTransactionError('no required signature')
  if (required > keyCount) throw new MalformedTransactionError('more signers than account keys')
  if (readonlySigned >= required) throw new MalformedTransactionError('a read-only fee payer')
  if (readonlyUnsigned > keyCount - required)
    throw new MalformedTransactionError('more read-only accounts than accounts')

  const recentBlockhash = reader.take(keyBytes)
  const instructionCount = reader.compactU16()
  const instructions: Instruction[] = []
  for (let index = 0; index < instructionCount; index++) {
    const programIndex = reader.u8()
    const accounts = Array.from(reader.bytesArray())
    const data = reader.bytesArray()
    instructions.push({ programIndex, accounts, data })
  }
  const lookups: Lookup[] = []
  if (version !== 'legacy') {
    const lookupCount = reader.compactU16()
    for (let index = 0; index < lookupCount; index++) {
      const table = reader.take(keyBytes)
      const writable = Array.from(reader.bytesArray())
      const readonly = Array.from(reader.bytesArray())
      lookups.push({ table, writable, readonly })
    }
  }
  return {
    version,
    requiredSignatures: required,
    readonlySigned,
    readonlyUnsigned,
    keys,
    keysOffset,
    recentBlockhash,
    instructions,
    lookups,
  }
}

/** A whole serialized transaction: its signatures' position, then its message to the last byte. */
export function readTransaction(bytes: Uint8Array): {
  signatureCount: number
  signaturesOffset: number
  messageOffset: number
  message: Message
} {
  const reader = new Reader(bytes)
  const signatureCount = reader.compactU16()
  const signaturesOffset = reader.offset
  reader.take(signatureCount * signatureBytes)
  const messageOffset = reader.offset
  const message = readMessage(reader)
  if (!reader.done) throw new MalformedTransactionError('bytes after the message')
  if (signatureCount !== message.requiredSignatures)
    throw new MalformedTransactionError(
      `${signatureCount} signatures for ${message.requiredSignatures} required signers`,
    )
  return { signatureCount, signaturesOffset, messageOffset, message }
}

function parses(read: () => unknown): boolean {
  try {
    read()
    return true
  } catch {
    return false
  }
}

/**
 * Whether `bytes` are a Solana transaction message (legacy or versioned, any
 * version) or a whole serialized transaction: a signature over them could be
 * a transaction's signature, so they are never signed as a "message".
 */
export function isTransactionBytes(bytes: Uint8Array): boolean {
  return (
    parses(() => {
      const reader = new Reader(bytes)
      readMessage(reader, { anyVersion: true })
      if (!reader.done) throw new MalformedTransactionError('bytes after the message')
    }) || parses(() => readTransaction(bytes))
  )
}
