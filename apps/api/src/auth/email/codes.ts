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
 * - Every mail request (`limitSends` in login.ts) goes through buckets
 *   in order: per IP (`emailSendIpLimit`, 429 with `Retry-After`), per
 *   network prefix, IPv4 /24 or IPv6 /56 (`emailSendPrefixLimit`), then the
 *   project's shared budget (`chargeMailBudget`). Past the prefix bucket or
 *   the budget a request the secure frame makes (login, email change) is not
 *   refused: it must carry a proof of work (proofOfWork.ts), and for a spent
 *   budget the operator is told (a warning line once per window and process,
 *   counters per day for the CLI).
 *
 * Codes and addresses are never written to an error message or a log.
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto'
import type { ProofOfWork } from '@porthole/protocol/Embedded'
import { z } from 'zod'
import type { At, Db, Queryable } from '../../db/db.js'
import { consumeRateLimit, releaseRateLimit } from '../../db/rateLimit.js'
import { HttpError, MailError, ProjectError } from '../../http/errors.js'
import type { Mail, Mailer } from './mailer.js'
import {
  issueChallenge,
  type MailPurpose,
  powChallengeTtlSeconds,
  powDifficulty,
  powPrefixDifficultyBits,
  prunePowChallenges,
  spendChallenge,
} from './proofOfWork.js'

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
/**
 * Mails asked for from one network prefix (IPv4 /24, IPv6 /56): three
 * addresses' worth, so one block of addresses cannot pass for many clients.
 */
export const emailSendPrefixLimit = { limit: 30, windowSeconds: 10 * 60 } as const
/**
 * A project's shared mail budget by default (`npm run project -- set-mail-budget`
 * sets another per project). Past it, mails need a proof of work; never a refusal.
 */
export const emailSendProjectLimit = { limit: 200, windowSeconds: 10 * 60 } as const
/** The most a project's mail budget may be set to, per window. */
export const maxProjectMailBudget = 1_000_000
/** Code checks from one IP address. */
export const emailVerifyIpLimit = { limit: 30, windowSeconds: 10 * 60 } as const
/** The subject of the login code mail. */
export const otpMailSubject = 'Your Porthole code'

/** What a code is for: a code for one purpose never passes for another. */
export type CodePurpose = 'login' | 'email-update-primary' | 'email-update-secondary'

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
 * Deletes codes expired over an hour ago, throttle slots long past and
 * expired proof-of-work challenges (the server runs this now and then).
 */
export async function pruneEmailLogin(
  db: Db,
): Promise<{ codes: number; throttles: number; challenges: number }> {
  const codes = await db.query(
    `DELETE FROM email_otps WHERE expires_at <= now() - interval '1 hour' RETURNING 1`,
  )
  const throttles = await db.query(
    `DELETE FROM email_send_throttle WHERE sent_at <= now() - interval '1 hour' RETURNING 1`,
  )
  const challenges = await prunePowChallenges(db)
  return { codes: codes.length, throttles: throttles.length, challenges }
}

/**
 * A mail request the secure frame makes (login, email change), which can
 * carry a proof of work; `email` in lower case.
 */
export type MailRequest = {
  email: string
  purpose: MailPurpose
  proofOfWork?: ProofOfWork | undefined
}

const BudgetRow = z.object({ mails_per_window: z.coerce.number() })
const UsedRow = z.object({ used: z.coerce.number() })
const CountsRow = z.object({
  overflow_mails: z.coerce.number(),
  challenges_issued: z.coerce.number(),
  challenges_solved: z.coerce.number(),
})

/** A project's shared mail budget per `emailSendProjectLimit.windowSeconds`. */
export async function projectMailBudget(db: Queryable, projectId: string): Promise<number> {
  const [row] = await db.query(
    'SELECT mails_per_window FROM project_mail_budgets WHERE project_id = $1',
    [projectId],
  )
  return row === undefined ? emailSendProjectLimit.limit : BudgetRow.parse(row).mails_per_window
}

/** Sets a project's mail budget per window; `null` goes back to the default. */
export async function setProjectMailBudget(
  db: Queryable,
  projectId: string,
  mails: number | null,
): Promise<void> {
  if (mails !== null && (!Number.isSafeInteger(mails) || mails < 1 || mails > maxProjectMailBudget))
    throw new ProjectError(
      `A mail budget is a whole number of mails from 1 to ${maxProjectMailBudget}, not '${mails}'`,
    )
  const [project] = await db.query('SELECT 1 FROM projects WHERE id = $1', [projectId])
  if (project === undefined) throw new ProjectError(`No project with the id '${projectId}'`)
  if (mails === null) {
    await db.query('DELETE FROM project_mail_budgets WHERE project_id = $1', [projectId])
    return
  }
  await db.query(
    `INSERT INTO project_mail_budgets (project_id, mails_per_window) VALUES ($1, $2)
     ON CONFLICT (project_id) DO UPDATE SET mails_per_window = EXCLUDED.mails_per_window`,
    [projectId, mails],
  )
}

/** The operator's counters: mails past the budget, challenges issued and solved. */
export type MailBudgetCounts = {
  overflowMails: number
  challengesIssued: number
  challengesSolved: number
}

/** Adds to today's (UTC) counters of a project. */
async function count(
  db: Queryable,
  projectId: string,
  column: 'overflow_mails' | 'challenges_issued' | 'challenges_solved',
): Promise<void> {
  await db.query(
    `INSERT INTO mail_budget_counts (project_id, day, ${column})
     VALUES ($1, (now() AT TIME ZONE 'UTC')::date, 1)
     ON CONFLICT (project_id, day) DO UPDATE
       SET ${column} = mail_budget_counts.${column} + 1`,
    [projectId],
  )
}

/** A project's counters over the last `days` UTC days, today included. */
export async function mailBudgetCounts(
  db: Queryable,
  projectId: string,
  days: number,
): Promise<MailBudgetCounts> {
  const [row] = await db.query(
    `SELECT coalesce(sum(overflow_mails), 0) AS overflow_mails,
            coalesce(sum(challenges_issued), 0) AS challenges_issued,
            coalesce(sum(challenges_solved), 0) AS challenges_solved
     FROM mail_budget_counts
     WHERE project_id = $1 AND day > (now() AT TIME ZONE 'UTC')::date - $2::int`,
    [projectId, days],
  )
  const counts = CountsRow.parse(row)
  return {
    overflowMails: counts.overflow_mails,
    challengesIssued: counts.challenges_issued,
    challengesSolved: counts.challenges_solved,
  }
}

/** The hits of a limit key in its current window (without counting one). */
async function hitsInWindow(db: Queryable, key: string, windowSeconds: number): Promise<number> {
  const [row] = await db.query(
    `SELECT coalesce(sum(count), 0)::int AS used FROM rate_limits
     WHERE key = $1 AND window_start > now() - make_interval(secs => $2)`,
    [key, windowSeconds],
  )
  return UsedRow.parse(row ?? { used: 0 }).used
}

/** When each project's spent budget was last logged by this process (ms since the epoch). */
const budgetWarnedAt = new Map<string, number>()
/** Where the operator's warnings go: nowhere until the server names its log (`logMailBudgetTo`). */
let operatorLog: (line: string) => void = () => undefined

/** Sends the warning lines of spent mail budgets to `log` (the server: its console). */
export function logMailBudgetTo(log: (line: string) => void): void {
  operatorLog = log
}

/**
 * Tells the operator, once per window and process, that a project's budget
 * is spent (the API's log). Names the project, never an address.
 */
function warnBudgetSpent(projectId: string, budget: number): void {
  const nowMs = Date.now()
  const last = budgetWarnedAt.get(projectId)
  if (last !== undefined && nowMs - last < emailSendProjectLimit.windowSeconds * 1000) return
  budgetWarnedAt.set(projectId, nowMs)
  operatorLog(
    `Mail budget spent: project '${projectId}' asked for more than ${budgetWindow(budget)}; ` +
      'further login and email-change mails need a proof of work until the window frees up ' +
      `(counters: npm run project -- usage --id ${projectId}; raise it with set-mail-budget)`,
  )
}

function budgetWindow(budget: number): string {
  return `${budget} mails in ${emailSendProjectLimit.windowSeconds / 60} minutes`
}

/**
 * Charges one mail to the project's shared budget (SECURITY.md 22). Within
 * the budget it is counted and passes. Past it, it never refuses outright:
 *
 * - a request the frame makes (`request` given) without a proof of work gets
 *   428 `proof_of_work_required` with a new challenge bound to the project,
 *   the address and the purpose, of `powDifficulty(overflow, budget)` bits;
 * - with one, the challenge is spent: done work passes (an overflow mail),
 *   anything else is 403 `proof_of_work_invalid` and no mail;
 * - a mail that follows a provider login (social, Farcaster: no `request`)
 *   passes and counts as overflow: its start endpoint is limited per IP and
 *   it needs a completed OAuth or relay round trip, which costs more than
 *   the work.
 *
 * Every overflow mail and challenge is counted for the operator, and the
 * first spent request of a window writes a warning line to the log.
 */
export async function chargeMailBudget(
  db: Db,
  projectId: string,
  request: MailRequest | undefined,
  {
    prefixSpent = false,
  }: {
    /** The caller's network prefix spent its bucket: the request needs work even within the budget. */
    prefixSpent?: boolean
  } = {},
): Promise<void> {
  const budget = await projectMailBudget(db, projectId)
  const { windowSeconds } = emailSendProjectLimit
  const charged = await consumeRateLimit(db, {
    key: `email-otp-project:${projectId}`,
    limit: budget,
    windowSeconds,
  })
  if (charged.allowed && !prefixSpent) return
  const budgetSpent = !charged.allowed
  if (budgetSpent) warnBudgetSpent(projectId, budget)
  const overflowKey = `email-otp-overflow:${projectId}`
  const overflow = { key: overflowKey, limit: Number.MAX_SAFE_INTEGER, windowSeconds }

  if (request !== undefined) {
    const binding = { projectId, email: request.email, purpose: request.purpose }
    if (request.proofOfWork === undefined) {
      const difficulty = budgetSpent
        ? powDifficulty(await hitsInWindow(db, overflowKey, windowSeconds), budget)
        : powPrefixDifficultyBits
      const challenge = await issueChallenge(db, binding, difficulty)
      await count(db, projectId, 'challenges_issued')
      const why = budgetSpent
        ? `This project's mail budget (${budgetWindow(budget)}) is spent`
        : 'Many mails were asked for from your network'
      throw new HttpError(
        428,
        'proof_of_work_required',
        `${why}: solve the proof of work ` +
          `(${difficulty} zero bits) within ${powChallengeTtlSeconds / 60} minutes and send the request again with it`,
        { extra: { proofOfWork: challenge }, headers: { 'Cache-Control': 'no-store' } },
      )
    }
    if (!(await spendChallenge(db, binding, request.proofOfWork)))
      throw new HttpError(
        403,
        'proof_of_work_invalid',
        'The proof of work does not solve a live challenge for this request (wrong, used or expired): ' +
          'send the request again without it for a new challenge',
      )
    await count(db, projectId, 'challenges_solved')
  }
  if (!budgetSpent) return
  await consumeRateLimit(db, overflow)
  await count(db, projectId, 'overflow_mails')
}
