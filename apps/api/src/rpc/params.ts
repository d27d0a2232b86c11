/**
 * Heavy parameters of the RPC proxy (SECURITY.md 24): a few hundred bytes of
 * request that make a node work hard or answer megabytes. Refused unless the
 * project turned them on (`heavyRpc`, `npm run project -- set-features
 * --heavy-rpc true`):
 *
 * - state overrides (`eth_call`'s and `eth_estimateGas`'s third parameter)
 *   and block overrides (`eth_call`'s fourth): any contract code, returning
 *   as much as the gas allows;
 * - `eth_call` and `eth_estimateGas` with more than {@link maxCallGas} gas:
 *   a loop that keeps a node (and a proxy slot) busy for seconds;
 * - `eth_getLogs` over more than {@link maxLogsBlockRange} blocks, or from
 *   `earliest`, `safe` or `finalized` to another tag. A `blockHash` filter is
 *   one block.
 *
 * These methods' parameters must also be positional, so no node reads an
 * override by name. Nodes written in Go read JSON keys case-insensitively
 * (the last match wins), so `eth_getLogs`'s filter is rebuilt from its exact
 * keys for every project ({@link strictParams}), and a transaction's `gas` must
 * be spelled exactly.
 */
import { z } from 'zod'
import { describeIssues } from '../http/request.js'
import type { RpcRequest } from './routes.js'

/** The widest `eth_getLogs` block range forwarded for a project without heavy calls. */
export const maxLogsBlockRange = 1000

/** The most addresses, or alternatives of one topic, in an `eth_getLogs` filter. */
const maxFilterEntries = 1000

/**
 * The most gas an `eth_call` or `eth_estimateGas` may ask for, for a project
 * without heavy calls: geth's own default cap (`--rpc.gascap`), plenty for any
 * wallet's call. Without `gas` the node applies its own cap.
 */
export const maxCallGas = 50_000_000n

/** The `eth_call` and `eth_estimateGas` parameters after the transaction and the block. */
const overrideMethods: ReadonlySet<string> = new Set(['eth_call', 'eth_estimateGas'])

/** Tags at (or next to) the chain's head. */
const headTags: ReadonlySet<string> = new Set(['latest', 'pending'])
/** Tags some way behind the head, how far only the node knows (hours on some L2s). */
const laggingTags: ReadonlySet<string> = new Set(['safe', 'finalized'])
const quantity = /^0x(?:0|[1-9a-fA-F][0-9a-fA-F]{0,15})$/

/** A request's heavy parameters, judged. */
export type HeavyParams =
  /** Nothing heavy. */
  | { kind: 'light' }
  /** Refused: the message says what to do. */
  | { kind: 'refused'; message: string }
  /** An eth_getLogs range with one end at the head: judged again once the head is known. */
  | { kind: 'needs-head' }

/**
 * One end of an eth_getLogs range. A lagging end (`safe`, `finalized`) is
 * somewhere between block 0 and the head.
 */
type End =
  | { kind: 'number'; value: bigint }
  | { kind: 'earliest' }
  | { kind: 'head' }
  | { kind: 'lagging'; tag: string }

function readEnd(value: unknown): End | undefined {
  if (value === undefined || value === null) return { kind: 'head' }
  if (typeof value !== 'string') return undefined
  if (value === 'earliest') return { kind: 'earliest' }
  if (headTags.has(value)) return { kind: 'head' }
  if (laggingTags.has(value)) return { kind: 'lagging', tag: value }
  if (quantity.test(value)) return { kind: 'number', value: BigInt(value) }
  return undefined
}

const turnOn = (projectId: string) =>
  `have the operator turn heavy calls on (npm run project -- set-features --id ${projectId} --heavy-rpc true)`

/**
 * Judges one request for a project without heavy calls. `head` is the
 * chain's latest block number, when the caller has looked it up.
 */
export function judgeHeavyParams(
  request: RpcRequest,
  projectId: string,
  head?: bigint | undefined,
): HeavyParams {
  const { method, params } = request
  if (!overrideMethods.has(method) && method !== 'eth_getLogs') return { kind: 'light' }
  if (params !== undefined && !Array.isArray(params)) {
    return { kind: 'refused', message: `The params of ${method} must be an array` }
  }
  const list = params ?? []
  if (overrideMethods.has(method)) {
    if (list.slice(2).some((param) => param !== null)) {
      return {
        kind: 'refused',
        message: `State and block overrides are off for project '${projectId}': call ${method} without them, or ${turnOn(projectId)}`,
      }
    }
    return judgeGas(method, list[0], projectId)
  }
  return judgeLogsRange(list[0], projectId, head)
}

/** Go's simple case folding of ASCII letters (`ſ` is an `s`, the Kelvin sign a `k`). */
const foldKey = (key: string) =>
  key
    .replace(/\u017f/g, 's')
    .replace(/\u212a/g, 'k')
    .toLowerCase()

function judgeGas(method: string, transaction: unknown, projectId: string): HeavyParams {
  if (typeof transaction !== 'object' || transaction === null || Array.isArray(transaction)) {
    // Not a transaction: the node refuses it.
    return { kind: 'light' }
  }
  const fields = transaction as Record<string, unknown>
  const misspelt = Object.keys(fields).find((key) => key !== 'gas' && foldKey(key) === 'gas')
  if (misspelt !== undefined) {
    return {
      kind: 'refused',
      message: `The transaction of ${method} has a key '${misspelt}': spell it 'gas'`,
    }
  }
  if (!Object.hasOwn(fields, 'gas') || fields.gas === null) return { kind: 'light' }
  const { gas } = fields
  if (typeof gas !== 'string' || !quantity.test(gas)) {
    return { kind: 'refused', message: `The gas of ${method} must be a hex quantity, e.g. 0x5208` }
  }
  if (BigInt(gas) > maxCallGas) {
    return {
      kind: 'refused',
      message: `The gas of ${method} may be at most ${maxCallGas} for project '${projectId}': ask for less, leave it out (the node applies its own cap), or ${turnOn(projectId)}`,
    }
  }
  return { kind: 'light' }
}

function judgeLogsRange(filter: unknown, projectId: string, head: bigint | undefined): HeavyParams {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    // Not a filter: the node refuses it.
    return { kind: 'light' }
  }
  const { blockHash, fromBlock, toBlock } = filter as Record<string, unknown>
  if (blockHash !== undefined && fromBlock === undefined && toBlock === undefined) {
    return { kind: 'light' }
  }
  const tooWide = (what: string): HeavyParams => ({
    kind: 'refused',
    message: `eth_getLogs may span at most ${maxLogsBlockRange} blocks for project '${projectId}' (${what}): ask for a narrower range, with numbered fromBlock and toBlock, or by blockHash, or ${turnOn(projectId)}`,
  })
  const from = readEnd(fromBlock)
  const to = readEnd(toBlock)
  if (from === undefined || to === undefined) {
    return {
      kind: 'refused',
      message:
        'The fromBlock and toBlock of eth_getLogs must be hex block numbers or block tags (earliest, latest, pending, safe, finalized)',
    }
  }
  if (from.kind === 'head' && to.kind === 'head') return { kind: 'light' }
  if (from.kind === 'lagging' && to.kind === 'lagging' && from.tag === to.tag) {
    return { kind: 'light' }
  }
  const kinds = new Set([from.kind, to.kind])
  if (kinds.has('earliest') && kinds.has('head')) return tooWide('from earliest to the head')
  if (kinds.has('lagging') && !kinds.has('number')) {
    // safe or finalized to a different tag: how far apart only the node knows.
    return tooWide('from safe or finalized to another tag, which may be any number of blocks')
  }
  const needsHead = kinds.has('head') || kinds.has('lagging')
  if (needsHead && head === undefined) return { kind: 'needs-head' }
  // Each end as the blocks it may be: a lagging one anywhere from 0 to the head.
  const blocksOf = (end: End): [bigint, bigint] =>
    end.kind === 'number'
      ? [end.value, end.value]
      : end.kind === 'earliest'
        ? [0n, 0n]
        : end.kind === 'head'
          ? [head ?? 0n, head ?? 0n]
          : [0n, head ?? 0n]
  const [fromLow, fromHigh] = blocksOf(from)
  const [toLow, toHigh] = blocksOf(to)
  const distance = (a: bigint, b: bigint) => (a >= b ? a - b : b - a)
  // The widest the range may be, whichever blocks the ends turn out to be.
  const spans = [distance(fromHigh, toLow), distance(toHigh, fromLow)].sort((a, b) =>
    a < b ? 1 : -1,
  )
  const span = spans[0] ?? 0n
  if (span + 1n > BigInt(maxLogsBlockRange)) return tooWide(`this one may span ${span + 1n} blocks`)
  return { kind: 'light' }
}

/** Hex data: a block hash, an address or a topic. */
const hexData = z
  .string()
  .regex(/^0x[0-9a-fA-F]*$/, 'must be hex data')
  .max(66)
const blockEnd = z.union([z.string().max(66), z.null()]).optional()
/**
 * The filter of `eth_getLogs`: exactly these keys, so no other spelling of a
 * key reaches a node that would read it case-insensitively.
 */
const LogsFilter = z.strictObject({
  blockHash: hexData.optional(),
  fromBlock: blockEnd,
  toBlock: blockEnd,
  address: z.union([hexData, z.array(hexData).max(maxFilterEntries), z.null()]).optional(),
  topics: z
    .array(
      z.union([hexData, z.null(), z.array(z.union([hexData, z.null()])).max(maxFilterEntries)]),
    )
    .max(4)
    .optional(),
})

/**
 * The request as the proxy forwards it, for every project: `eth_getLogs`'s
 * parameters rebuilt as `[filter]` from the filter's exact keys (SECURITY.md
 * 24), anything else as it was validated. A filter with any other key is
 * refused with a message that says which keys it may have.
 */
export function strictParams(
  request: RpcRequest,
): { kind: 'request'; request: RpcRequest } | { kind: 'refused'; message: string } {
  if (request.method !== 'eth_getLogs') return { kind: 'request', request }
  const params = z.tuple([LogsFilter]).safeParse(request.params)
  if (!params.success) {
    return {
      kind: 'refused',
      message: `The params of eth_getLogs must be [filter], and the eth_getLogs filter may only have the keys blockHash, fromBlock, toBlock, address, topics, spelled exactly: ${describeIssues(params.error)}`,
    }
  }
  const [filter] = params.data
  const rebuilt: Record<string, unknown> = {}
  for (const key of ['blockHash', 'fromBlock', 'toBlock', 'address', 'topics'] as const) {
    if (filter[key] !== undefined) rebuilt[key] = filter[key]
  }
  return { kind: 'request', request: { ...request, params: [rebuilt] } }
}
