import { getConnInfo } from '@hono/node-server/conninfo'
import { type ErrorBody, errorBodyBounds, ProjectId } from '@porthole/protocol/Api'
import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { z } from 'zod'
import { clientAddress, limitKeyOf, prefixKeyOf, type TrustedProxies } from './clientIp.js'
import { HttpError } from './errors.js'
import { ClientId, SdkLabel } from './schemas.js'

/**
 * The error body of every endpoint except the JSON-RPC proxy (`Api.ErrorBody`).
 * Code and message are cut to the schema's bounds, so a long message can
 * never make the body one the widget refuses.
 */
export function errorBody(code: string, message: string): ErrorBody {
  return {
    error: {
      code: code.slice(0, errorBodyBounds.code),
      message: message.slice(0, errorBodyBounds.message),
    },
  }
}

/** An optional query parameter; given empty (`?clientId=`), it counts as absent. */
export function optionalParam<S extends z.core.$ZodType>(schema: S) {
  return z.preprocess((value) => (value === '' ? undefined : value), z.optional(schema))
}

/**
 * Query parameters every call may carry: the project, the widget's client id
 * (appended to every call) and the SDK type and version labels.
 */
export const commonQuery = {
  projectId: ProjectId,
  clientId: optionalParam(ClientId),
  st: optionalParam(SdkLabel),
  sv: optionalParam(SdkLabel),
}

/** The query string as a plain record; a parameter given twice is refused. */
export function readQuery(c: Context): Record<string, string> {
  const entries: [string, string][] = []
  const seen = new Set<string>()
  for (const [key, value] of new URL(c.req.url).searchParams) {
    if (seen.has(key)) {
      throw new HttpError(
        400,
        'invalid_query',
        `Invalid query: the parameter '${truncate(key)}' is given more than once`,
      )
    }
    seen.add(key)
    entries.push([key, value])
  }
  // fromEntries defines own properties: a `__proto__` key stays a plain (and refused) key.
  return Object.fromEntries(entries)
}

/** Parses `input` with a strict schema, or throws a 400 naming each problem. */
export function parseInput<S extends z.core.$ZodType>(
  schema: S,
  input: unknown,
  where: 'query' | 'body' | 'path',
): z.infer<S> {
  const parsed = z.safeParse(schema, input)
  if (parsed.success) return parsed.data
  throw new HttpError(400, `invalid_${where}`, `Invalid ${where}: ${describeIssues(parsed.error)}`)
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.map(String).join('.')
      return path ? `${truncate(path)}: ${issue.message}` : issue.message
    })
    .join('; ')
}

/** Parses a request body already bounded by the body-limit middleware. */
export async function readJsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text()
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new HttpError(400, 'invalid_json', 'The request body is not valid JSON')
  }
}

/**
 * The fields of an `application/x-www-form-urlencoded` body; undefined for
 * another content type or a field given twice.
 */
export async function readFormFields(c: Context): Promise<Record<string, string> | undefined> {
  const type = c.req.header('content-type') ?? ''
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) return undefined
  const fields: Record<string, string> = {}
  for (const [name, value] of new URLSearchParams(await c.req.text())) {
    if (Object.hasOwn(fields, name)) return undefined
    fields[name] = value
  }
  return fields
}

/** A positive integer query parameter in `[min, max]`, with a default. */
export function integerParam(name: string, min: number, max: number, fallback: number) {
  return z.preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .string()
      .regex(/^\d{1,9}$/, `${name} must be a whole number`)
      .transform(Number)
      .pipe(z.number().min(min).max(max))
      .default(fallback),
  )
}

/** Refuses a body over `maxBytes` with 413 `payload_too_large`, before it is read whole. */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      c.json(errorBody('payload_too_large', `The body may be at most ${maxBytes} bytes`), 413),
  })
}

declare module 'hono' {
  interface ContextVariableMap {
    /** The key of per-IP limits for this request (`clientIp`), set by `identifyClient`. */
    clientIp: string
    /** The key of per-prefix limits for this request (`clientPrefix`), set by `identifyClient`. */
    clientPrefix: string
  }
}

/**
 * Finds the client of every request (SECURITY.md 21): the socket's peer, or
 * through `X-Forwarded-For` when the peer is one of `trusted`
 * (`TRUSTED_PROXIES`), and stores its limit key for `clientIp`.
 */
export function identifyClient(trusted: TrustedProxies): MiddlewareHandler {
  return async (c, next) => {
    const address = clientAddress({
      peer: socketAddress(c),
      forwardedFor: c.req.header('x-forwarded-for'),
      trusted,
    })
    c.set('clientIp', limitKeyOf(address))
    c.set('clientPrefix', prefixKeyOf(address))
    await next()
  }
}

/**
 * The key of this request's per-IP limits: the client's IPv4 address or its
 * IPv6 /64 prefix (`unknown` when there is no socket, as for in-process
 * requests). The client is the socket's peer unless `TRUSTED_PROXIES` names
 * it as a proxy (`identifyClient`); a forwarding header alone is never believed.
 */
export function clientIp(c: Context): string {
  return c.get('clientIp') ?? limitKeyOf(socketAddress(c))
}

/**
 * The key of this request's per-prefix limits, the bucket after `clientIp`:
 * the client's IPv4 /24 or IPv6 /56, found as `clientIp` finds the client.
 */
export function clientPrefix(c: Context): string {
  return c.get('clientPrefix') ?? prefixKeyOf(socketAddress(c))
}

function socketAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address
  } catch {
    return undefined
  }
}

/** `Bearer <43 base64url characters>`; the scheme is case-insensitive (RFC 7235). */
const bearerPattern = /^Bearer ([A-Za-z0-9_-]{43})$/i

/** The session token of `Authorization: Bearer <token>`, or a 401. */
export function readBearer(c: Context): string {
  const header = c.req.header('authorization')
  if (header === undefined || header === '') {
    throw unauthorized('missing_token', 'Send the session token as Authorization: Bearer <token>')
  }
  const match = bearerPattern.exec(header)
  if (!match?.[1]) {
    throw unauthorized('invalid_token', 'The Authorization header does not hold a session token')
  }
  return match[1]
}

/** A 401 with the `WWW-Authenticate: Bearer` challenge. */
export function unauthorized(code: string, message: string): HttpError {
  return new HttpError(401, code, message, {
    headers: { 'WWW-Authenticate': `Bearer realm="porthole", error="invalid_token"` },
  })
}

function truncate(text: string, max = 64): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

/**
 * Refuses a browser request from any origin but `allowed` (403
 * `origin_not_allowed`, naming `what`); a request without an Origin header
 * passes here. A second line only: the app's `refuseCrossSite` middleware
 * (`crossSite.ts`) has already refused, before any route, every listed
 * endpoint's request from another origin or with none (SECURITY.md 21).
 */
export function requireOrigin(c: Context, allowed: string, what: string): void {
  const origin = c.req.header('origin')
  if (origin !== undefined && origin !== allowed)
    throw new HttpError(403, 'origin_not_allowed', `Only the secure frame may ${what}`)
}
