/**
 * Email login, step one: a one-time code sent by mail, and its check
 * (SECURITY.md 13). Users, devices and key shares come later.
 *
 * - `POST /auth/v1/email/otp`: mails a 6-digit code, valid 10 minutes. At
 *   most one mail per address every 30 seconds, whichever replica is asked
 *   (one conditional upsert in `email_send_throttle`), plus limits per IP and
 *   per project.
 * - `POST /auth/v1/email/verify`: checks a code in constant time. Five wrong
 *   tries kill it; a right one is spent at once (the row is locked, so of
 *   two requests or two replicas exactly one succeeds).
 *
 * Only a salted SHA-256 of each code is stored. Codes and addresses are never
 * written to an error message or a log.
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto'
import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context } from 'hono'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import { HttpError, MailError } from '../errors.js'
import { commonQuery, errorBody, parseInput, readJsonBody, readProjectQuery } from '../http.js'
import type { Mailer } from '../mailer.js'
import { consumeRateLimit, type RateLimit } from '../rateLimit.js'

/** Digits per code. */
export const otpDigits = 6
/** How long a code is valid. */
export const otpTtlSeconds = 10 * 60
/** Wrong tries a code survives: the last one kills it. */
export const maxOtpAttempts = 5
/** Seconds between two mails to one address (across projects and replicas). */
export const emailResendSeconds = 30
/** Code mails asked for from one IP address. */
export const emailSendIpLimit = { limit: 10, windowSeconds: 10 * 60 } as const
/** Code mails sent for one project. */
export const emailSendProjectLimit = { limit: 200, windowSeconds: 10 * 60 } as const
/** Code checks from one IP address. */
export const emailVerifyIpLimit = { limit: 30, windowSeconds: 10 * 60 } as const
/** Largest body accepted by either endpoint. */
export const maxEmailBodyBytes = 1024
/** The subject of the code mail. */
export const otpMailSubject = 'Your Porthole code'

/** An address, as RFC 5321 bounds it, compared and stored lower-case. */
const Email = z
  .email({ error: 'must be an email address' })
  .max(254)
  .transform((email) => email.toLowerCase())

export const EmailOtpRequest = z.strictObject({ email: Email })
export const EmailVerifyRequest = z.strictObject({
  email: Email,
  otp: z.string().regex(/^\d{6}$/, { error: 'must be the 6 digits of the code' }),
})

const Query = z.strictObject(commonQuery)
const ExpiresRow = z.object({ expires_at: z.coerce.date() })
const WaitRow = z.object({ wait: z.coerce.number() })
const CodeRow = z.object({
  salt: z.string(),
  code_sha256: z.string(),
  failed_attempts: z.coerce.number(),
  used_at: z.coerce.date().nullable(),
  expired: z.boolean(),
})

type VerifyOutcome =
  | { kind: 'verified' }
  | { kind: 'unknown' | 'used' | 'expired' | 'exhausted' }
  | { kind: 'wrong'; triesLeft: number }

export function createEmailRoutes({
  db,
  mailer,
  now,
  onError,
}: {
  db: Db
  mailer: Mailer
  /** The clock of the email rules (throttle, expiry); by default the database's `now()`. */
  now?: (() => Date) | undefined
  onError?: ((error: unknown) => void) | undefined
}): Hono {
  const app = new Hono()
  /** The injected time as a query parameter; null makes the SQL use `now()`. */
  const at = () => now?.() ?? null

  const limitBody = bodyLimit({
    maxSize: maxEmailBodyBytes,
    onError: (c) =>
      c.json(
        errorBody('payload_too_large', `The body may be at most ${maxEmailBodyBytes} bytes`),
        413,
      ),
  })

  app.post('/auth/v1/email/otp', limitBody, async (c) => {
    const { project } = await readProjectQuery(c, db, Query)
    const { email } = parseInput(EmailOtpRequest, await readJsonBody(c), 'body')
    await enforce(db, {
      key: `email-otp-ip:${clientIp(c)}`,
      ...emailSendIpLimit,
      message: 'Too many codes requested from this network',
    })
    await enforce(db, {
      key: `email-otp-project:${project.id}`,
      ...emailSendProjectLimit,
      message: `Too many codes requested for project '${project.id}'`,
    })

    // One mail per address per 30 s: the upsert claims the slot only when the
    // last send is old enough, atomically, so two replicas cannot both claim it.
    const time = at()
    const [claimed] = await db.query<{ sent_at: string }>(
      `INSERT INTO email_send_throttle (email, sent_at) VALUES ($1, coalesce($2::timestamptz, now()))
       ON CONFLICT (email) DO UPDATE SET sent_at = EXCLUDED.sent_at
       WHERE email_send_throttle.sent_at <= EXCLUDED.sent_at - make_interval(secs => $3)
       RETURNING sent_at::text`,
      [email, time, emailResendSeconds],
    )
    if (claimed === undefined) {
      const [row] = await db.query(
        `SELECT ceil(extract(epoch FROM
                  sent_at + make_interval(secs => $3) - coalesce($2::timestamptz, now())))::int AS wait
         FROM email_send_throttle WHERE email = $1`,
        [email, time, emailResendSeconds],
      )
      const wait = Math.min(emailResendSeconds, Math.max(1, WaitRow.parse(row).wait))
      throw new HttpError(429, 'email_throttled', `Please try again after ${wait} seconds`, {
        headers: { 'Retry-After': String(wait) },
      })
    }

    const code = randomInt(0, 10 ** otpDigits)
      .toString()
      .padStart(otpDigits, '0')
    const salt = randomBytes(16).toString('hex')
    const [row] = await db.query(
      `INSERT INTO email_otps (project_id, email, salt, code_sha256, created_at, expires_at)
       VALUES ($1, $2, $3, $4, coalesce($5::timestamptz, now()),
               coalesce($5::timestamptz, now()) + make_interval(secs => $6))
       ON CONFLICT (project_id, email) DO UPDATE SET
         salt = EXCLUDED.salt, code_sha256 = EXCLUDED.code_sha256,
         created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
         failed_attempts = 0, used_at = NULL
       RETURNING expires_at`,
      [project.id, email, salt, hashCode(salt, code), time, otpTtlSeconds],
    )
    const expiresAt = ExpiresRow.parse(row).expires_at

    try {
      await mailer.send({ to: email, subject: otpMailSubject, text: otpMailText(code) })
    } catch (error) {
      // No mail went out: free the address's slot and drop the code, so a retry works.
      await db.query('DELETE FROM email_otps WHERE project_id = $1 AND email = $2 AND salt = $3', [
        project.id,
        email,
        salt,
      ])
      await db.query(
        'DELETE FROM email_send_throttle WHERE email = $1 AND sent_at = $2::timestamptz',
        [email, claimed.sent_at],
      )
      onError?.(error instanceof MailError ? error : new MailError('Sending mail failed'))
      throw new HttpError(
        502,
        'email_send_failed',
        'The code could not be sent: try again in a moment',
      )
    }

    c.header('Cache-Control', 'no-store')
    return c.json({ expiresAt: expiresAt.toISOString() }, 202)
  })

  app.post('/auth/v1/email/verify', limitBody, async (c) => {
    const { project } = await readProjectQuery(c, db, Query)
    const { email, otp } = parseInput(EmailVerifyRequest, await readJsonBody(c), 'body')
    await enforce(db, {
      key: `email-verify-ip:${clientIp(c)}`,
      ...emailVerifyIpLimit,
      message: 'Too many codes tried from this network',
    })

    const time = at()
    // The row is locked until the outcome is written: a code is checked by one request at a time.
    const outcome = await db.transaction(async (tx): Promise<VerifyOutcome> => {
      const [found] = await tx.query(
        `SELECT salt, code_sha256, failed_attempts, used_at,
                expires_at <= coalesce($3::timestamptz, now()) AS expired
         FROM email_otps WHERE project_id = $1 AND email = $2
         FOR UPDATE`,
        [project.id, email, time],
      )
      if (found === undefined) return { kind: 'unknown' }
      const row = CodeRow.parse(found)
      if (row.used_at !== null) return { kind: 'used' }
      if (row.failed_attempts >= maxOtpAttempts) return { kind: 'exhausted' }
      if (row.expired) return { kind: 'expired' }

      const expected = Buffer.from(row.code_sha256, 'hex')
      const given = Buffer.from(hashCode(row.salt, otp), 'hex')
      if (expected.length === given.length && timingSafeEqual(expected, given)) {
        const spent = await tx.query(
          `UPDATE email_otps SET used_at = coalesce($3::timestamptz, now())
           WHERE project_id = $1 AND email = $2 AND used_at IS NULL
           RETURNING 1`,
          [project.id, email, time],
        )
        return spent.length === 1 ? { kind: 'verified' } : { kind: 'used' }
      }
      const [counted] = await tx.query<{ failed_attempts: number }>(
        `UPDATE email_otps SET failed_attempts = failed_attempts + 1
         WHERE project_id = $1 AND email = $2
         RETURNING failed_attempts`,
        [project.id, email],
      )
      const failed = Number(counted?.failed_attempts ?? maxOtpAttempts)
      return failed >= maxOtpAttempts
        ? { kind: 'exhausted' }
        : { kind: 'wrong', triesLeft: maxOtpAttempts - failed }
    })

    switch (outcome.kind) {
      case 'verified':
        c.header('Cache-Control', 'no-store')
        return c.json({ email, verified: true as const })
      case 'wrong':
        throw new HttpError(
          401,
          'invalid_code',
          `The code is wrong: ${outcome.triesLeft} ${outcome.triesLeft === 1 ? 'try' : 'tries'} left`,
        )
      case 'unknown':
        throw new HttpError(
          401,
          'invalid_code',
          'No code is waiting for this address: a new code is needed',
        )
      case 'used':
        throw new HttpError(
          401,
          'code_used',
          'This code has already been used: a new code is needed',
        )
      case 'exhausted':
        throw new HttpError(401, 'code_exhausted', 'Too many wrong codes: a new code is needed')
      case 'expired':
        throw new HttpError(401, 'code_expired', 'The code has expired: a new code is needed')
    }
  })

  return app
}

/** The mail's text: the code on a line of its own. */
export function otpMailText(code: string): string {
  return [
    `Your Porthole code is ${code}`,
    '',
    `It is valid for ${otpTtlSeconds / 60} minutes and works once.`,
    'If you did not ask for it, ignore this mail: nobody can sign in without the code.',
    '',
  ].join('\n')
}

/** The salted SHA-256 of a code: all the database ever holds of it. */
function hashCode(salt: string, code: string): string {
  return createHash('sha256').update(`${salt}:${code}`).digest('hex')
}

/**
 * The peer's address from the socket (`unknown` when there is none, as for
 * in-process requests). Forwarding headers are not trusted: behind a reverse
 * proxy every client shares the proxy's address.
 */
function clientIp(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

async function enforce(db: Db, { message, ...limit }: RateLimit & { message: string }) {
  const result = await consumeRateLimit(db, limit)
  if (result.allowed) return
  throw new HttpError(
    429,
    'rate_limited',
    `${message}: at most ${limit.limit} every ${limit.windowSeconds / 60} minutes. Try again in ${result.retryAfterSeconds} seconds.`,
    { headers: { 'Retry-After': String(result.retryAfterSeconds) } },
  )
}

/**
 * Deletes codes expired over an hour ago and throttle slots long past (the
 * server runs this now and then).
 */
export async function pruneEmailLogin(db: Db): Promise<{ codes: number; throttles: number }> {
  const codes = await db.query(
    `DELETE FROM email_otps WHERE expires_at <= now() - interval '1 hour' RETURNING 1`,
  )
  const throttles = await db.query(
    `DELETE FROM email_send_throttle WHERE sent_at <= now() - interval '1 hour' RETURNING 1`,
  )
  return { codes: codes.length, throttles: throttles.length }
}
