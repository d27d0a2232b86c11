/**
 * An approval request and the hash that binds an approval to it (SECURITY.md
 * 6). The hash is SHA-256 over the canonical JSON of `{ method, params,
 * chainId, account, origin, tokens }`: object keys sorted, no white space, so
 * the same request always gives the same hash and any change to what is
 * signed, where, by whom, for whom or how its amounts read gives another.
 *
 * `params` are the normalised params (SECURITY.md 20): the exact object the
 * frame signs once approved, not the params as the site sent them.
 */

import { sha256 } from '@noble/hashes/sha2'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils'
import { caip2Pattern } from '@porthole/protocol/Caip'
import { approvalMethods } from '@porthole/protocol/EmbeddedRpc'
import { z } from '@porthole/protocol/zod'
import { BaseError } from '../lib/errors.js'

/** Longest canonical JSON accepted for one request (1 MiB): more is refused, never shown in part. */
export const maxRequestLength = 1_048_576

/** Deepest nesting accepted in `params`. */
export const maxDepth = 64

/** Most tokens whose details one request carries (a batch has at most 32 calls). */
export const maxTokens = 32

/** An ERC-20's symbol and decimals as read from the chain, to show its amounts in its own units. */
export const Token = z.strictObject({
  address: z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/)),
  symbol: z.string().check(z.minLength(1), z.maxLength(32), z.regex(/^[\p{L}\p{N}\p{P}\p{S} ]+$/u)),
  decimals: z.number().check(z.int(), z.minimum(0), z.maximum(77)),
})
export type Token = z.infer<typeof Token>

/**
 * What the frame asks approval for that is not an RPC of the wallet: the
 * change of the account's email (`updateEmail`, params `{ from, to }`), which
 * moves its login and recovery, so a host that covers the widget must not be
 * able to make it (SECURITY.md 7 and 23).
 */
export const frameApprovalMethods = ['updateEmail'] as const
export type FrameApprovalMethod = (typeof frameApprovalMethods)[number]

/** Every method an approval may be for: the RPCs that need one, and the frame's own. */
export const ApprovalMethod = z.enum([...approvalMethods, ...frameApprovalMethods])
export type ApprovalMethod = z.infer<typeof ApprovalMethod>

/**
 * What the frame's handlers ask the user to approve. `origin` is the host
 * origin as the browser reported it (SECURITY.md 8); `site` is whatever the
 * host said about itself, shown only as 'Provided by the site'.
 */
export const ApprovalRequest = z.strictObject({
  method: ApprovalMethod,
  /** The JSON-RPC params, normalised (or the frame's own, for its own methods); any JSON value. */
  params: z.unknown(),
  /** CAIP-2, e.g. `eip155:31337`. */
  chainId: z.string().check(z.regex(caip2Pattern)),
  /** The address that will sign. */
  account: z.string().check(z.minLength(1), z.maxLength(128)),
  /** The host origin, browser-derived. */
  origin: z.string().check(z.minLength(1), z.maxLength(2048)),
  /** The network's display name, when known. */
  chainName: z.optional(z.string().check(z.maxLength(64))),
  /** The ERC-20s the request calls, as read from the chain; a token missing here shows raw units. */
  tokens: z.optional(z.array(Token).check(z.maxLength(maxTokens))),
  /** Host-supplied metadata (SECURITY.md 8). */
  site: z.optional(
    z.strictObject({
      name: z.optional(z.string().check(z.maxLength(128))),
      icon: z.optional(z.string().check(z.maxLength(65_536))),
    }),
  ),
})
export type ApprovalRequest = z.infer<typeof ApprovalRequest>

/** A request whose params are not plain JSON (a cycle, a function, a bigint), too deep or too large. */
export class UnhashableRequestError extends BaseError {
  override name = 'UnhashableRequestError'
}

function write(value: unknown, depth: number, out: string[], seen: Set<object>): void {
  if (depth > maxDepth) throw new UnhashableRequestError('The request is nested too deeply.')
  if (value === null) return void out.push('null')
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return void out.push(JSON.stringify(value))
    case 'number':
      // As JSON.stringify: NaN and the infinities become null.
      return void out.push(JSON.stringify(value))
    case 'object':
      break
    default:
      throw new UnhashableRequestError(`The request holds a ${typeof value}, which is not JSON.`)
  }
  if (seen.has(value)) throw new UnhashableRequestError('The request refers to itself.')
  seen.add(value)
  if (Array.isArray(value)) {
    out.push('[')
    value.forEach((item, index) => {
      if (index > 0) out.push(',')
      // As JSON.stringify: a missing array item is null.
      write(item === undefined ? null : item, depth + 1, out, seen)
    })
    out.push(']')
  } else {
    const prototype = Object.getPrototypeOf(value)
    if (prototype !== Object.prototype && prototype !== null)
      throw new UnhashableRequestError('The request holds an object that is not plain JSON.')
    const keys = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
    out.push('{')
    keys.forEach((key, index) => {
      if (index > 0) out.push(',')
      out.push(JSON.stringify(key), ':')
      write((value as Record<string, unknown>)[key], depth + 1, out, seen)
    })
    out.push('}')
  }
  seen.delete(value)
}

/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no white space,
 * `undefined` members left out (as JSON does). Throws `UnhashableRequestError`
 * for anything that is not plain JSON or is larger than `maxRequestLength`.
 */
export function toCanonicalJson(value: unknown): string {
  const out: string[] = []
  write(value, 0, out, new Set())
  const json = out.join('')
  if (json.length > maxRequestLength) throw new UnhashableRequestError('The request is too large.')
  return json
}

/** The fields an approval is bound to, in canonical JSON (`tokens` only when given). */
export function toBoundJson(request: ApprovalRequest): string {
  const { method, params, chainId, account, origin, tokens } = request
  return toCanonicalJson({ method, params, chainId, account, origin, tokens })
}

/** SHA-256 (hex) of the canonical JSON of `{ method, params, chainId, account, origin, tokens }`. */
export function hashRequest(request: ApprovalRequest): string {
  return bytesToHex(sha256(utf8ToBytes(toBoundJson(request))))
}

/**
 * A deep, frozen copy of the request made of plain JSON only: what is shown is
 * exactly what was hashed, whatever the caller later does to its own object.
 */
export function toSnapshot(request: ApprovalRequest): ApprovalRequest {
  const { chainName, site } = request
  const bound = JSON.parse(toBoundJson(request)) as Omit<ApprovalRequest, 'chainName' | 'site'>
  const snapshot: ApprovalRequest = { ...bound }
  if (chainName !== undefined) snapshot.chainName = chainName
  if (site !== undefined) {
    snapshot.site = {}
    if (site.name !== undefined) snapshot.site.name = site.name
    if (site.icon !== undefined) snapshot.site.icon = site.icon
  }
  return deepFreeze(snapshot)
}

/**
 * A deep, frozen copy of `value` made of plain JSON only (throws
 * `UnhashableRequestError` as `toCanonicalJson` does): an object that can be
 * shown, hashed and then signed, and that nobody can change in between.
 */
export function toFrozenJson<T>(value: T): T {
  return deepFreeze(JSON.parse(toCanonicalJson(value)) as T)
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const item of Object.values(value)) deepFreeze(item)
  }
  return value
}
