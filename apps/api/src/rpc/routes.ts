import { evmProxyMethods } from '@porthole/protocol/EmbeddedRpc'
import { ErrorCode } from '@porthole/protocol/Errors'
import type { Context } from 'hono'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import { type Config, defaults } from '../http/config.js'
import { HttpError, type HttpErrorStatus } from '../http/errors.js'
import { readLimited } from '../http/readLimited.js'
import { clientIp, clientPrefix, commonQuery, describeIssues, readQuery } from '../http/request.js'
import { Caip2 } from '../http/schemas.js'
import { requireProject } from '../projects/projects.js'
import {
  checkRpcCallLimits,
  countProjectBudget,
  createCallGate,
  defaultRpcLimits,
  type RpcLimits,
} from './limits.js'
import { judgeHeavyParams, strictParams } from './params.js'
import { boundSolanaParams } from './solanaParams.js'

export type { RpcLimits } from './limits.js'

/** Largest JSON-RPC body accepted (a raw transaction fits many times over). */
export const maxRpcBodyBytes = 512 * 1024
/** Most requests in one batch. */
export const maxBatchSize = 20
/**
 * Largest upstream answer passed on by default (`RPC_MAX_ANSWER_BYTES`): a
 * wallet's reads fit many times over. The answer is read as a stream and
 * refused once past it, the upstream's stream cancelled (SECURITY.md 24).
 */
export const maxRpcAnswerBytes: number = defaults.rpcMaxAnswerBytes
export const defaultRpcTimeoutMs = 15_000
/** How long a chain's head block, looked up to judge an eth_getLogs range, is reused. */
const headTtlMs = 2_000

const RpcQuery = z.strictObject({ ...commonQuery, chainId: Caip2 })

const RpcId = z.union([z.string().max(256), z.number(), z.null()])

export const RpcRequest = z.strictObject({
  jsonrpc: z.literal('2.0'),
  id: RpcId.optional(),
  method: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must be a method name'),
  params: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional(),
})
export type RpcRequest = z.infer<typeof RpcRequest>

export const RpcBatch = z.array(RpcRequest).min(1).max(maxBatchSize)

/** A single request or a bounded batch. */
export const RpcBody = z.union([RpcRequest, RpcBatch])

/** A JSON-RPC 2.0 error response, as the proxy answers its own errors. */
export const RpcErrorResponse = z.strictObject({
  jsonrpc: z.literal('2.0'),
  id: RpcId,
  error: z.strictObject({ code: z.number().int(), message: z.string() }),
})
export type RpcErrorResponse = z.infer<typeof RpcErrorResponse>

/**
 * Solana reads a wallet uses, and `sendTransaction` (signed elsewhere): what
 * web3.js's `Connection` and spl-token call (`getAccount` and `getMint` read
 * `getAccountInfo`; `confirmTransaction` polls `getSignatureStatuses` and
 * `getBlockHeight`, and subscribes over a WebSocket, which the proxy does not
 * serve). No `requestAirdrop` on any network, Solana Local included: it
 * spends the node's faucet (the dev accounts are funded at start-up). No
 * `getProgramAccounts`, `getBlock` or `getLargestAccounts`: whole-chain scans.
 */
export const solanaProxyMethods = [
  'getAccountInfo',
  'getBalance',
  'getBlockHeight',
  'getEpochInfo',
  'getFeeForMessage',
  'getGenesisHash',
  'getHealth',
  'getLatestBlockhash',
  'getMinimumBalanceForRentExemption',
  'getMultipleAccounts',
  'getRecentPrioritizationFees',
  'getSignatureStatuses',
  'getSignaturesForAddress',
  'getSlot',
  'getTokenAccountBalance',
  'getTokenAccountsByOwner',
  'getTransaction',
  'getVersion',
  'isBlockhashValid',
  'sendTransaction',
  'simulateTransaction',
] as const

/**
 * The exact methods the proxy forwards, per CAIP-2 namespace (SECURITY.md 24).
 * A namespace not named here gets nothing.
 */
const allowedMethods: Readonly<Record<string, ReadonlySet<string>>> = {
  eip155: new Set(evmProxyMethods),
  solana: new Set(solanaProxyMethods),
}

/** Whether the proxy forwards `method` for `chainId`: only a method on its namespace's list. */
export function isMethodAllowed(chainId: string, method: string): boolean {
  const namespace = chainId.split(':')[0] ?? ''
  if (!Object.hasOwn(allowedMethods, namespace)) return false
  return allowedMethods[namespace]?.has(method) ?? false
}

/** The text of every upstream error the proxy passes on, unless a safe class below names it. */
export const upstreamErrorMessage = 'The RPC endpoint answered with an error'

/**
 * Upstream error classes a wallet (viem's error parsing) needs by name. The
 * upstream's own text is never passed on: it is matched here and replaced by
 * this fixed text.
 */
const safeErrorClasses: readonly (readonly [RegExp, string])[] = [
  [/execution reverted/i, 'execution reverted'],
  [/nonce too low/i, 'nonce too low'],
  [/nonce too high/i, 'nonce too high'],
  [/insufficient funds/i, 'insufficient funds for gas * price + value'],
  [/intrinsic gas too low/i, 'intrinsic gas too low'],
  [/exceeds block gas limit/i, 'exceeds block gas limit'],
  [/max fee per gas less than block base fee/i, 'max fee per gas less than block base fee'],
  [/transaction underpriced/i, 'transaction underpriced'],
  [/replacement transaction underpriced/i, 'replacement transaction underpriced'],
  [/already known/i, 'already known'],
]

const UpstreamError = z.object({
  code: z.number().int(),
  message: z.unknown().optional(),
  data: z.unknown().optional(),
})

/**
 * The error of one upstream answer, cleaned: its code kept, its text replaced
 * by {@link upstreamErrorMessage} or a safe class's fixed text, its data
 * dropped except a revert's hex data (which viem decodes into the reason).
 */
function cleanError(error: unknown): { code: number; message: string; data?: string } {
  const parsed = UpstreamError.safeParse(error)
  if (!parsed.success) return { code: ErrorCode.internal, message: upstreamErrorMessage }
  const { code, message, data } = parsed.data
  const text = typeof message === 'string' ? message : ''
  const known = safeErrorClasses.findLast(([pattern]) => pattern.test(text))?.[1]
  if (
    known === 'execution reverted' &&
    typeof data === 'string' &&
    /^0x(?:[0-9a-f]{2})*$/i.test(data)
  ) {
    return { code, message: known, data }
  }
  return { code, message: known ?? upstreamErrorMessage }
}

/** One upstream answer with its error cleaned; anything else passes as it came. */
function cleanAnswer(answer: unknown): unknown {
  if (typeof answer !== 'object' || answer === null || !Object.hasOwn(answer, 'error')) {
    return answer
  }
  const { error, ...rest } = answer as { error: unknown }
  return { ...rest, error: cleanError(error) }
}

class RpcProxyError extends HttpError {
  override name = 'RpcProxyError'
  readonly rpcCode: number
  readonly id: string | number | null

  constructor(
    status: HttpErrorStatus,
    rpcCode: number,
    message: string,
    id: string | number | null = null,
    headers: Record<string, string> = {},
  ) {
    super(status, 'rpc_error', message, { headers })
    this.rpcCode = rpcCode
    this.id = id
  }
}

/** `2 MiB` for whole mebibytes, else bytes. */
function describeBytes(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024)
  return Number.isInteger(mebibytes) ? `${mebibytes} MiB` : `${bytes} bytes`
}

/**
 * `POST /v1/?chainId=&projectId=`: JSON-RPC proxy to the configured upstream
 * of the chain. In order: the project and its network, the body (strict, an
 * allow list, `eth_getLogs` filters rebuilt from their exact keys, heavy
 * parameters), the per-IP and per-prefix limits (tightened while the
 * project's budget is spent), the in-flight caps (process, IP, prefix, then a
 * fair per-project cap), then the upstream, whose answer is read up to
 * `config.rpcMaxAnswerBytes`.
 */
export function createRpcRoutes({
  db,
  config,
  rpcTimeoutMs = defaultRpcTimeoutMs,
  limits: limitOverrides,
  warn = () => undefined,
}: {
  db: Db
  config: Config
  rpcTimeoutMs?: number | undefined
  /** Smaller limits, for tests; `defaultRpcLimits` otherwise. */
  limits?: Partial<RpcLimits> | undefined
  /** Where the operator's warnings go (a spent project budget); the server logs them. */
  warn?: ((line: string) => void) | undefined
}): Hono {
  const app = new Hono()
  const limits: RpcLimits = { ...defaultRpcLimits, ...limitOverrides }
  // Per IP and prefix multiplied like the call limits: a test stack is all 127.0.0.1.
  const gate = createCallGate({
    ...limits,
    concurrentPerIp: limits.concurrentPerIp * config.ipLimitScale,
    concurrentPerPrefix: limits.concurrentPerPrefix * config.ipLimitScale,
  })
  const maxAnswerBytes = config.rpcMaxAnswerBytes
  /** The latest head block per chain, with when it was looked up. */
  const heads = new Map<string, { head: bigint; at: number }>()
  const limit = bodyLimit({
    maxSize: maxRpcBodyBytes,
    onError: (c) =>
      rpcError(
        c,
        new RpcProxyError(
          413,
          ErrorCode.invalidRequest,
          `The request body may be at most ${maxRpcBodyBytes} bytes`,
        ),
      ),
  })

  const handler = async (c: Context) => {
    try {
      return await proxy(c)
    } catch (error) {
      if (error instanceof RpcProxyError) return rpcError(c, error)
      if (error instanceof HttpError) {
        return rpcError(
          c,
          new RpcProxyError(error.status, ErrorCode.invalidParams, error.shortMessage),
        )
      }
      throw error
    }
  }

  const proxy = async (c: Context) => {
    const raw = readQuery(c)
    const project = await requireProject(db, raw.projectId)
    const query = RpcQuery.safeParse(raw)
    if (!query.success) {
      throw new RpcProxyError(
        400,
        ErrorCode.invalidParams,
        `Invalid query: ${describeIssues(query.error)}`,
      )
    }
    const { chainId } = query.data
    // Checked before the upstream, so a project learns nothing of the
    // operator's other upstreams (kept for Farcaster or SIWX checks, perhaps paid).
    if (!project.networks.includes(chainId)) {
      throw new RpcProxyError(
        403,
        ErrorCode.invalidParams,
        `The project '${project.id}' does not offer ${chainId}`,
        idOf(await c.req.json().catch(() => null)),
      )
    }
    const upstream = Object.hasOwn(config.rpcUpstreams, chainId)
      ? config.rpcUpstreams[chainId]
      : undefined
    if (upstream === undefined) {
      throw new RpcProxyError(
        400,
        ErrorCode.invalidParams,
        `Unsupported chain '${chainId}': this server has no RPC endpoint for it`,
      )
    }

    const text = await c.req.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      throw new RpcProxyError(400, ErrorCode.parseError, 'Parse error: the body is not valid JSON')
    }
    // Parsed by shape, so the error names the field at fault.
    const body = Array.isArray(json) ? RpcBatch.safeParse(json) : RpcRequest.safeParse(json)
    if (!body.success) {
      throw new RpcProxyError(
        400,
        ErrorCode.invalidRequest,
        `Invalid JSON-RPC request: ${describeIssues(body.error)}`,
        idOf(json),
      )
    }
    const requests: RpcRequest[] = []
    for (const request of Array.isArray(body.data) ? body.data : [body.data]) {
      if (!isMethodAllowed(chainId, request.method)) {
        throw new RpcProxyError(
          400,
          ErrorCode.methodNotFound,
          `The method '${request.method}' is not available through this RPC endpoint`,
          request.id ?? null,
        )
      }
      // For every project: a node reading keys case-insensitively gets only these;
      // a Solana node gets no more than a validator answers.
      const strict = chainId.startsWith('solana:')
        ? boundSolanaParams(request)
        : strictParams(request)
      if (strict.kind === 'refused') {
        throw new RpcProxyError(400, ErrorCode.invalidParams, strict.message, request.id ?? null)
      }
      requests.push(strict.request)
    }
    const needsHead = project.heavyRpc ? [] : judgeAll(requests, project.id)

    const id = Array.isArray(body.data) ? null : (body.data.id ?? null)
    await limitCalls(c, project.id, requests.length, id)
    const slot = gate.enter({
      projectId: project.id,
      clientIp: clientIp(c),
      clientPrefix: clientPrefix(c),
    })
    if ('full' in slot) {
      const where = {
        process: 'on this server',
        address: 'from this address',
        network: 'from this network',
        project: `for project '${project.id}' on this server`,
      }[slot.full]
      throw new RpcProxyError(
        429,
        ErrorCode.limitExceeded,
        `Too many RPC calls in progress ${where}; wait for one to finish and try again in a second`,
        id,
        { 'Retry-After': '1' },
      )
    }
    try {
      if (needsHead.length > 0) {
        const head = await headOf(chainId, upstream)
        if (head === undefined) {
          throw new RpcProxyError(
            502,
            ErrorCode.internal,
            `The RPC endpoint for ${chainId} did not give its latest block, so the eth_getLogs range cannot be checked: give numbered fromBlock and toBlock, or try again later`,
            id,
          )
        }
        judgeAll(needsHead, project.id, head)
      }
      const payload = JSON.stringify(Array.isArray(body.data) ? requests : requests[0])
      return await forward(c, { chainId, upstream, id, payload })
    } finally {
      slot.leave()
    }
  }

  /**
   * Refuses the first heavy request (SECURITY.md 24) with -32602; returns the
   * eth_getLogs requests that need the chain's head to be judged.
   */
  const judgeAll = (requests: readonly RpcRequest[], projectId: string, head?: bigint) => {
    const needsHead: RpcRequest[] = []
    for (const request of requests) {
      const verdict = judgeHeavyParams(request, projectId, head)
      if (verdict.kind === 'needs-head') needsHead.push(request)
      if (verdict.kind === 'refused') {
        throw new RpcProxyError(400, ErrorCode.invalidParams, verdict.message, request.id ?? null)
      }
    }
    return needsHead
  }

  /** The chain's head block number, cached briefly; undefined when the upstream does not say. */
  const headOf = async (chainId: string, upstream: string): Promise<bigint | undefined> => {
    const cached = heads.get(chainId)
    if (cached && Date.now() - cached.at < headTtlMs) return cached.head
    try {
      const response = await fetch(upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] }),
        redirect: 'error',
        signal: AbortSignal.timeout(rpcTimeoutMs),
      })
      const text = await readLimited(response, 1024)
      const result = text.kind === 'text' ? parseAnswer(text.text) : undefined
      const head = (result as { result?: unknown } | undefined)?.result
      if (typeof head !== 'string' || !/^0x[0-9a-fA-F]{1,16}$/.test(head)) return undefined
      heads.set(chainId, { head: BigInt(head), at: Date.now() })
      return BigInt(head)
    } catch {
      return undefined
    }
  }

  /** Counts the calls against the client's limits, or refuses them with 429 and -32005. */
  const limitCalls = async (
    c: Context,
    projectId: string,
    calls: number,
    id: string | number | null,
  ) => {
    const verdict = await checkRpcCallLimits(db, {
      projectId,
      clientIp: clientIp(c),
      clientPrefix: clientPrefix(c),
      calls,
      limits,
      ipLimitScale: config.ipLimitScale,
    })
    if (verdict.refused) {
      const from = verdict.bucket === 'address' ? 'this address' : 'this network'
      const tightened = verdict.tightened
        ? ` while project '${projectId}' is over its shared budget`
        : ''
      throw new RpcProxyError(
        429,
        ErrorCode.limitExceeded,
        `Too many RPC calls from ${from}: at most ${verdict.limit} every ${verdict.windowSeconds} seconds${tightened}. Try again in ${verdict.retryAfterSeconds} seconds.`,
        id,
        { 'Retry-After': String(verdict.retryAfterSeconds) },
      )
    }
    const { firstInWindow } = await countProjectBudget(db, { projectId, calls, limits })
    if (firstInWindow) {
      const { limit, windowSeconds } = limits.projectBudget
      warn(
        `RPC budget of project '${projectId}' is spent: ${limit} calls in ${windowSeconds} s from every address together. Its per-IP and per-prefix limits are divided by ${limits.spentBudgetDivisor} until it recovers; see npm run project -- usage --id ${projectId}`,
      )
    }
  }

  /** Sends the validated requests upstream and answers with the cleaned, bounded answer. */
  const forward = async (
    c: Context,
    {
      chainId,
      upstream,
      id,
      payload,
    }: { chainId: string; upstream: string; id: string | number | null; payload: string },
  ) => {
    const unavailable = `The RPC endpoint for ${chainId} is unavailable; try again later`
    let response: Response
    try {
      // The validated object, re-serialised: never the client's text, so a
      // duplicated key is forwarded as the one value it was judged by.
      response = await fetch(upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: payload,
        redirect: 'error',
        signal: AbortSignal.timeout(rpcTimeoutMs),
      })
    } catch (error) {
      if (error instanceof Error && error.name === 'TimeoutError') {
        throw new RpcProxyError(
          504,
          ErrorCode.internal,
          `The RPC endpoint for ${chainId} did not answer in time; try again later`,
          id,
        )
      }
      throw new RpcProxyError(502, ErrorCode.internal, unavailable, id)
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {})
      throw new RpcProxyError(
        502,
        ErrorCode.internal,
        `The RPC endpoint for ${chainId} failed (HTTP ${response.status}); try again later`,
        id,
      )
    }
    const read = await readLimited(response, maxAnswerBytes).catch(() => undefined)
    if (read?.kind === 'too-large') {
      throw new RpcProxyError(
        502,
        ErrorCode.internal,
        `The answer of the RPC endpoint for ${chainId} is larger than ${describeBytes(maxAnswerBytes)}, the most this proxy passes on: ask for less (a narrower eth_getLogs range, fewer calls in a batch)`,
        id,
      )
    }
    const answer = read === undefined ? undefined : parseAnswer(read.text)
    if (answer === undefined) {
      throw new RpcProxyError(
        502,
        ErrorCode.internal,
        `The RPC endpoint for ${chainId} sent an invalid answer; try again later`,
        id,
      )
    }
    c.header('Cache-Control', 'no-store')
    const cleaned = Array.isArray(answer) ? answer.map(cleanAnswer) : cleanAnswer(answer)
    return c.body(JSON.stringify(cleaned), 200, { 'Content-Type': 'application/json' })
  }

  app.post('/v1', limit, handler)
  app.post('/v1/', limit, handler)
  return app
}

function rpcError(c: Context, error: RpcProxyError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value)
  const body: RpcErrorResponse = {
    jsonrpc: '2.0',
    id: error.id,
    error: { code: error.rpcCode, message: error.shortMessage },
  }
  return c.json(body, error.status)
}

/** The id of a single request, when it has a usable one. */
function idOf(json: unknown): string | number | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null
  const id = RpcId.safeParse((json as { id?: unknown }).id)
  return id.success ? id.data : null
}

/** The upstream's answer when it is a JSON object or array. */
function parseAnswer(text: string): object | undefined {
  try {
    const json: unknown = JSON.parse(text)
    return typeof json === 'object' && json !== null ? json : undefined
  } catch {
    return undefined
  }
}
