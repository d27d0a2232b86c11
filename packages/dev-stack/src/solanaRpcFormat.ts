/**
 * What the local Solana node (solanaNode.ts) writes as a Solana validator's
 * RPC does: its errors, transaction errors in the RPC's JSON shape and words,
 * and accounts in each encoding (`base58`, `base64`, `jsonParsed` for SPL
 * Token and Token-2022 accounts and mints; legacy `binary` when none is named).
 */
import {
  ACCOUNT_SIZE,
  MINT_SIZE,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  unpackAccount,
  unpackMint,
} from '@solana/spl-token'
import { type AccountInfo, PublicKey } from '@solana/web3.js'
import type { FailedTransactionMetadata } from 'litesvm'
import { formatUnits } from 'viem'

/** A JSON-RPC error as the validator gives it: `{ code, message, data? }`. */
export class SolanaRpcError extends Error {
  override name = 'SolanaRpcError'
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

export const invalidParams = (detail: string) =>
  new SolanaRpcError(-32602, `Invalid param: ${detail}`)

/** A base58 public key among the params, or -32602 as the validator answers. */
export function toPublicKey(value: unknown): PublicKey {
  if (typeof value !== 'string') throw invalidParams('expected a base58 public key')
  try {
    const bytes = base58.decode(value)
    if (bytes.length !== 32) throw invalidParams('WrongSize')
    return new PublicKey(bytes)
  } catch (error) {
    if (error instanceof SolanaRpcError) throw error
    throw invalidParams('Invalid')
  }
}

const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

/** Base58 (Bitcoin's alphabet), as signatures, blockhashes and `base58` data are written. */
export const base58 = {
  encode(bytes: Uint8Array): string {
    let value = 0n
    for (const byte of bytes) value = value * 256n + BigInt(byte)
    let text = ''
    while (value > 0n) {
      text = alphabet[Number(value % 58n)] + text
      value /= 58n
    }
    for (const byte of bytes) {
      if (byte !== 0) break
      text = `1${text}`
    }
    return text
  },
  decode(text: string): Uint8Array {
    let value = 0n
    for (const char of text) {
      const digit = alphabet.indexOf(char)
      if (digit < 0) throw new Error(`Not base58: ${char}`)
      value = value * 58n + BigInt(digit)
    }
    const bytes: number[] = []
    while (value > 0n) {
      bytes.unshift(Number(value % 256n))
      value /= 256n
    }
    for (const char of text) {
      if (char !== '1') break
      bytes.unshift(0)
    }
    return Uint8Array.from(bytes)
  },
}

// Rust's enum orders, as litesvm numbers its field-less variants.
const transactionErrors =
  'AccountInUse AccountLoadedTwice AccountNotFound ProgramAccountNotFound InsufficientFundsForFee InvalidAccountForFee AlreadyProcessed BlockhashNotFound CallChainTooDeep MissingSignatureForFee InvalidAccountIndex SignatureFailure InvalidProgramForExecution SanitizeFailure ClusterMaintenance AccountBorrowOutstanding WouldExceedMaxBlockCostLimit UnsupportedVersion InvalidWritableAccount WouldExceedMaxAccountCostLimit WouldExceedAccountDataBlockLimit TooManyAccountLocks AddressLookupTableNotFound InvalidAddressLookupTableOwner InvalidAddressLookupTableData InvalidAddressLookupTableIndex InvalidRentPayingAccount WouldExceedMaxVoteCostLimit WouldExceedAccountDataTotalLimit MaxLoadedAccountsDataSizeExceeded ResanitizationNeeded InvalidLoadedAccountsDataSizeLimit UnbalancedTransaction ProgramCacheHitMaxLimit CommitCancelled'.split(
    ' ',
  )
const instructionErrors =
  'GenericError InvalidArgument InvalidInstructionData InvalidAccountData AccountDataTooSmall InsufficientFunds IncorrectProgramId MissingRequiredSignature AccountAlreadyInitialized UninitializedAccount UnbalancedInstruction ModifiedProgramId ExternalAccountLamportSpend ExternalAccountDataModified ReadonlyLamportChange ReadonlyDataModified DuplicateAccountIndex ExecutableModified RentEpochModified NotEnoughAccountKeys AccountDataSizeChanged AccountNotExecutable AccountBorrowFailed AccountBorrowOutstanding DuplicateAccountOutOfSync InvalidError ExecutableDataModified ExecutableLamportChange ExecutableAccountNotRentExempt UnsupportedProgramId CallDepth MissingAccount ReentrancyNotAllowed MaxSeedLengthExceeded InvalidSeeds InvalidRealloc ComputationalBudgetExceeded PrivilegeEscalation ProgramEnvironmentSetupFailure ProgramFailedToComplete ProgramFailedToCompile Immutable IncorrectAuthority AccountNotRentExempt InvalidAccountOwner ArithmeticOverflow UnsupportedSysvar IllegalOwner MaxAccountsDataAllocationsExceeded MaxAccountsExceeded MaxInstructionTraceLengthExceeded BuiltinProgramsMustConsumeComputeUnits BorshIoError'.split(
    ' ',
  )

/** A transaction error in the RPC's JSON: `"BlockhashNotFound"`, `{ "InstructionError": [0, { "Custom": 1 }] }`, … */
export type TransactionError = string | Record<string, unknown>

/** A transaction error a node raises itself (the blockhash check is the node's, not litesvm's). */
export const blockhashNotFound: TransactionError = 'BlockhashNotFound'

export function toTransactionError(failed: FailedTransactionMetadata): TransactionError {
  const error: unknown = failed.err()
  if (typeof error === 'number') return transactionErrors[error] ?? `TransactionError${error}`
  const fields = error as { index?: number; accountIndex?: number; err?: () => unknown }
  switch ((error as object).constructor.name) {
    case 'TransactionErrorInstructionError':
      return { InstructionError: [fields.index, toInstructionError(fields.err?.())] }
    case 'TransactionErrorDuplicateInstruction':
      return { DuplicateInstruction: fields.index }
    case 'TransactionErrorInsufficientFundsForRent':
      return { InsufficientFundsForRent: { account_index: fields.accountIndex } }
    default:
      return { ProgramExecutionTemporarilyRestricted: { account_index: fields.accountIndex } }
  }
}

function toInstructionError(error: unknown): unknown {
  if (typeof error === 'number') return instructionErrors[error] ?? `InstructionError${error}`
  const fields = error as { code?: number; msg?: string }
  if (fields.code !== undefined) return { Custom: fields.code }
  return { BorshIoError: fields.msg ?? '' }
}

/** The validator's words for the errors a wallet meets; others are their names, spaced. */
const transactionWords: Record<string, string> = {
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  SignatureFailure: 'Transaction did not pass signature verification',
}
const instructionWords: Record<string, string> = {
  InsufficientFunds: 'insufficient funds for instruction',
  InvalidArgument: 'invalid program argument',
  InvalidInstructionData: 'invalid instruction data',
  InvalidAccountData: 'invalid account data for instruction',
  MissingRequiredSignature: 'missing required signature for instruction',
  AccountAlreadyInitialized: 'instruction requires an uninitialized account',
  UninitializedAccount: 'instruction requires an initialized account',
  IncorrectProgramId: 'incorrect program id for instruction',
}
const spaced = (name: string) => name.replace(/(?<=[a-z])(?=[A-Z])/g, ' ').toLowerCase()

/** The error's text, as in `Transaction simulation failed: <text>`. */
export function describeTransactionError(error: TransactionError): string {
  if (typeof error === 'string') return transactionWords[error] ?? spaced(error)
  const [[name, value] = ['', undefined]] = Object.entries(error)
  if (name === 'InstructionError') {
    const [index, inner] = value as [number, unknown]
    const text =
      typeof inner === 'string'
        ? (instructionWords[inner] ?? spaced(inner))
        : 'Custom' in (inner as object)
          ? `custom program error: 0x${(inner as { Custom: number }).Custom.toString(16)}`
          : `Failed to serialize or deserialize account data: ${(inner as { BorshIoError: string }).BorshIoError}`
    return `Error processing Instruction ${index}: ${text}`
  }
  if (name === 'InsufficientFundsForRent') {
    const { account_index } = value as { account_index: number }
    return `Transaction results in an account (${account_index}) with insufficient funds for rent`
  }
  return `${spaced(name)}: ${JSON.stringify(value)}`
}

export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'jsonParsed'

export type AccountConfig = {
  encoding: AccountEncoding
  dataSlice?: { offset: number; length: number }
}

/** The `{ encoding, dataSlice }` of an account request; -32602 for the rest. */
export function toAccountConfig(config: unknown): AccountConfig {
  const { encoding = 'binary', dataSlice } = (config ?? {}) as {
    encoding?: unknown
    dataSlice?: { offset?: unknown; length?: unknown }
  }
  if (encoding === 'base64+zstd') throw invalidParams('base64+zstd is not supported here')
  if (!['binary', 'base58', 'base64', 'jsonParsed'].includes(encoding as string))
    throw invalidParams(`unknown encoding ${JSON.stringify(encoding)}`)
  if (dataSlice === undefined) return { encoding: encoding as AccountEncoding }
  const { offset, length } = dataSlice
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length))
    throw invalidParams('dataSlice needs offset and length')
  return {
    encoding: encoding as AccountEncoding,
    dataSlice: { offset: offset as number, length: length as number },
  }
}

const tokenPrograms = [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID]
export const isTokenProgram = (owner: PublicKey) => tokenPrograms.some((id) => id.equals(owner))

/** An account as `getAccountInfo` and its kin give it; `mintDecimals` reads a mint for `jsonParsed`. */
export function encodeAccount(
  address: PublicKey,
  account: AccountInfo<Uint8Array>,
  config: AccountConfig,
  mintDecimals: (mint: PublicKey) => number,
) {
  const { lamports, owner, executable, rentEpoch } = account
  const header = {
    lamports,
    owner: owner.toBase58(),
    executable,
    rentEpoch: rentEpoch ?? 0,
    space: account.data.length,
  }
  if (config.encoding === 'jsonParsed') {
    const parsed = parseTokenAccount(address, account, mintDecimals)
    if (parsed) return { ...header, data: parsed }
  }
  const { offset = 0, length = account.data.length } = config.dataSlice ?? {}
  const data = Buffer.from(account.data.subarray(offset, offset + length))
  if (config.encoding === 'binary') return { ...header, data: base58.encode(data) }
  if (config.encoding === 'base58') return { ...header, data: [base58.encode(data), 'base58'] }
  return { ...header, data: [data.toString('base64'), 'base64'] }
}

/** An SPL token amount as the RPC gives it (`uiAmountString` without trailing zeros). */
export function toTokenAmount(amount: bigint, decimals: number) {
  const uiAmountString = formatUnits(amount, decimals)
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString }
}

function parseTokenAccount(
  address: PublicKey,
  account: AccountInfo<Uint8Array>,
  mintDecimals: (mint: PublicKey) => number,
) {
  if (!isTokenProgram(account.owner)) return undefined
  const program = account.owner.equals(TOKEN_PROGRAM_ID) ? 'spl-token' : 'spl-token-2022'
  const info = { ...account, data: Buffer.from(account.data) }
  const space = account.data.length
  try {
    if (space === MINT_SIZE || (program === 'spl-token-2022' && space > ACCOUNT_SIZE)) {
      const mint = unpackMint(address, info, account.owner)
      const parsed = {
        type: 'mint',
        info: {
          decimals: mint.decimals,
          freezeAuthority: mint.freezeAuthority?.toBase58() ?? null,
          isInitialized: mint.isInitialized,
          mintAuthority: mint.mintAuthority?.toBase58() ?? null,
          supply: mint.supply.toString(),
        },
      }
      return { program, parsed, space }
    }
  } catch {
    // Not a mint: a token account with extensions, read below.
  }
  try {
    const token = unpackAccount(address, info, account.owner)
    const parsed = {
      type: 'account',
      info: {
        isNative: token.isNative,
        mint: token.mint.toBase58(),
        owner: token.owner.toBase58(),
        state: token.isFrozen ? 'frozen' : 'initialized',
        tokenAmount: toTokenAmount(token.amount, mintDecimals(token.mint)),
        ...(token.delegate
          ? {
              delegate: token.delegate.toBase58(),
              delegatedAmount: toTokenAmount(token.delegatedAmount, mintDecimals(token.mint)),
            }
          : {}),
        ...(token.closeAuthority ? { closeAuthority: token.closeAuthority.toBase58() } : {}),
      },
    }
    return { program, parsed, space }
  } catch {
    return undefined
  }
}
