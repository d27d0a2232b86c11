/**
 * Email one-time codes and the mail that carries them (SECURITY.md 13): the
 * one implementation behind email login, device approval and email change.
 *
 * - A code is 6 digits, valid 10 minutes, for one project, one address and
 *   one purpose; a new one replaces the old. Only a salted SHA-256 of it is
 *   stored.
 * - `checkCode` compares in constant time with the row locked, so a code is
 *   checked by one request at a time across replicas; five wrong tries kill
 *   it; `spendCode` makes it single use.
 * - At most one mail per address every 30 seconds, whichever replica is
 *   asked: `claimMailSlot` claims the address's slot with one conditional
 *   upsert in `email_send_throttle`. A mail that follows from a step the user
 *   just proved (a followed approval link, a right code) takes the slot
 *   without the check (`takeMailSlot`), so the next request still waits.
 * - At most `emailAddressLimit` such claimed mails per address per hour,
 *   however many IP addresses ask (a rate limit in the database, so it holds
 *   across replicas): one address cannot be mail-bombed. It answers as the
 *   30-second rule does ('Please try again after {n} seconds'), and counts
 *   every mail to the address alike, an approval link for an account or a
 *   code for an address nobody uses, so it tells nobody whether the address
 *   has an account (SECURITY.md 26). Mails that follow a proved step do not
 *   count: each follows a counted one.
 * - A mail that fails frees its slot and drops what it carried, so a retry
 *   works.
 *
 * Codes and addresses are never written to an error message or a log.
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto'
import { z } from 'zod'
import type { Db, Queryable } from './db/db.js'
import { HttpError, MailError } from './errors.js'
import type { Mail, Mailer } from './mailer.js'
import { consumeRateLimit, releaseRateLimit } from './rateLimit.js'

/** Digits per code. */
export const otpDigits = 6
/** How long a code is valid. */
export const otpTtlSeconds = 10 * 60
/** Wrong tries a code survives: the last one kills it. */
export const maxOtpAttempts = 5
/** Seconds between two mails to one address (across projects and replicas). */
export const emailResendSeconds = 30
/** Mails (codes, approval links) asked for from one IP address. */
export const emailSendIpLimit = { limit: 10, windowSeconds: 10 * 60 } as const
/**
 * Mails claimed for one address (login codes, approval links, email-change
 * codes), whichever IP addresses ask (SECURITY.md 13, 22).
 */
export const emailAddressLimit = { limit: 10, windowSeconds: 60 * 60 } as const
/** Mails sent for one project. */
export const emailSendProjectLimit = { limit: 200, windowSeconds: 10 * 60 } as const
/** Code checks from one IP address. */
export const emailVerifyIpLimit = { limit: 30, windowSeconds: 10 * 60 } as const
/** The subject of the login code mail. */
export const otpMailSubject = 'Your Porthole code'

/** What a code is for: a code for one purpose never passes for another. */
export type CodePurpose = 'login' | 'email-update-primary' | 'email-update-secondary'

/**
 * The time of a rule: an injected clock in tests, otherwise `null`, which the
 * SQL turns into the database's `now()`, shared by every replica.
 */
export type At = Date | null

/** The services a mail needs: where codes live, how mail goes, where failures are reported. */
export type MailDeps = {
  db: Db
  mailer: Mailer
  onError?: ((error: unknown) => void) | undefined
}

/** An address's claimed send slot, freed again if its mail fails (with its count in the hourly cap). */
export type MailSlot = { email: string; sentAt: string; counted?: { key: string; at: string } }

export type CodeOutcome =
  | { kind: 'valid' }
  | { kind: 'unknown' | 'used' | 'expired' | 'exhausted' }
  | { kind: 'wrong'; triesLeft: number }

const WaitRow = z.object({ wait: z.coerce.number() })
const SlotRow = z.object({ sent_at: z.string() })
const ExpiresRow = z.object({ expires_at: z.coerce.date() })
const CodeRow = z.object({
  salt: z.string(),
  code_sha256: z.string(),
  failed_attempts: z.coerce.number(),
  used_at: z.coerce.date().nullable(),
  expired: z.boolean(),
})

/**
 * Claims the address's send slot, or throws 429 `email_throttled` ("Please
 * try again after {n} seconds", `Retry-After`). The upsert claims it only
 * when the last send is old enough, atomically, so two replicas cannot both.
 * The mail then counts against the address's hourly cap (`emailAddressLimit`);
 * over it, the slot is given back and the same 429 names the wait.
 */
export async function claimMailSlot(db: Db, email: string, at: At): Promise<MailSlot> {
  const [claimed] = await db.query(
    `INSERT INTO email_send_throttle (email, sent_at) VALUES ($1, coalesce($2::timestamptz, now()))
     ON CONFLICT (email) DO UPDATE SET sent_at = EXCLUDED.sent_at
     WHERE email_send_throttle.sent_at <= EXCLUDED.sent_at - make_interval(secs => $3)
     RETURNING sent_at::text`,
    [email, at, emailResendSeconds],
  )
  if (claimed !== undefined) {
    const slot = { email, sentAt: SlotRow.parse(claimed).sent_at }
    const capped = await consumeRateLimit(
      db,
      { key: addressLimitKey(email), ...emailAddressLimit },
      at,
    )
    if (capped.allowed) return { ...slot, counted: capped.hit }
    await releaseMailSlot(db, slot)
    throw throttled(capped.retryAfterSeconds)
  }
  const [row] = await db.query(
    `SELECT ceil(extract(epoch FROM
              sent_at + make_interval(secs => $3) - coalesce($2::timestamptz, now())))::int AS wait
     FROM email_send_throttle WHERE email = $1`,
    [email, at, emailResendSeconds],
  )
  const wait = Math.min(emailResendSeconds, Math.max(1, WaitRow.parse(row ?? { wait: 1 }).wait))
  throw throttled(wait)
}

/** The 429 of both per-address rules, in the words of the error catalogue (SPEC.md 8). */
function throttled(seconds: number): HttpError {
  return new HttpError(429, 'email_throttled', `Please try again after ${seconds} seconds`, {
    headers: { 'Retry-After': String(seconds) },
  })
}

/** The hourly cap's key: a hash, so the limits table holds no address. */
function addressLimitKey(email: string): string {
  return `email-address:${createHash('sha256').update(email).digest('hex')}`
}

/** Takes the address's send slot without the 30-second check (the next request still waits). */
export async function takeMailSlot(db: Queryable, email: string, at: At): Promise<MailSlot> {
  const [taken] = await db.query(
    `INSERT INTO email_send_throttle (email, sent_at) VALUES ($1, coalesce($2::timestamptz, now()))
     ON CONFLICT (email) DO UPDATE SET sent_at = EXCLUDED.sent_at
     RETURNING sent_at::text`,
    [email, at],
  )
  return { email, sentAt: SlotRow.parse(taken).sent_at }
}

/**
 * Frees a slot whose mail did not go out (unless a later mail took it since),
 * and takes its mail off the address's hourly count.
 */
export async function releaseMailSlot(db: Queryable, slot: MailSlot): Promise<void> {
  await db.query('DELETE FROM email_send_throttle WHERE email = $1 AND sent_at = $2::timestamptz', [
    slot.email,
    slot.sentAt,
  ])
  if (slot.counted !== undefined) await releaseRateLimit(db, slot.counted)
}

export type IssuedCode = {
  code: string
  /** Tells this code's row apart, to drop it if its mail fails. */
  salt: string
  expiresAt: Date
}

type CodeKey = { projectId: string; purpose: CodePurpose; email: string }

/** Makes a new code for the key, replacing any earlier one (its tries and use reset). */
export async function issueCode(db: Queryable, key: CodeKey, at: At): Promise<IssuedCode> {
  const code = randomInt(0, 10 ** otpDigits)
    .toString()
    .padStart(otpDigits, '0')
  const salt = randomBytes(16).toString('hex')
  const [row] = await db.query(
    `INSERT INTO email_otps
       (project_id, purpose, email, salt, code_sha256, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()),
             coalesce($6::timestamptz, now()) + make_interval(secs => $7))
     ON CONFLICT (project_id, purpose, email) DO UPDATE SET
       salt = EXCLUDED.salt, code_sha256 = EXCLUDED.code_sha256,
       created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
       failed_attempts = 0, used_at = NULL
     RETURNING expires_at`,
    [key.projectId, key.purpose, key.email, salt, hashCode(salt, code), at, otpTtlSeconds],
  )
  return { code, salt, expiresAt: ExpiresRow.parse(row).expires_at }
}

/** Drops a code whose mail did not go out (unless a newer code replaced it). */
export async function dropCode(db: Queryable, key: CodeKey, salt: string): Promise<void> {
  await db.query(
    'DELETE FROM email_otps WHERE project_id = $1 AND purpose = $2 AND email = $3 AND salt = $4',
    [key.projectId, key.purpose, key.email, salt],
  )
}

/**
 * Checks `otp` against the key's code, in constant time; call it inside a
 * transaction, whose lock on the row lasts until the outcome is written. A
 * wrong code counts a try (the fifth kills it); a valid one is not spent
 * until `spendCode`, so a caller may still refuse without using it up.
 */
export async function checkCode(
  tx: Queryable,
  key: CodeKey & { otp: string },
  at: At,
): Promise<CodeOutcome> {
  const [found] = await tx.query(
    `SELECT salt, code_sha256, failed_attempts, used_at,
            expires_at <= coalesce($4::timestamptz, now()) AS expired
     FROM email_otps WHERE project_id = $1 AND purpose = $2 AND email = $3
     FOR UPDATE`,
    [key.projectId, key.purpose, key.email, at],
  )
  if (found === undefined) return { kind: 'unknown' }
  const row = CodeRow.parse(found)
  if (row.used_at !== null) return { kind: 'used' }
  if (row.failed_attempts >= maxOtpAttempts) return { kind: 'exhausted' }
  if (row.expired) return { kind: 'expired' }

  const expected = Buffer.from(row.code_sha256, 'hex')
  const given = Buffer.from(hashCode(row.salt, key.otp), 'hex')
  if (expected.length === given.length && timingSafeEqual(expected, given)) return { kind: 'valid' }

  const [counted] = await tx.query<{ failed_attempts: number }>(
    `UPDATE email_otps SET failed_attempts = failed_attempts + 1
     WHERE project_id = $1 AND purpose = $2 AND email = $3
     RETURNING failed_attempts`,
    [key.projectId, key.purpose, key.email],
  )
  const failed = Number(counted?.failed_attempts ?? maxOtpAttempts)
  return failed >= maxOtpAttempts
    ? { kind: 'exhausted' }
    : { kind: 'wrong', triesLeft: maxOtpAttempts - failed }
}

/** Spends a code `checkCode` found valid in the same transaction. */
export async function spendCode(tx: Queryable, key: CodeKey, at: At): Promise<void> {
  const spent = await tx.query(
    `UPDATE email_otps SET used_at = coalesce($4::timestamptz, now())
     WHERE project_id = $1 AND purpose = $2 AND email = $3 AND used_at IS NULL
     RETURNING 1`,
    [key.projectId, key.purpose, key.email, at],
  )
  if (spent.length !== 1) throw codeError({ kind: 'used' })
}

/** The 401 for a code that did not pass. */
export function codeError(outcome: Exclude<CodeOutcome, { kind: 'valid' }>): HttpError {
  switch (outcome.kind) {
    case 'wrong':
      return new HttpError(
        401,
        'invalid_code',
        `The code is wrong: ${outcome.triesLeft} ${outcome.triesLeft === 1 ? 'try' : 'tries'} left`,
      )
    case 'unknown':
      return new HttpError(
        401,
        'invalid_code',
        'No code is waiting for this address: a new code is needed',
      )
    case 'used':
      return new HttpError(
        401,
        'code_used',
        'This code has already been used: a new code is needed',
      )
    case 'exhausted':
      return new HttpError(401, 'code_exhausted', 'Too many wrong codes: a new code is needed')
    case 'expired':
      return new HttpError(401, 'code_expired', 'The code has expired: a new code is needed')
  }
}

/**
 * Sends `mail`. When it fails, runs `undo` (free the slot, drop what the mail
 * carried), reports a `MailError` naming neither address nor content, and
 * throws 502 `email_send_failed`.
 */
export async function deliver(
  { mailer, onError }: MailDeps,
  mail: Mail,
  undo: () => Promise<void>,
): Promise<void> {
  try {
    await mailer.send(mail)
  } catch (error) {
    await undo()
    onError?.(error instanceof MailError ? error : new MailError('Sending mail failed'))
    throw new HttpError(
      502,
      'email_send_failed',
      'The mail could not be sent: try again in a moment',
    )
  }
}

/**
 * Mails a new code: claims the address's slot (or, with `exempt`, takes it),
 * issues the code and sends `mail(code)`; a failed mail undoes both.
 */
export async function sendCode(
  deps: MailDeps,
  key: CodeKey,
  {
    at,
    exempt = false,
    mail,
  }: { at: At; exempt?: boolean; mail: (code: string) => Omit<Mail, 'to'> },
): Promise<{ expiresAt: Date }> {
  const { db } = deps
  const slot = exempt
    ? await takeMailSlot(db, key.email, at)
    : await claimMailSlot(db, key.email, at)
  const issued = await issueCode(db, key, at)
  await deliver(deps, { to: key.email, ...mail(issued.code) }, async () => {
    await dropCode(db, key, issued.salt)
    await releaseMailSlot(db, slot)
  })
  return { expiresAt: issued.expiresAt }
}

/** The login code mail. */
export function loginCodeMail(code: string): Omit<Mail, 'to'> {
  return {
    subject: otpMailSubject,
    text: [
      `Your Porthole code is ${code}`,
      '',
      `It is valid for ${otpTtlSeconds / 60} minutes and works once.`,
      'If you did not ask for it, ignore this mail: nobody can sign in without the code.',
      '',
    ].join('\n'),
  }
}

/** The salted SHA-256 of a code: all the database ever holds of it. */
function hashCode(salt: string, code: string): string {
  return createHash('sha256').update(`${salt}:${code}`).digest('hex')
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
