/**
 * EIP-5792 (the wallet call API, version 2.0.0) for the embedded wallet, an
 * EOA: a batch is checked strictly (SPEC 5, SECURITY.md 18) before anything
 * is shown, approved once as a whole, then sent as consecutive EIP-1559
 * transactions (nonces n, n+1, …), never atomically. The frame keeps the
 * last bundles it sent in the page's memory (id → network, account and
 * hashes) and answers their status from the receipts.
 */
import { ErrorCode, InvalidParamsError, RpcError } from '@porthole/protocol/Errors'
import { z } from '@porthole/protocol/zod'
import { bytesToHex, type Hex, numberToHex } from 'viem'
import { NotLoggedInError, UnexpectedAnswerError } from '../../lib/errors.js'
import type { Memory } from '../session.js'
import { Address, Data, Quantity } from './transaction.js'

/** The version of EIP-5792 this frame answers in. */
export const callsVersion = '2.0.0'
/** Most calls in one batch (as many as the approval UI lists). */
export const maxCalls = 32
/** Most bundles remembered; the oldest is forgotten first. */
export const maxBundles = 100
/** Longest bundle id an app may choose (EIP-5792: up to 4096 bytes). */
export const maxBundleIdLength = 4096

/** 5700: the batch asks for a capability this wallet lacks and does not mark it optional. */
export class UnsupportedCapabilityError extends RpcError {
  override name = 'UnsupportedCapabilityError'
  constructor(capability: string) {
    super(
      ErrorCode.unsupportedCapability,
      `Unsupported non-optional capability: ${capability.slice(0, 64)}`,
    )
  }
}

/** 5720: the app chose an id this frame already uses for another bundle. */
export class DuplicateBundleIdError extends RpcError {
  override name = 'DuplicateBundleIdError'
  constructor() {
    super(ErrorCode.duplicateBundleId, 'Duplicate bundle id')
  }
}

/** 5730: no bundle of this wallet has this id (never sent here, or forgotten). */
export class UnknownBundleError extends RpcError {
  override name = 'UnknownBundleError'
  constructor() {
    super(ErrorCode.unknownBundle, 'Unknown bundle id')
  }
}

/** 5760: the app requires atomic execution, which an EOA cannot give. */
export class AtomicityNotSupportedError extends RpcError {
  override name = 'AtomicityNotSupportedError'
  constructor() {
    super(ErrorCode.atomicityNotSupported, 'Atomic execution is not supported')
  }
}

const ChainId = z.string().check(z.regex(/^0x[0-9a-fA-F]{1,15}$/))
const Capabilities = z
  .record(z.string().check(z.minLength(1), z.maxLength(64)), z.unknown())
  .check(z.refine((capabilities) => Object.keys(capabilities).length <= 16, { error: 'too many' }))
const BundleId = z.string().check(z.minLength(1), z.maxLength(maxBundleIdLength))

/** One call of a batch (SPEC 5: `to` an 0x address, `data` 0x bytes if given). */
export const Call = z.strictObject({
  to: Address,
  value: z.optional(Quantity),
  data: z.optional(Data),
  capabilities: z.optional(Capabilities),
})
export type Call = z.infer<typeof Call>

/** `wallet_sendCalls`'s params. */
export const SendCallsParams = z.tuple([
  z.strictObject({
    version: z.string().check(z.minLength(1), z.maxLength(16)),
    id: z.optional(BundleId),
    chainId: ChainId,
    from: z.optional(Address),
    atomicRequired: z.optional(z.boolean()),
    calls: z.array(Call).check(z.minLength(1), z.maxLength(maxCalls)),
    capabilities: z.optional(Capabilities),
  }),
])
export type SendCalls = z.infer<typeof SendCallsParams>[0]

/** `wallet_getCallsStatus`'s params. */
export const GetCallsStatusParams = z.tuple([BundleId])

/** A batch, checked against the wallet: its account, network, atomicity and capabilities. */
export function parseSendCalls(
  params: unknown,
  wallet: { account: string; chain: number; chainId: string },
): SendCalls {
  const parsed = SendCallsParams.safeParse(params)
  if (!parsed.success) throw new InvalidParamsError('Invalid parameters for wallet_sendCalls.')
  const [batch] = parsed.data
  if (batch.from !== undefined && batch.from.toLowerCase() !== wallet.account.toLowerCase())
    throw new NotLoggedInError('The address is not this wallet’s account')
  if (BigInt(batch.chainId) !== BigInt(wallet.chain))
    throw new InvalidParamsError(`The calls are for chain ${batch.chainId}, not ${wallet.chainId}.`)
  if (batch.atomicRequired === true) throw new AtomicityNotSupportedError()
  for (const capabilities of [batch.capabilities, ...batch.calls.map((call) => call.capabilities)])
    assertOptional(capabilities)
  return batch
}

/** This wallet has no capability to offer: each one asked for must be marked optional. */
function assertOptional(capabilities: Record<string, unknown> | undefined): void {
  for (const [name, value] of Object.entries(capabilities ?? {})) {
    const optional =
      typeof value === 'object' && value !== null && (value as { optional?: unknown }).optional
    if (optional !== true) throw new UnsupportedCapabilityError(name)
  }
}

/** What `wallet_getCapabilities` answers for one network: no atomic batches. */
export function capabilitiesOf(): { atomic: { status: 'unsupported' } } {
  return { atomic: { status: 'unsupported' } }
}

// ---------------------------------------------------------------------------
// Bundles kept in memory

export type Bundle = {
  /** The CAIP-2 network the calls were sent on. */
  chainId: string
  /** The account that sent them. */
  account: string
  /** One hash per call sent, in order. */
  hashes: Hex[]
  /** False when sending stopped before the last call. */
  complete: boolean
}

const bundlesByMemory = new WeakMap<Memory, Map<string, Bundle>>()

function bundlesOf(memory: Memory): Map<string, Bundle> {
  let bundles = bundlesByMemory.get(memory)
  if (!bundles) {
    bundles = new Map()
    bundlesByMemory.set(memory, bundles)
  }
  return bundles
}

/** A new bundle id: 32 random bytes as hex. */
export function createBundleId(): Hex {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(32)))
}

/** 5720 when the app's chosen `id` is already taken. */
export function assertBundleIdFree(memory: Memory, id: string | undefined): void {
  if (id !== undefined && bundlesOf(memory).has(id)) throw new DuplicateBundleIdError()
}

/** Keeps `bundle` under `id`, forgetting the oldest beyond `maxBundles`. */
export function rememberBundle(memory: Memory, id: string, bundle: Bundle): void {
  const bundles = bundlesOf(memory)
  bundles.set(id, bundle)
  for (const oldest of bundles.keys()) {
    if (bundles.size <= maxBundles) break
    bundles.delete(oldest)
  }
}

/** The bundle `id` of `account`; 5730 for any other id. */
export function getBundle(memory: Memory, id: string, account: string): Bundle {
  const bundle = bundlesOf(memory).get(id)
  if (!bundle || bundle.account.toLowerCase() !== account.toLowerCase())
    throw new UnknownBundleError()
  return bundle
}

/**
 * Sends the calls one after another. A failure before anything was sent is
 * thrown; after, sending stops and what was sent is returned as incomplete
 * (the app follows it with `wallet_getCallsStatus`).
 */
export async function sendInOrder<call>(
  calls: readonly call[],
  send: (call: call, index: number) => Promise<Hex>,
): Promise<{ hashes: Hex[]; complete: boolean }> {
  const hashes: Hex[] = []
  for (const [index, call] of calls.entries()) {
    try {
      hashes.push(await send(call, index))
    } catch (error) {
      if (hashes.length === 0) throw error
      return { hashes, complete: false }
    }
  }
  return { hashes, complete: true }
}

const sending = new WeakMap<Memory, Promise<unknown>>()

/** Runs `send` once every earlier send of this frame has settled, so nonces never collide. */
export function inTurn<result>(memory: Memory, send: () => Promise<result>): Promise<result> {
  const previous = sending.get(memory) ?? Promise.resolve()
  const next = previous.then(send, send)
  sending.set(
    memory,
    next.catch(() => {}),
  )
  return next
}

// ---------------------------------------------------------------------------
// Status

/** EIP-5792's batch status codes. */
export const CallsStatus = {
  pending: 100,
  confirmed: 200,
  offchainFailure: 400,
  reverted: 500,
  partiallyReverted: 600,
} as const

const NodeReceipt = z.object({
  status: z.enum(['0x0', '0x1']),
  blockHash: z.string().check(z.regex(/^0x[0-9a-fA-F]{64}$/)),
  blockNumber: Quantity,
  gasUsed: Quantity,
  transactionHash: z.string().check(z.regex(/^0x[0-9a-fA-F]{64}$/)),
  logs: z
    .array(
      z.object({
        address: z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/)),
        data: z.string().check(z.regex(/^0x[0-9a-fA-F]*$/)),
        topics: z.array(z.string().check(z.regex(/^0x[0-9a-fA-F]{64}$/))).check(z.maxLength(4)),
      }),
    )
    .check(z.maxLength(100_000)),
})
export type Receipt = z.infer<typeof NodeReceipt>

/** EIP-5792's status of a bundle from the receipts of the calls sent (`undefined`: not mined yet). */
export function statusOf(receipts: readonly (Receipt | undefined)[], complete: boolean): number {
  if (receipts.length === 0) return CallsStatus.offchainFailure
  if (receipts.some((receipt) => receipt === undefined)) return CallsStatus.pending
  const succeeded = receipts.filter((receipt) => receipt?.status === '0x1').length
  if (complete && succeeded === receipts.length) return CallsStatus.confirmed
  if (succeeded === 0) return CallsStatus.reverted
  return CallsStatus.partiallyReverted
}

/** `wallet_getCallsStatus`'s answer for `bundle`, from its receipts through `rpc`. */
export async function getCallsStatus(
  id: string,
  bundle: Bundle,
  rpc: (method: string, params: unknown[]) => Promise<unknown>,
) {
  const receipts = await Promise.all(
    bundle.hashes.map(async (hash) => {
      const answer = await rpc('eth_getTransactionReceipt', [hash])
      if (answer === null || answer === undefined) return undefined
      const parsed = NodeReceipt.safeParse(answer)
      if (!parsed.success) throw new UnexpectedAnswerError('receipt')
      return parsed.data
    }),
  )
  return {
    version: callsVersion,
    id,
    chainId: numberToHex(Number(bundle.chainId.split(':')[1])),
    atomic: false,
    status: statusOf(receipts, bundle.complete),
    receipts: receipts
      .filter((receipt) => receipt !== undefined)
      .map(({ logs, status, blockHash, blockNumber, gasUsed, transactionHash }) => ({
        logs: logs.map(({ address, data, topics }) => ({ address, data, topics })),
        status,
        blockHash,
        blockNumber,
        gasUsed,
        transactionHash,
      })),
  }
}
