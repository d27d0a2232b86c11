import { evmProxyMethods } from '@porthole/protocol/EmbeddedRpc'
import type { Context } from 'hono'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { z } from 'zod'
import type { Config } from '../config.js'
import type { Db } from '../db/db.js'
import { HttpError, type HttpErrorStatus } from '../errors.js'
import { commonQuery, describeIssues, readQuery, requireProject } from '../http.js'
import { Caip2 } from '../schemas.js'

/** Largest JSON-RPC body accepted (a raw transaction fits many times over). */
export const maxRpcBodyBytes = 512 * 1024
/** Most requests in one batch. */
export const maxBatchSize = 20
/** Largest upstream answer passed on. */
export const maxRpcResponseBytes = 16 * 1024 * 1024
export const defaultRpcTimeoutMs = 15_000

/** JSON-RPC 2.0 error codes used by the proxy. */
export const RpcErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
} as const

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
 * Solana reads a wallet uses, and `sendTransaction` (signed elsewhere). No
 * `requestAirdrop` (it spends the node's faucet).
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
  if (!parsed.success) return { code: RpcErrorCode.internal, message: upstreamErrorMessage }
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
  ) {
    super(status, 'rpc_error', message)
    this.rpcCode = rpcCode
    this.id = id
  }
}

/** `POST /v1/?chainId=&projectId=`: JSON-RPC proxy to the configured upstream of the chain. */
export function createRpcRoutes({
  db,
  config,
  rpcTimeoutMs = defaultRpcTimeoutMs,
}: {
  db: Db
  config: Config
  rpcTimeoutMs?: number | undefined
}): Hono {
  const app = new Hono()
  const limit = bodyLimit({
    maxSize: maxRpcBodyBytes,
    onError: (c) =>
      rpcError(
        c,
        new RpcProxyError(
          413,
          RpcErrorCode.invalidRequest,
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
          new RpcProxyError(error.status, RpcErrorCode.invalidParams, error.shortMessage),
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
        RpcErrorCode.invalidParams,
        `Invalid query: ${describeIssues(query.error)}`,
      )
    }
    const { chainId } = query.data
    // Checked before the upstream, so a project learns nothing of the
    // operator's other upstreams (kept for Farcaster or SIWX checks, perhaps paid).
    if (!project.networks.includes(chainId)) {
      throw new RpcProxyError(
        403,
        RpcErrorCode.invalidParams,
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
        RpcErrorCode.invalidParams,
        `Unsupported chain '${chainId}': this server has no RPC endpoint for it`,
      )
    }

    const text = await c.req.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      throw new RpcProxyError(
        400,
        RpcErrorCode.parseError,
        'Parse error: the body is not valid JSON',
      )
    }
    // Parsed by shape, so the error names the field at fault.
    const body = Array.isArray(json) ? RpcBatch.safeParse(json) : RpcRequest.safeParse(json)
    if (!body.success) {
      throw new RpcProxyError(
        400,
        RpcErrorCode.invalidRequest,
        `Invalid JSON-RPC request: ${describeIssues(body.error)}`,
        idOf(json),
      )
    }
    const requests = Array.isArray(body.data) ? body.data : [body.data]
    for (const request of requests) {
      if (!isMethodAllowed(chainId, request.method)) {
        throw new RpcProxyError(
          400,
          RpcErrorCode.methodNotFound,
          `The method '${request.method}' is not available through this RPC endpoint`,
          request.id ?? null,
        )
      }
    }

    const id = Array.isArray(body.data) ? null : (body.data.id ?? null)
    const unavailable = `The RPC endpoint for ${chainId} is unavailable; try again later`
    let response: Response
    try {
      // The validated object, re-serialised: never the client's text, so a
      // duplicated key is forwarded as the one value it was judged by.
      response = await fetch(upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body.data),
        redirect: 'error',
        signal: AbortSignal.timeout(rpcTimeoutMs),
      })
    } catch (error) {
      if (error instanceof Error && error.name === 'TimeoutError') {
        throw new RpcProxyError(
          504,
          RpcErrorCode.internal,
          `The RPC endpoint for ${chainId} did not answer in time; try again later`,
          id,
        )
      }
      throw new RpcProxyError(502, RpcErrorCode.internal, unavailable, id)
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {})
      throw new RpcProxyError(
        502,
        RpcErrorCode.internal,
        `The RPC endpoint for ${chainId} failed (HTTP ${response.status}); try again later`,
        id,
      )
    }
    const answerText = await readLimited(response, maxRpcResponseBytes).catch(() => undefined)
    const answer = answerText === undefined ? undefined : parseAnswer(answerText)
    if (answer === undefined) {
      throw new RpcProxyError(
        502,
        RpcErrorCode.internal,
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

async function readLimited(response: Response, max: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? '0')
  if (declared > max) {
    await response.body?.cancel()
    return undefined
  }
  if (!response.body) return ''
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      await reader.cancel()
      return undefined
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}
