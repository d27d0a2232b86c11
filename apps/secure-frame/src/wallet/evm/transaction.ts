/**
 * EVM transactions of the embedded wallet, shown as signed (SECURITY.md 18
 * and 20). `eth_sendTransaction`'s params are parsed strictly (an unknown key
 * is -32602), the aliases the wallet honours (`input` for `data`, `gasLimit`
 * for `gas`; both given and different is -32602) are folded once into one
 * `Draft`, then nonce, gas and fees are filled by viem's actions over the
 * API's RPC proxy (client.ts), all before the approval. The result, a `Filled` transaction, is the object
 * the approval shows and hashes, and exactly what is then signed: nothing is
 * read, filled or changed between Approve and the signature.
 */
import { InvalidParamsError } from '@porthole/protocol/Errors'
import { z } from '@porthole/protocol/zod'
import {
  getAddress,
  type Hex,
  hexToBigInt,
  isAddress,
  maxUint256,
  numberToHex,
  type TransactionSerializable,
} from 'viem'
import { estimateGas, getBlock, getGasPrice, getTransactionCount } from 'viem/actions'
import {
  Eip1559NotSupportedError,
  NotLoggedInError,
  UnexpectedAnswerError,
} from '../../lib/errors.js'
import { type EvmClient, maxNonce, viaViem } from './client.js'

/** Longest calldata, in hex characters. */
export const maxDataLength = 262_144

/** A checksummed (or all-lower/upper) 20-byte address. */
export const Address = z.string().check(
  z.regex(/^0x[0-9a-fA-F]{40}$/),
  z.refine((value) => isAddress(value), { error: 'bad address checksum' }),
)
/** Whole bytes of hex, bounded. */
export const Data = z.string().check(z.regex(/^0x(?:[0-9a-fA-F]{2})*$/), z.maxLength(maxDataLength))
/** A JSON-RPC quantity, at most 256 bits. */
export const Quantity = z.string().check(z.regex(/^0x[0-9a-fA-F]{1,64}$/))
/** A nonce viem signs as a JavaScript number: at most 2^52 - 1, so it is signed as shown. */
const Nonce = z.string().check(z.regex(/^0x[0-9a-fA-F]{1,13}$/))

/** `eth_sendTransaction`'s params: one transaction, no key this wallet does not honour. */
export const SendTransactionParams = z.tuple([
  z.strictObject({
    from: z.optional(Address),
    to: z.nullish(Address),
    value: z.optional(Quantity),
    data: z.optional(Data),
    input: z.optional(Data),
    gas: z.optional(Quantity),
    gasLimit: z.optional(Quantity),
    nonce: z.optional(Nonce),
    gasPrice: z.optional(Quantity),
    maxFeePerGas: z.optional(Quantity),
    maxPriorityFeePerGas: z.optional(Quantity),
    chainId: z.optional(Quantity),
    // Legacy (0x0) and EIP-1559 (0x2) only.
    type: z.optional(z.enum(['0x0', '0x2'])),
  }),
])

/** What the site asked for, aliases folded: each field once, under one name. */
export type Draft = {
  to?: string | undefined
  value?: bigint | undefined
  data?: Hex | undefined
  gas?: bigint | undefined
  nonce?: bigint | undefined
  fees?: Fees | undefined
}

export type Fees =
  | {
      type: 'eip1559'
      maxFeePerGas?: bigint | undefined
      maxPriorityFeePerGas?: bigint | undefined
    }
  | { type: 'legacy'; gasPrice?: bigint | undefined }

/** A transaction with every field filled: shown, hashed and signed as it is (JSON, hex quantities). */
export type Filled = {
  type: '0x0' | '0x2'
  chainId: Hex
  from: string
  /** Absent for a contract deployment. */
  to?: string
  value: Hex
  data: Hex
  nonce: Hex
  gas: Hex
  gasPrice?: Hex
  maxFeePerGas?: Hex
  maxPriorityFeePerGas?: Hex
}

/** The value given under two names, once; -32602 when they differ. */
function alias<value>(
  a: value | undefined,
  b: value | undefined,
  names: string,
  same: (a: value, b: value) => boolean,
): value | undefined {
  if (a !== undefined && b !== undefined && !same(a, b))
    throw new InvalidParamsError(`The transaction gives ${names} with different values.`)
  return a ?? b
}

/**
 * Folds `eth_sendTransaction`'s params into a `Draft` for `account` on
 * `chain`: -32602 for params that do not parse, aliases that disagree, mixed
 * fee kinds or another chain; 4100 for another sender.
 */
export function toDraft(params: unknown, wallet: { account: string; chain: number }): Draft {
  const parsed = SendTransactionParams.safeParse(params)
  if (!parsed.success) throw new InvalidParamsError('Invalid parameters for eth_sendTransaction.')
  const [tx] = parsed.data
  if (tx.from !== undefined && tx.from.toLowerCase() !== wallet.account.toLowerCase())
    throw new NotLoggedInError('The address is not this wallet’s account')
  if (tx.chainId !== undefined && BigInt(tx.chainId) !== BigInt(wallet.chain))
    throw new InvalidParamsError(
      `The transaction is for another chain than eip155:${wallet.chain}.`,
    )
  const data = alias(
    tx.data,
    tx.input,
    '`data` and `input`',
    (a, b) => a.toLowerCase() === b.toLowerCase(),
  )
  const gas = alias(tx.gas, tx.gasLimit, '`gas` and `gasLimit`', (a, b) => BigInt(a) === BigInt(b))
  const eip1559 = tx.maxFeePerGas !== undefined || tx.maxPriorityFeePerGas !== undefined
  if (tx.gasPrice !== undefined && (eip1559 || tx.type === '0x2'))
    throw new InvalidParamsError('The transaction mixes `gasPrice` with EIP-1559 fees.')
  if (eip1559 && tx.type === '0x0')
    throw new InvalidParamsError(
      'A legacy transaction (type 0x0) takes `gasPrice`, not EIP-1559 fees.',
    )
  const quantity = (value: string | undefined) => (value === undefined ? undefined : BigInt(value))
  const fees: Fees | undefined =
    tx.gasPrice !== undefined || tx.type === '0x0'
      ? { type: 'legacy', gasPrice: quantity(tx.gasPrice) }
      : eip1559 || tx.type === '0x2'
        ? {
            type: 'eip1559',
            maxFeePerGas: quantity(tx.maxFeePerGas),
            maxPriorityFeePerGas: quantity(tx.maxPriorityFeePerGas),
          }
        : undefined
  return {
    ...(tx.to ? { to: tx.to } : {}),
    ...(tx.value === undefined ? {} : { value: BigInt(tx.value) }),
    ...(data === undefined ? {} : { data: data.toLowerCase() as Hex }),
    ...(gas === undefined ? {} : { gas: BigInt(gas) }),
    ...(tx.nonce === undefined ? {} : { nonce: BigInt(tx.nonce) }),
    ...(fees === undefined ? {} : { fees }),
  }
}

export type FilledFees =
  | { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  | { type: 'legacy'; gasPrice: bigint }

/**
 * The fees to sign with: what the site gave, the rest from the node. EIP-1559
 * by default (twice the latest base fee plus the node's priority fee); legacy
 * when asked for, or when the network has no base fee. Our rule, not viem's
 * `estimateFeesPerGas` (1.2 times the base fee; a priority fee guessed from the
 * gas price when the node does not give one; an error, not a cap, for a
 * maximum fee below the priority fee).
 */
export async function fillFees(client: EvmClient, fees: Fees | undefined): Promise<FilledFees> {
  if (fees?.type === 'legacy')
    return { type: 'legacy', gasPrice: fees.gasPrice ?? (await viaViem(getGasPrice(client))) }
  const given = fees ?? { type: 'eip1559' }
  const priority = given.maxPriorityFeePerGas ?? (await maxPriorityFeePerGas(client))
  if (given.maxFeePerGas !== undefined) {
    const max = given.maxFeePerGas
    // The priority fee never exceeds the maximum fee.
    // biome-ignore lint/complexity/useMathMinMax: bigints, which Math.min does not take
    const capped = priority > max ? max : priority
    return { type: 'eip1559', maxFeePerGas: max, maxPriorityFeePerGas: capped }
  }
  const { baseFeePerGas } = await viaViem(getBlock(client, { blockTag: 'latest' }))
  if (baseFeePerGas === null) {
    // No base fee: a network without EIP-1559, unless the site asked for it.
    if (fees?.type === 'eip1559') throw new Eip1559NotSupportedError()
    return { type: 'legacy', gasPrice: await viaViem(getGasPrice(client)) }
  }
  const maxFeePerGas = baseFeePerGas * 2n + priority
  // A node's base fee near 2²⁵⁶ would show an approval that can never be signed.
  if (maxFeePerGas > maxUint256) throw new UnexpectedAnswerError('base fee')
  return { type: 'eip1559', maxFeePerGas, maxPriorityFeePerGas: priority }
}

/** The node's priority fee, as it answers it (no guess from the gas price when it does not). */
async function maxPriorityFeePerGas(client: EvmClient): Promise<bigint> {
  return hexToBigInt(await viaViem(client.request({ method: 'eth_maxPriorityFeePerGas' })))
}

/**
 * Fills `draft` for `account` on `chain`: the nonce (the given one, else
 * `nonce`, else the node's pending count), the gas (given, else estimated)
 * and `fees`. Nothing is signed.
 */
export async function fillTransaction(
  client: EvmClient,
  draft: Draft,
  context: { account: string; chain: number; fees: FilledFees; nonce?: bigint | undefined },
): Promise<Filled> {
  const { account, chain, fees } = context
  const from = getAddress(account)
  const to = draft.to === undefined ? undefined : getAddress(draft.to)
  const data = draft.data ?? '0x'
  const [nonce, gas] = await Promise.all([
    draft.nonce ?? context.nonce ?? pendingNonce(client, from),
    draft.gas ??
      viaViem(
        estimateGas(client, {
          account: from,
          ...(to ? { to } : {}),
          value: draft.value ?? 0n,
          data,
          prepare: false,
        }),
      ),
  ])
  if (nonce > maxNonce) throw new UnexpectedAnswerError('nonce')
  return {
    type: fees.type === 'legacy' ? '0x0' : '0x2',
    chainId: numberToHex(chain),
    from,
    ...(to ? { to } : {}),
    value: numberToHex(draft.value ?? 0n),
    data,
    nonce: numberToHex(nonce),
    gas: numberToHex(gas),
    ...(fees.type === 'legacy'
      ? { gasPrice: numberToHex(fees.gasPrice) }
      : {
          maxFeePerGas: numberToHex(fees.maxFeePerGas),
          maxPriorityFeePerGas: numberToHex(fees.maxPriorityFeePerGas),
        }),
  }
}

/** The node's count of `address`'s transactions, pending ones included: its next nonce. */
export async function pendingNonce(client: EvmClient, address: Hex): Promise<bigint> {
  return BigInt(await viaViem(getTransactionCount(client, { address, blockTag: 'pending' })))
}

/** `filled` as viem signs it: every field from `filled`, nothing else. */
export function toSerializable(filled: Filled): TransactionSerializable {
  const common = {
    chainId: Number(BigInt(filled.chainId)),
    nonce: Number(BigInt(filled.nonce)),
    gas: BigInt(filled.gas),
    value: BigInt(filled.value),
    data: filled.data,
    ...(filled.to === undefined ? {} : { to: filled.to as Hex }),
  }
  if (filled.type === '0x0') {
    if (filled.gasPrice === undefined) throw new InvalidParamsError('No gas price to sign with.')
    return { ...common, type: 'legacy', gasPrice: BigInt(filled.gasPrice) }
  }
  if (filled.maxFeePerGas === undefined || filled.maxPriorityFeePerGas === undefined)
    throw new InvalidParamsError('No fees to sign with.')
  return {
    ...common,
    type: 'eip1559',
    maxFeePerGas: BigInt(filled.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(filled.maxPriorityFeePerGas),
  }
}
