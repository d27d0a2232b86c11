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
 * Methods an EVM node answers that must not be reachable through a public
 * proxy: they use the node's own accounts (a dev node has unlocked ones).
 */
const evmDenied = new Set([
  'eth_accounts',
  'eth_requestAccounts',
  'eth_coinbase',
  'eth_sendTransaction',
  'eth_sign',
  'eth_signTransaction',
  'eth_signTypedData',
  'eth_signTypedData_v1',
  'eth_signTypedData_v3',
  'eth_signTypedData_v4',
])

/**
 * Whether the proxy forwards `method` for `chainId`. EVM chains get the
 * standard `eth_`, `net_` and `web3_` namespaces minus the node-account
 * methods (so no `anvil_*`, `debug_*`, `admin_*`, `personal_*`); other
 * namespaces (Solana) are forwarded as named.
 */
export function isMethodAllowed(chainId: string, method: string): boolean {
  if (!chainId.startsWith('eip155:')) return true
  return /^(eth|net|web3)_/.test(method) && !evmDenied.has(method)
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
    await requireProject(db, raw.projectId)
    const query = RpcQuery.safeParse(raw)
    if (!query.success) {
      throw new RpcProxyError(
        400,
        RpcErrorCode.invalidParams,
        `Invalid query: ${describeIssues(query.error)}`,
      )
    }
    const { chainId } = query.data
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
      // The validated body is forwarded as the client wrote it.
      response = await fetch(upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: text,
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
    const answer = await readLimited(response, maxRpcResponseBytes).catch(() => undefined)
    if (answer === undefined || !isJsonRpcAnswer(answer)) {
      throw new RpcProxyError(
        502,
        RpcErrorCode.internal,
        `The RPC endpoint for ${chainId} sent an invalid answer; try again later`,
        id,
      )
    }
    c.header('Cache-Control', 'no-store')
    return c.body(answer, 200, { 'Content-Type': 'application/json' })
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

function isJsonRpcAnswer(text: string): boolean {
  try {
    const json: unknown = JSON.parse(text)
    return typeof json === 'object' && json !== null
  } catch {
    return false
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
