/**
 * The pending login that social (OIDC) and Farcaster sign-ins share: the
 * secure frame starts it with a secret state, then polls for its result.
 *
 * ```
 * start ──► pending ──► (completed) ──► consumed
 *              │                           ▲
 *              └──► expired (10 minutes)   └── answered once, then 410
 * ```
 *
 * A row per login, in the sign-in's own table (`social_logins`,
 * `farcaster_logins`), keyed by the state's SHA-256, with the device id's
 * SHA-256: a state starts one login only (409 `state_in_use`); only the
 * project and device that started it may collect it (410 `login_expired`,
 * 403 `device_mismatch`); it is collected once. When it signs someone in,
 * the strongest factor the account has decides (SECURITY.md 23): an account
 * with an email gets a session only on a device already verified for it;
 * on another, the email's device approval is mailed and the login goes on
 * as that email's login (`VERIFY_DEVICE`).
 */
import type { EmailStep, LoginResult } from '@porthole/protocol/Embedded'
import type { Context } from 'hono'
import { z } from 'zod'
import type { At, Db, Queryable } from '../db/db.js'
import type { Config } from '../http/config.js'
import { HttpError } from '../http/errors.js'
import { commonQuery, parseInput, readJsonBody } from '../http/request.js'
import type { Project } from '../http/schemas.js'
import { readProjectQuery } from '../projects/projects.js'
import {
  createSession,
  emailOf,
  hasVerifiedDevice,
  isDeviceVerified,
  readUser,
  sha256Hex,
  verifyDevice,
} from '../wallet/users.js'
import { loginCodeMail, type MailDeps, sendCode } from './email/codes.js'
import { limitSends, mailDeviceApproval } from './email/login.js'

/** How long a started login may wait for its sign-in, and a finished one for its collection. */
export const pendingLoginTtlSeconds = 10 * 60

/** The tables of pending logins, one per sign-in. */
export type PendingLoginTable = 'social_logins' | 'farcaster_logins'

/** What every pending login holds, whatever its sign-in. */
const Query = z.strictObject(commonQuery)
const PendingLoginRow = z.object({
  project_id: z.string(),
  device_id_sha256: z.string(),
  consumed: z.boolean(),
  expired: z.boolean(),
})
export type PendingLoginRow = z.infer<typeof PendingLoginRow>

/** Whether a login was ever started with this state (a state starts one login only). */
export async function isStateUsed(
  db: Queryable,
  table: PendingLoginTable,
  stateSha256: string,
): Promise<boolean> {
  const [used] = await db.query(`SELECT 1 FROM ${table} WHERE state_sha256 = $1`, [stateSha256])
  return used !== undefined
}

/**
 * Starts a login, pending for `pendingLoginTtlSeconds`, with the sign-in's
 * own `columns` (names written here in code, never a caller's input).
 * A state used before is 409 `state_in_use`.
 */
export async function startPendingLogin(
  db: Queryable,
  table: PendingLoginTable,
  login: {
    state: string
    projectId: string
    deviceId: string
    columns: Readonly<Record<string, string>>
  },
  at: At,
): Promise<void> {
  const names = Object.keys(login.columns)
  const values = Object.values(login.columns)
  const placeholders = names.map((_, index) => `$${index + 6}`)
  const inserted = await db.query(
    `INSERT INTO ${table}
       (state_sha256, project_id, device_id_sha256, ${names.join(', ')}, created_at, expires_at)
     VALUES ($1, $2, $3, ${placeholders.join(', ')}, coalesce($4::timestamptz, now()),
             coalesce($4::timestamptz, now()) + make_interval(secs => $5))
     ON CONFLICT (state_sha256) DO NOTHING
     RETURNING 1`,
    [
      sha256Hex(login.state),
      login.projectId,
      sha256Hex(login.deviceId),
      at,
      pendingLoginTtlSeconds,
      ...values,
    ],
  )
  if (inserted.length === 0) throw stateInUse()
}

/** A sign-in's pending logins: its table, and its own columns (SQL select items written in code). */
export type PendingLoginKind<S extends z.ZodObject> = {
  table: PendingLoginTable
  columns: string
  row: S
}

/**
 * Reads a login for its collection by the frame, with the sign-in's own
 * columns. Unknown, or started for another project: 410 `login_expired`;
 * started on another device: 403 `device_mismatch`. Whether it is consumed
 * or expired is the caller's to decide, as its sign-in allows.
 */
export async function readPendingLogin<S extends z.ZodObject>(
  db: Queryable,
  kind: PendingLoginKind<S>,
  collector: { state: string; projectId: string; deviceId: string },
  at: At,
): Promise<PendingLoginRow & z.infer<S>> {
  const [found] = await db.query(
    `SELECT project_id, device_id_sha256, ${kind.columns},
            consumed_at IS NOT NULL AS consumed,
            expires_at <= coalesce($2::timestamptz, now()) AS expired
     FROM ${kind.table} WHERE state_sha256 = $1`,
    [sha256Hex(collector.state), at],
  )
  if (found === undefined) throw loginExpired()
  const row = { ...PendingLoginRow.parse(found), ...kind.row.parse(found) }
  if (row.project_id !== collector.projectId) throw loginExpired()
  if (row.device_id_sha256 !== sha256Hex(collector.deviceId)) {
    throw new HttpError(403, 'device_mismatch', 'This login was started on another device')
  }
  return row
}

/**
 * The start of the frame's collection (`POST …/result`): the project, the
 * body, the state's SHA-256 and the login, read as `readPendingLogin` does.
 */
export async function readCollection<
  S extends z.ZodObject,
  B extends z.core.$ZodType<{ state: string; deviceId: string }>,
>(
  c: Context,
  db: Db,
  { body: Body, kind, at }: { body: B; kind: PendingLoginKind<S>; at: At },
): Promise<{
  project: Project
  body: z.infer<B>
  stateSha256: string
  row: PendingLoginRow & z.infer<S>
}> {
  const { project } = await readProjectQuery(c, db, Query)
  const body = parseInput(Body, await readJsonBody(c), 'body')
  const stateSha256 = sha256Hex(body.state)
  const row = await readPendingLogin(db, kind, { ...body, projectId: project.id }, at)
  return { project, body, stateSha256, row }
}

/** Spends a login that can sign no one in (forgotten upstream, or failed verification). */
export async function consumePendingLogin(
  db: Queryable,
  table: PendingLoginTable,
  stateSha256: string,
  at: At,
): Promise<void> {
  await db.query(
    `UPDATE ${table} SET consumed_at = coalesce($2::timestamptz, now())
     WHERE state_sha256 = $1 AND consumed_at IS NULL`,
    [stateSha256, at],
  )
}

/** The answer while the sign-in has not happened yet: 202, ask again. */
export function pendingAnswer(c: Context) {
  c.header('Cache-Control', 'no-store')
  return c.json({ status: 'pending' as const }, 202)
}

/** How a collected login ends: a session, or the account's email decides. */
export type LoginOutcome =
  | { kind: 'signed_in'; userId: string; token: string }
  | { kind: 'email'; userId: string; email: string; action: EmailStep['action'] }

/**
 * The strongest factor the account has decides (SECURITY.md 23), inside the
 * login's transaction: an account with an email and a verified device gets
 * no session on another device (its email decides, `VERIFY_DEVICE`).
 * Otherwise the sign-in is the account's strongest factor: it verifies the
 * device (an account's first device, or one without an email) and opens a
 * session.
 */
export async function signInOrAskEmail(
  tx: Queryable,
  login: { userId: string; projectId: string; deviceIdSha256: string },
  at: At,
): Promise<LoginOutcome> {
  const { userId, deviceIdSha256 } = login
  const email = await emailOf(tx, userId)
  const verified = await isDeviceVerified(tx, userId, deviceIdSha256)
  if (email !== null && !verified && (await hasVerifiedDevice(tx, userId)))
    return { kind: 'email', userId, email, action: 'VERIFY_DEVICE' }
  if (!verified) await verifyDevice(tx, userId, deviceIdSha256, at)
  const token = await createSession(tx, { userId, projectId: login.projectId, deviceIdSha256 }, at)
  return { kind: 'signed_in', userId, token }
}

/**
 * Answers a collected login: the login result, or the email step, after
 * mailing what it asks for (the device approval, or a login code).
 */
export async function answerLogin(
  c: Context,
  outcome: LoginOutcome,
  context: {
    deps: MailDeps
    config: Pick<Config, 'publicApiUrl' | 'ipLimitScale'>
    project: Project
    deviceIdSha256: string
    at: At
  },
) {
  const { deps, config, project, at } = context
  if (outcome.kind === 'signed_in') {
    const result: LoginResult = {
      token: outcome.token,
      user: await readUser(deps.db, outcome.userId),
    }
    c.header('Cache-Control', 'no-store')
    return c.json(result)
  }
  const { userId, email, action } = outcome
  await limitSends(c, deps.db, project.id, config.ipLimitScale)
  if (action === 'VERIFY_DEVICE') {
    await mailDeviceApproval(deps, config, {
      userId,
      project,
      email,
      deviceIdSha256: context.deviceIdSha256,
      at,
    })
  } else {
    await sendCode(
      deps,
      { projectId: project.id, purpose: 'login', email },
      { at, mail: loginCodeMail },
    )
  }
  const step: EmailStep = { action, email }
  c.header('Cache-Control', 'no-store')
  return c.json(step)
}

export function stateInUse(): HttpError {
  return new HttpError(409, 'state_in_use', 'This state has been used already: make a new one')
}

export function loginExpired(): HttpError {
  return new HttpError(
    410,
    'login_expired',
    'This login has expired or was already collected: start again',
  )
}
