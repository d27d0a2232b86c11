/**
 * Sign-In With X (CAIP-122; EIP-4361 for EVM): nonces, sessions, and the
 * check a host's own backend makes.
 *
 * - `POST /siwx/nonce`: a single-use nonce, valid for 10 minutes.
 * - `POST /siwx/sessions`: a signed message becomes a session, once every
 *   check passes (format, host origin, times, network, nonce, signature).
 * - `GET /siwx/sessions/check?origin=`: the session behind a bearer token,
 *   for the host at `origin` only (SECURITY.md 9).
 * - `DELETE /siwx/sessions`: signs out (idempotent).
 *
 * Nonces and sessions live in the database, so every rule holds across API
 * replicas: a nonce is spent by one conditional `UPDATE … RETURNING`, which
 * exactly one request wins. Session tokens are kept as SHA-256 only; tokens,
 * signatures and nonces are never put in an error message or a log.
 */
import { createHash, randomBytes } from 'node:crypto'
import { maxOriginLength } from '@porthole/protocol/Api'
import { parse as parseOrigin } from '@porthole/protocol/Origin'
import {
  InvalidSiwxMessageError,
  nonceTtlSeconds,
  parse as parseMessage,
  type SiwxMessage,
  type SiwxNonce,
  type SiwxSession,
  type SiwxSessionCheck,
  SiwxSessionRequest,
  toOrigin,
} from '@porthole/protocol/Siwx'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { getAddress } from 'viem'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import { consumeRateLimit, enforceRateLimit, scaled } from '../db/rateLimit.js'
import type { Config } from '../http/config.js'
import { HttpError, SignatureCheckError } from '../http/errors.js'
import { isHostAllowed } from '../http/origins.js'
import {
  clientIp,
  clientPrefix,
  commonQuery,
  errorBody,
  parseInput,
  readBearer,
  readJsonBody,
  unauthorized,
} from '../http/request.js'
import type { Project } from '../http/schemas.js'
import { readProjectQuery } from '../projects/projects.js'
import { isVerifiableChain, type SignatureVerifier } from './signatures.js'

/** Letters and digits per nonce: 24 of 62 symbols is about 143 random bits. */
export const nonceLength = 24
/**
 * Nonces per client and project. The client id is the caller's choice, so
 * this is only an extra bucket after the per-IP and per-prefix ones (SECURITY.md 22).
 */
export const nonceLimit = { limit: 30, windowSeconds: 60 } as const
/**
 * Nonces per IP (an IPv4 address, an IPv6 /64), any project: one per sign-in.
 * Multiplied by `IP_LIMIT_SCALE`.
 */
export const nonceIpLimit = { limit: 60, windowSeconds: 60 } as const
/** Nonces per prefix (IPv4 /24, IPv6 /56), any project. Multiplied by `IP_LIMIT_SCALE`. */
export const noncePrefixLimit = { limit: 240, windowSeconds: 60 } as const
/** Largest `POST /siwx/sessions` body accepted. */
export const maxSessionBodyBytes = 32 * 1024
/** How far ahead of the API's clock a message's `Issued At` and `Not Before` may be. */
export const maxClockSkewSeconds = 5 * 60
/** The longest a session lives; a message's earlier `Expiration Time` ends it sooner. */
export const sessionTtlSeconds = 7 * 24 * 60 * 60

const NonceQuery = z.strictObject(commonQuery)
const SessionsQuery = z.strictObject(commonQuery)
const CheckQuery = z.strictObject({
  ...commonQuery,
  /** The host origin the caller serves, as a browser writes it: `https://app.example.com`. */
  origin: z
    .string()
    .max(maxOriginLength)
    .refine((origin) => parseOrigin(origin) !== undefined, {
      message: 'must be an origin as a browser writes it, e.g. https://app.example.com',
    }),
})

const NonceRow = z.object({ expires_at: z.coerce.date() })
const NonceStateRow = z.object({
  used_at: z.coerce.date().nullable(),
  expires_at: z.coerce.date(),
})
const SessionRow = z.object({
  origin: z.string(),
  address: z.string(),
  chain_id: z.string(),
  domain: z.string(),
  uri: z.string(),
  issued_at: z.coerce.date(),
  expiration_time: z.coerce.date().nullable(),
  expires_at: z.coerce.date(),
})

export function createSiwxRoutes({
  db,
  config,
  verifySignature,
}: {
  db: Db
  config: Config
  verifySignature: SignatureVerifier
}): Hono {
  const app = new Hono()

  app.post('/siwx/nonce', async (c) => {
    const { project, query } = await readProjectQuery(c, db, NonceQuery)
    await enforceRateLimit(db, {
      key: `siwx-nonce-ip:${clientIp(c)}`,
      ...scaled(nonceIpLimit, config.ipLimitScale),
      message: 'Too many sign-in nonces from this address',
    })
    await enforceRateLimit(db, {
      key: `siwx-nonce-prefix:${clientPrefix(c)}`,
      ...scaled(noncePrefixLimit, config.ipLimitScale),
      message: 'Too many sign-in nonces from this network',
    })
    const limited = await consumeRateLimit(db, {
      // Without a client id, the address is the client: no bucket shared by strangers.
      key: `siwx-nonce:${project.id}:${query.clientId ?? `ip:${clientIp(c)}`}`,
      ...nonceLimit,
    })
    if (!limited.allowed) {
      throw new HttpError(
        429,
        'rate_limited',
        `Too many sign-in nonces: at most ${nonceLimit.limit} every ${nonceLimit.windowSeconds} seconds per client. Try again in ${limited.retryAfterSeconds} seconds.`,
        { headers: { 'Retry-After': String(limited.retryAfterSeconds) } },
      )
    }
    const nonce = randomAlphanumeric(nonceLength)
    const [row] = await db.query(
      `INSERT INTO siwx_nonces (nonce, project_id, expires_at)
       VALUES ($1, $2, now() + make_interval(secs => $3))
       RETURNING expires_at`,
      [nonce, project.id, nonceTtlSeconds],
    )
    const body: SiwxNonce = { nonce, expiresAt: NonceRow.parse(row).expires_at.toISOString() }
    c.header('Cache-Control', 'no-store')
    return c.json(body)
  })

  app.post(
    '/siwx/sessions',
    bodyLimit({
      maxSize: maxSessionBodyBytes,
      onError: (c) =>
        c.json(
          errorBody(
            'payload_too_large',
            `The sign-in body may be at most ${maxSessionBodyBytes} bytes`,
          ),
          413,
        ),
    }),
    async (c) => {
      const { project } = await readProjectQuery(c, db, SessionsQuery)
      const request = parseInput(SiwxSessionRequest, await readJsonBody(c), 'body')
      const message = readMessage(request.message)
      const origin = checkHost(project, message)
      checkTimes(message, Date.now())
      if (!isVerifiableChain(config.rpcUpstreams, message.chainId)) {
        throw new HttpError(
          400,
          'unsupported_chain',
          `Sign-in on ${message.chainId} is not supported by this server (no RPC endpoint to verify on)`,
        )
      }
      await spendNonce(db, project.id, message.nonce)

      let valid: boolean
      try {
        valid = await verifySignature({
          chainId: message.chainId,
          address: message.address,
          message: request.message,
          signature: request.signature,
        })
      } catch (error) {
        if (!(error instanceof SignatureCheckError)) throw error
        throw new HttpError(
          502,
          'signature_check_unavailable',
          `The signature could not be checked: the RPC endpoint for ${message.chainId} is unavailable. Sign in again later.`,
        )
      }
      if (!valid) {
        throw new HttpError(
          401,
          'invalid_signature',
          'The signature does not match the message and its address',
        )
      }

      const token = randomBytes(32).toString('base64url')
      const address = message.chainId.startsWith('eip155:')
        ? getAddress(message.address)
        : message.address
      const expiresAt = new Date(
        Math.min(
          Date.now() + sessionTtlSeconds * 1000,
          message.expirationTime?.getTime() ?? Number.POSITIVE_INFINITY,
        ),
      )
      // One session per nonce (UNIQUE), a second guard against replay.
      await db.query(
        `INSERT INTO siwx_sessions
           (token_sha256, project_id, origin, address, chain_id, domain, uri, issued_at,
            expiration_time, expires_at, message, signature, nonce)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [
          hashToken(token),
          project.id,
          origin,
          address,
          message.chainId,
          message.domain,
          message.uri,
          message.issuedAt,
          message.expirationTime ?? null,
          expiresAt,
          request.message,
          request.signature,
          message.nonce,
        ],
      )
      const body: SiwxSession = {
        token,
        address,
        chainId: message.chainId,
        domain: message.domain,
        uri: message.uri,
        issuedAt: message.issuedAt.toISOString(),
        expirationTime: message.expirationTime?.toISOString() ?? null,
        expiresAt: expiresAt.toISOString(),
        message: request.message,
        signature: request.signature,
      }
      c.header('Cache-Control', 'no-store')
      return c.json(body, 201)
    },
  )

  app.get('/siwx/sessions/check', async (c) => {
    const { project, query } = await readProjectQuery(c, db, CheckQuery)
    const token = readBearer(c)
    const [row] = await db.query(
      `SELECT origin, address, chain_id, domain, uri, issued_at, expiration_time, expires_at
       FROM siwx_sessions
       WHERE token_sha256 = $1 AND project_id = $2 AND expires_at > now()`,
      [hashToken(token), project.id],
    )
    if (row === undefined) {
      throw unauthorized('invalid_session', 'No such session: unknown, expired or signed out')
    }
    const session = SessionRow.parse(row)
    // SECURITY.md 9: host B never sees host A's session.
    if (session.origin !== query.origin) {
      throw new HttpError(
        403,
        'session_origin_mismatch',
        `This session belongs to another site, not ${query.origin}`,
      )
    }
    if (!isHostAllowed(project, query.origin)) {
      throw new HttpError(
        403,
        'origin_not_allowed',
        `${query.origin} is no longer an allowed origin of project '${project.id}'`,
      )
    }
    const body: SiwxSessionCheck = {
      address: session.address,
      chainId: session.chain_id,
      domain: session.domain,
      uri: session.uri,
      issuedAt: session.issued_at.toISOString(),
      expirationTime: session.expiration_time?.toISOString() ?? null,
      expiresAt: session.expires_at.toISOString(),
    }
    c.header('Cache-Control', 'no-store')
    return c.json(body)
  })

  app.delete('/siwx/sessions', async (c) => {
    const { project } = await readProjectQuery(c, db, SessionsQuery)
    const token = readBearer(c)
    await db.query('DELETE FROM siwx_sessions WHERE token_sha256 = $1 AND project_id = $2', [
      hashToken(token),
      project.id,
    ])
    return c.body(null, 204)
  })

  return app
}

function readMessage(text: string): SiwxMessage {
  try {
    return parseMessage(text)
  } catch (error) {
    if (!(error instanceof InvalidSiwxMessageError)) throw error
    const details = error.details ? `: ${error.details}` : ''
    throw new HttpError(400, 'invalid_message', `${error.shortMessage}${details}`)
  }
}

/**
 * The message's domain must be an origin the project allows (the dev defaults
 * for an empty list, like the widget), and its URI must be on that same
 * origin. Resolves to the origin.
 */
function checkHost(project: Project, message: SiwxMessage): string {
  const origin = toOrigin(message)
  if (origin === undefined) {
    throw new HttpError(
      400,
      'invalid_message',
      'Invalid sign-in message: its scheme and domain are not an http(s) origin',
    )
  }
  if (!isHostAllowed(project, origin)) {
    throw new HttpError(
      403,
      'domain_not_allowed',
      `${origin} is not an allowed origin of project '${project.id}'`,
    )
  }
  let uriOrigin: string | undefined
  try {
    uriOrigin = new URL(message.uri).origin
  } catch {
    uriOrigin = undefined
  }
  if (uriOrigin !== origin) {
    throw new HttpError(
      400,
      'uri_origin_mismatch',
      `The message's URI is not on its domain's origin (${origin})`,
    )
  }
  return origin
}

function checkTimes(message: SiwxMessage, now: number): void {
  const skew = maxClockSkewSeconds * 1000
  if (message.issuedAt.getTime() > now + skew) {
    throw new HttpError(
      401,
      'message_issued_in_future',
      'The message was issued in the future: check the device clock',
    )
  }
  if (message.expirationTime && message.expirationTime.getTime() <= now) {
    throw new HttpError(401, 'message_expired', 'The message has expired: sign in again')
  }
  if (message.notBefore && message.notBefore.getTime() > now + skew) {
    throw new HttpError(
      401,
      'message_not_yet_valid',
      `The message is not valid before ${message.notBefore.toISOString()}`,
    )
  }
}

/**
 * Marks the nonce used, atomically: of two requests (or two replicas) with
 * the same nonce, one wins. A nonce is spent before the signature is checked,
 * so each one buys a single check (and at most one RPC call).
 */
async function spendNonce(db: Db, projectId: string, nonce: string): Promise<void> {
  const spent = await db.query(
    `UPDATE siwx_nonces SET used_at = now()
     WHERE nonce = $1 AND project_id = $2 AND used_at IS NULL AND expires_at > now()
     RETURNING 1`,
    [nonce, projectId],
  )
  if (spent.length === 1) return
  const [row] = await db.query(
    'SELECT used_at, expires_at FROM siwx_nonces WHERE nonce = $1 AND project_id = $2',
    [nonce, projectId],
  )
  if (row === undefined) {
    throw new HttpError(
      401,
      'unknown_nonce',
      'The message nonce was not issued by this server for this project',
    )
  }
  if (NonceStateRow.parse(row).used_at !== null) {
    throw new HttpError(401, 'nonce_used', 'The message nonce has already been used')
  }
  throw new HttpError(401, 'nonce_expired', 'The message nonce has expired: sign in again')
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

const alphanumerics = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** `length` letters and digits, uniform (bytes of 248 and above are dropped, so there is no modulo bias). */
export function randomAlphanumeric(length: number): string {
  let text = ''
  while (text.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue
      text += alphanumerics[byte % 62]
      if (text.length === length) break
    }
  }
  return text
}

/**
 * Deletes expired sessions, and nonces expired more than an hour ago (kept
 * that long so a late replay still gets `nonce_expired` or `nonce_used`). The
 * server runs this now and then.
 */
export async function pruneSiwx(db: Db): Promise<{ nonces: number; sessions: number }> {
  const nonces = await db.query(
    `DELETE FROM siwx_nonces WHERE expires_at <= now() - interval '1 hour' RETURNING 1`,
  )
  const sessions = await db.query('DELETE FROM siwx_sessions WHERE expires_at <= now() RETURNING 1')
  return { nonces: nonces.length, sessions: sessions.length }
}
