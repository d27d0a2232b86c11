/**
 * Changing a signed-in user's email, proven at both ends (SECURITY.md 13).
 *
 * - `POST /auth/v1/email/update` `{ email }`: remembers the new address
 *   (server-side, 10 minutes) and mails a code to the current one
 *   (`VERIFY_PRIMARY_OTP`); a user without an email gets the code at the new
 *   address at once (`VERIFY_SECONDARY_OTP`).
 * - `POST /auth/v1/email/update/primary` `{ otp }`: the current address's
 *   code; a code goes to the new address (`VERIFY_SECONDARY_OTP`).
 * - `POST /auth/v1/email/update/secondary` `{ otp }`: the new address's code;
 *   the email changes (409 `email_taken` when another user has it).
 *
 * Codes follow the login codes' rules (`codes.ts`): 30 s between mails
 * to an address, 5 tries, single use, 10 minutes, a purpose per step.
 */
import {
  UpdateEmailOtpRequest,
  UpdateEmailRequest,
  type UpdateEmailResponse,
  type UpdateEmailSecondaryResponse,
} from '@porthole/protocol/Embedded'
import { Hono } from 'hono'
import { z } from 'zod'
import type { At, Db, Queryable } from '../../db/db.js'
import { enforceRateLimit, scaled } from '../../db/rateLimit.js'
import { HttpError } from '../../http/errors.js'
import { clientIp, commonQuery, parseInput, readJsonBody } from '../../http/request.js'
import { readProjectQuery } from '../../projects/projects.js'
import { requireSession } from '../../wallet/users.js'
import {
  checkCode,
  codeError,
  deliver,
  dropCode,
  emailVerifyIpLimit,
  issueCode,
  otpTtlSeconds,
  releaseMailSlot,
  sendCode,
  spendCode,
  takeMailSlot,
} from './codes.js'
import { emailRouteParts, limitSends } from './login.js'
import type { Mailer } from './mailer.js'

/** The subject of the code mailed to the current address. */
export const primaryMailSubject = 'Confirm your Porthole email change'
/** The subject of the code mailed to the new address. */
export const secondaryMailSubject = 'Confirm your new Porthole email'

const Query = z.strictObject(commonQuery)
const UserEmailRow = z.object({ email: z.string().nullable() })
const PendingRow = z.object({
  new_email: z.string(),
  stage: z.enum(['primary', 'secondary']),
  expired: z.boolean(),
  email: z.string().nullable(),
})

type Pending = z.infer<typeof PendingRow>

type StepOutcome =
  | Exclude<Awaited<ReturnType<typeof checkCode>>, { kind: 'valid' }>
  | { kind: 'done' }
  | { kind: 'taken' }

export function createEmailUpdateRoutes({
  db,
  mailer,
  now,
  onError,
  ipLimitScale = 1,
}: {
  db: Db
  mailer: Mailer
  /** `IP_LIMIT_SCALE`: multiplies the per-IP limits. */
  ipLimitScale?: number | undefined
  /** The clock of the rules (throttle, expiry); by default the database's `now()`. */
  now?: (() => Date) | undefined
  onError?: ((error: unknown) => void) | undefined
}): Hono {
  const app = new Hono()
  const { at, deps, limit } = emailRouteParts({ db, mailer, now, onError })

  app.post('/auth/v1/email/update', limit, async (c) => {
    const { project } = await readProjectQuery(c, db, Query)
    const time = at()
    const session = await requireSession(c, db, project.id, time)
    const request = parseInput(UpdateEmailRequest, await readJsonBody(c), 'body')
    const newEmail = request.email.toLowerCase()
    const [row] = await db.query('SELECT email FROM users WHERE id = $1', [session.userId])
    const current = UserEmailRow.parse(row).email
    if (current === newEmail) {
      throw new HttpError(400, 'same_email', 'This is already the email of this account')
    }
    await limitSends(c, db, project.id, ipLimitScale, {
      email: newEmail,
      purpose: 'email-update',
      proofOfWork: request.proofOfWork,
    })

    const stage = current === null ? 'secondary' : 'primary'
    await db.query(
      `INSERT INTO email_updates (user_id, project_id, new_email, stage, created_at, expires_at)
       VALUES ($1, $2, $3, $4, coalesce($5::timestamptz, now()),
               coalesce($5::timestamptz, now()) + make_interval(secs => $6))
       ON CONFLICT (user_id) DO UPDATE SET
         project_id = EXCLUDED.project_id, new_email = EXCLUDED.new_email, stage = EXCLUDED.stage,
         created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
      [session.userId, project.id, newEmail, stage, time, otpTtlSeconds],
    )
    await sendCode(
      deps,
      {
        projectId: project.id,
        purpose: `email-update-${stage}`,
        email: current ?? newEmail,
      },
      { at: time, mail: stage === 'primary' ? primaryMail(newEmail) : secondaryMail },
    )
    const body: z.infer<typeof UpdateEmailResponse> = {
      action: stage === 'primary' ? 'VERIFY_PRIMARY_OTP' : 'VERIFY_SECONDARY_OTP',
    }
    c.header('Cache-Control', 'no-store')
    return c.json(body)
  })

  app.post('/auth/v1/email/update/primary', limit, async (c) => {
    const { project } = await readProjectQuery(c, db, Query)
    const time = at()
    const session = await requireSession(c, db, project.id, time)
    const { otp } = parseInput(UpdateEmailOtpRequest, await readJsonBody(c), 'body')
    await limitChecks(c, db, ipLimitScale)
    const pending = await readPending(db, session.userId, project.id, 'primary', time)
    const current = pending.email
    if (current === null) throw noUpdate()

    const outcome = await db.transaction(async (tx) => {
      const key = {
        projectId: project.id,
        purpose: 'email-update-primary',
        email: current,
      } as const
      const checked = await checkCode(tx, { ...key, otp }, time)
      if (checked.kind !== 'valid') return checked
      await spendCode(tx, key, time)
      await tx.query(
        `UPDATE email_updates SET stage = 'secondary',
           expires_at = coalesce($2::timestamptz, now()) + make_interval(secs => $3)
         WHERE user_id = $1`,
        [session.userId, time, otpTtlSeconds],
      )
      // The current address is proven: this mail skips the 30 s wait, and restarts it.
      const slot = await takeMailSlot(tx, pending.new_email, time)
      const issued = await issueCode(
        tx,
        { projectId: project.id, purpose: 'email-update-secondary', email: pending.new_email },
        time,
      )
      return { kind: 'mail' as const, slot, issued }
    })
    if (outcome.kind !== 'mail') throw codeError(outcome)
    const secondaryKey = {
      projectId: project.id,
      purpose: 'email-update-secondary',
      email: pending.new_email,
    } as const
    await deliver(
      deps,
      { to: pending.new_email, ...secondaryMail(outcome.issued.code) },
      async () => {
        await dropCode(db, secondaryKey, outcome.issued.salt)
        await releaseMailSlot(db, outcome.slot)
      },
    )
    const body: z.infer<typeof UpdateEmailResponse> = { action: 'VERIFY_SECONDARY_OTP' }
    c.header('Cache-Control', 'no-store')
    return c.json(body)
  })

  app.post('/auth/v1/email/update/secondary', limit, async (c) => {
    const { project } = await readProjectQuery(c, db, Query)
    const time = at()
    const session = await requireSession(c, db, project.id, time)
    const { otp } = parseInput(UpdateEmailOtpRequest, await readJsonBody(c), 'body')
    await limitChecks(c, db, ipLimitScale)
    const pending = await readPending(db, session.userId, project.id, 'secondary', time)
    const newEmail = pending.new_email

    let outcome: StepOutcome
    try {
      outcome = await db.transaction(async (tx): Promise<StepOutcome> => {
        const key = {
          projectId: project.id,
          purpose: 'email-update-secondary',
          email: newEmail,
        } as const
        const checked = await checkCode(tx, { ...key, otp }, time)
        if (checked.kind !== 'valid') return checked
        await spendCode(tx, key, time)
        await tx.query('DELETE FROM email_updates WHERE user_id = $1', [session.userId])
        const taken = await tx.query('SELECT 1 FROM users WHERE email = $1 AND id <> $2', [
          newEmail,
          session.userId,
        ])
        if (taken.length > 0) return { kind: 'taken' }
        await changeEmail(tx, session.userId, pending.email, newEmail, time)
        return { kind: 'done' }
      })
    } catch (error) {
      // Two users claiming one address at once: the unique index refuses the second.
      if ((error as { code?: unknown }).code !== '23505') throw error
      outcome = { kind: 'taken' }
    }
    if (outcome.kind === 'taken') {
      throw new HttpError(409, 'email_taken', 'Another account already uses this email')
    }
    if (outcome.kind !== 'done') throw codeError(outcome)
    const body: z.infer<typeof UpdateEmailSecondaryResponse> = { newEmail }
    c.header('Cache-Control', 'no-store')
    return c.json(body)
  })

  return app
}

/** The pending change of the user, at `stage`, for this project; or 409 `no_email_update`. */
async function readPending(
  db: Queryable,
  userId: string,
  projectId: string,
  stage: Pending['stage'],
  at: At,
): Promise<Pending> {
  const [row] = await db.query(
    `SELECT e.new_email, e.stage, e.expires_at <= coalesce($3::timestamptz, now()) AS expired,
            u.email
     FROM email_updates e JOIN users u ON u.id = e.user_id
     WHERE e.user_id = $1 AND e.project_id = $2`,
    [userId, projectId, at],
  )
  const pending = row === undefined ? undefined : PendingRow.parse(row)
  if (pending === undefined || pending.stage !== stage || pending.expired) throw noUpdate()
  return pending
}

function noUpdate(): HttpError {
  return new HttpError(
    409,
    'no_email_update',
    'No email change is waiting for this code: start again with POST /auth/v1/email/update',
  )
}

/** Sets the user's email and moves their email login identity with it. */
async function changeEmail(
  tx: Queryable,
  userId: string,
  oldEmail: string | null,
  newEmail: string,
  at: At,
): Promise<void> {
  await tx.query('UPDATE users SET email = $2 WHERE id = $1', [userId, newEmail])
  if (oldEmail !== null) {
    await tx.query(
      `DELETE FROM identities WHERE provider = 'email' AND subject = $1 AND user_id = $2`,
      [oldEmail, userId],
    )
  }
  await tx.query(
    `INSERT INTO identities (provider, subject, user_id, created_at)
     VALUES ('email', $1, $2, coalesce($3::timestamptz, now()))
     ON CONFLICT (provider, subject) DO UPDATE SET user_id = EXCLUDED.user_id`,
    [newEmail, userId, at],
  )
}

async function limitChecks(
  c: Parameters<typeof clientIp>[0],
  db: Db,
  ipLimitScale: number,
): Promise<void> {
  await enforceRateLimit(db, {
    key: `email-verify-ip:${clientIp(c)}`,
    ...scaled(emailVerifyIpLimit, ipLimitScale),
    message: 'Too many codes tried from this network',
  })
}

/**
 * The current address's mail names the new one (red team, issue 16): whoever
 * reads it sees where the account would go before handing the code over.
 */
const primaryMail = (newEmail: string) => (code: string) => ({
  subject: primaryMailSubject,
  text: [
    `Your code is ${code}: it changes the email of your Porthole account to ${newEmail}`,
    '',
    `It is valid for ${otpTtlSeconds / 60} minutes and works once.`,
    `If you did not ask to move your account to ${newEmail}, do not give this code to anyone,`,
    'on any site: ignore this mail and the email stays as it is.',
    '',
  ].join('\n'),
})

function secondaryMail(code: string) {
  return {
    subject: secondaryMailSubject,
    text: [
      `Your code to make this the email of your Porthole account is ${code}`,
      '',
      `It is valid for ${otpTtlSeconds / 60} minutes and works once.`,
      'If you did not ask for it, ignore this mail.',
      '',
    ].join('\n'),
  }
}
