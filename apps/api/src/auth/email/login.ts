/**
 * Embedded-wallet login by email, device approval and sessions
 * (SECURITY.md 13, 16, 19; wire shapes in `@porthole/protocol/Embedded`).
 *
 * - `POST /auth/v1/login/email`: answers `VERIFY_OTP` to everyone, and the
 *   mail says what to do: a known user on a device not verified for them gets
 *   a device-approval link (approving it mails the code), anyone else a login
 *   code. Both paths run the same statements and send the one mail after the
 *   answer, so neither the answer, its errors nor its time tells whether the
 *   address has an account (SECURITY.md 26). One mail per address every 30
 *   seconds either way. (`VERIFY_DEVICE` is answered only after a social or
 *   Farcaster login, whose caller has proven the identity.)
 * - `GET /auth/v1/device/approve?token=`: a page with an Approve button; a
 *   GET changes nothing (mail scanners open links). The button POSTs the
 *   token back: the device becomes verified (once, within 10 minutes) and a
 *   login code is mailed.
 * - `POST /auth/v1/device/status`: whether the device is verified for the
 *   address (false for an address nobody uses, as for any device its caller
 *   has not verified: it tells nobody else about the account).
 * - `POST /auth/v1/login/email/verify`: the code; creates the user when new,
 *   verifies the device, links the login identities waiting for this email
 *   on this device (SECURITY.md 23) and opens a 30-day session, in one
 *   transaction. A right code on a device the account has not approved is
 *   403 `device_not_verified` (only the mailbox's owner has a right code).
 * - `GET /auth/v1/session`, `DELETE /auth/v1/session`: the session's user; sign out.
 *
 * Tokens and device ids are stored as SHA-256 only; codes, tokens and
 * addresses are never written to an error message or a log.
 */
import {
  DeviceStatusRequest,
  EmailLoginRequest,
  EmailVerifyRequest,
  type LoginResult,
  Token,
} from '@porthole/protocol/Embedded'
import type { Context } from 'hono'
import { Hono } from 'hono'
import { z } from 'zod'
import type { At, Db, Queryable } from '../../db/db.js'
import { consumeRateLimit, enforceRateLimit, scaled } from '../../db/rateLimit.js'
import type { Config } from '../../http/config.js'
import { HttpError } from '../../http/errors.js'
import { htmlPage } from '../../http/pages.js'
import {
  clientIp,
  clientPrefix,
  commonQuery,
  limitBody,
  parseInput,
  readFormFields,
  readJsonBody,
  readQuery,
} from '../../http/request.js'
import { readProjectQuery } from '../../projects/projects.js'
import {
  confirmIdentityLinks,
  createSession,
  createUser,
  findUserByEmail,
  isDeviceVerified,
  randomToken,
  readUser,
  requireSession,
  revokeSession,
  sha256Hex,
  verifyDevice,
} from '../../wallet/users.js'
import {
  chargeMailBudget,
  checkCode,
  claimMailSlot,
  codeError,
  deliver,
  dropCode,
  emailSendIpLimit,
  emailSendPrefixLimit,
  emailVerifyIpLimit,
  issueCode,
  loginCodeMail,
  type MailDeps,
  type MailRequest,
  type MailSlot,
  releaseMailSlot,
  spendCode,
  takeMailSlot,
} from './codes.js'
import type { Mail, Mailer } from './mailer.js'

/** How long a device-approval link works. */
export const deviceApprovalTtlSeconds = 10 * 60
/** The subject of the device-approval mail. */
export const deviceMailSubject = 'Approve this device for Porthole'
/** Device status checks from one IP address (the frame polls while the user reads their mail). */
export const deviceStatusIpLimit = { limit: 300, windowSeconds: 10 * 60 } as const
/** Largest JSON body of these endpoints, and of the approval form. */
export const maxAuthBodyBytes = 1024

/** What the email routes share: the rules' clock, the mail dependencies and the body limit. */
export function emailRouteParts({
  db,
  mailer,
  now,
  onError,
}: MailDeps & { now?: (() => Date) | undefined }): {
  at: () => At
  deps: MailDeps
  limit: ReturnType<typeof limitBody>
} {
  return {
    at: () => now?.() ?? null,
    deps: { db, mailer, onError },
    limit: limitBody(maxAuthBodyBytes),
  }
}

const Query = z.strictObject(commonQuery)
const ApprovalForm = z.strictObject({ token: Token })
const ApprovalRow = z.object({
  user_id: z.string(),
  project_id: z.string(),
  device_id_sha256: z.string(),
})
const ApprovalStateRow = z.object({ used: z.boolean(), expired: z.boolean() })
const EmailRow = z.object({ email: z.string().nullable() })
const AccountRow = z.object({ id: z.string(), verified: z.boolean() })

type VerifyOutcome =
  | Exclude<Awaited<ReturnType<typeof checkCode>>, { kind: 'valid' }>
  | { kind: 'device_not_verified' }
  | { kind: 'signed_in'; token: string; userId: string }

type ApprovalOutcome =
  | { kind: 'invalid' | 'used' | 'expired' }
  | {
      kind: 'approved'
      mail?: { email: string; code: string; salt: string; projectId: string; slot: MailSlot }
    }

export function createAuthRoutes({
  db,
  config,
  mailer,
  now,
  onError,
}: {
  db: Db
  config: Pick<Config, 'publicApiUrl' | 'ipLimitScale'>
  mailer: Mailer
  /** The clock of the rules (throttle, expiry); by default the database's `now()`. */
  now?: (() => Date) | undefined
  onError?: ((error: unknown) => void) | undefined
}): Hono {
  const app = new Hono()
  const { at, deps, limit } = emailRouteParts({ db, mailer, now, onError })

  app.post('/auth/v1/login/email', limit, async (c) => {
    const { project } = await readProjectQuery(c, db, Query)
    const body = parseInput(EmailLoginRequest, await readJsonBody(c), 'body')
    const email = body.email.toLowerCase()
    await limitSends(c, db, project.id, config.ipLimitScale, {
      email,
      purpose: 'login',
      proofOfWork: body.proofOfWork,
    })
    const time = at()
    const deviceIdSha256 = sha256Hex(body.deviceId)

    // The same statements, the same answer and one mail, whether the address has an
    // account or not (SECURITY.md 26): the mail alone says what to do. An account on a
    // device not verified for it gets the approval link; the code issued here is then
    // never mailed (the approval mails a new one), so a guessed code fails as it would
    // for an address nobody uses.
    const [found] = await db.query(
      `SELECT u.id, EXISTS (SELECT 1 FROM devices d
                            WHERE d.user_id = u.id AND d.device_id_sha256 = $2) AS verified
       FROM users u WHERE u.email = $1`,
      [email, deviceIdSha256],
    )
    const account = found === undefined ? undefined : AccountRow.parse(found)
    const approvalFor = account !== undefined && !account.verified ? account.id : null
    const slot = await claimMailSlot(db, email, time)
    const key = { projectId: project.id, purpose: 'login', email } as const
    const issued = await issueCode(db, key, time)
    const token = randomToken()
    await recordApproval(db, {
      tokenSha256: sha256Hex(token),
      userId: approvalFor,
      projectId: project.id,
      deviceIdSha256,
      at: time,
    })
    const mail =
      approvalFor === null
        ? loginCodeMail(issued.code)
        : deviceMail(approvalLink(config, token), project.name)
    deliverAfterAnswer(deps, { to: email, ...mail }, async () => {
      await dropCode(db, key, issued.salt)
      await db.query('DELETE FROM device_verifications WHERE token_sha256 = $1', [sha256Hex(token)])
      await releaseMailSlot(db, slot)
    })
    c.header('Cache-Control', 'no-store')
    return c.json({ action: 'VERIFY_OTP' as const })
  })

  app.post('/auth/v1/device/status', limit, async (c) => {
    await readProjectQuery(c, db, Query)
    const body = parseInput(DeviceStatusRequest, await readJsonBody(c), 'body')
    await enforceRateLimit(db, {
      key: `device-status-ip:${clientIp(c)}`,
      ...scaled(deviceStatusIpLimit, config.ipLimitScale),
      message: 'Too many device checks from this network',
    })
    const rows = await db.query(
      `SELECT 1 FROM devices d JOIN users u ON u.id = d.user_id
       WHERE u.email = $1 AND d.device_id_sha256 = $2`,
      [body.email.toLowerCase(), sha256Hex(body.deviceId)],
    )
    c.header('Cache-Control', 'no-store')
    return c.json({ verified: rows.length === 1 })
  })

  app.get('/auth/v1/device/approve', async (c) => {
    const parsed = ApprovalForm.safeParse(readApprovalQuery(c))
    if (!parsed.success) return approvalPage(c, { kind: 'invalid' })
    const [row] = await db.query(
      `SELECT v.used_at IS NOT NULL AS used,
              v.expires_at <= coalesce($2::timestamptz, now()) AS expired, p.name
       FROM device_verifications v JOIN projects p ON p.id = v.project_id
       WHERE v.token_sha256 = $1`,
      [sha256Hex(parsed.data.token), at()],
    )
    if (row === undefined) return approvalPage(c, { kind: 'invalid' })
    const state = ApprovalStateRow.extend({ name: z.string() }).parse(row)
    if (state.used) return approvalPage(c, { kind: 'used' })
    if (state.expired) return approvalPage(c, { kind: 'expired' })
    return htmlPage(c, 200, {
      title: 'Approve this device?',
      paragraphs: [
        `Someone is signing in to your account on a new device, for ${state.name}.`,
        'Approve only if it is you, right now. We will then mail you a sign-in code to enter on the site.',
      ],
      form: {
        // Relative: the page's own path, whatever prefix a proxy puts before it.
        action: 'approve',
        fields: { token: parsed.data.token },
        button: 'Approve this device',
      },
    })
  })

  app.post('/auth/v1/device/approve', limit, async (c) => {
    const token = await readApprovalForm(c)
    if (token === undefined) return approvalPage(c, { kind: 'invalid' })
    const time = at()
    const outcome = await db.transaction(async (tx): Promise<ApprovalOutcome> => {
      const [claimed] = await tx.query(
        `UPDATE device_verifications SET used_at = coalesce($2::timestamptz, now())
         WHERE token_sha256 = $1 AND used_at IS NULL
           AND expires_at > coalesce($2::timestamptz, now())
         RETURNING user_id, project_id, device_id_sha256`,
        [sha256Hex(token), time],
      )
      if (claimed === undefined) {
        const [row] = await tx.query(
          `SELECT used_at IS NOT NULL AS used,
                  expires_at <= coalesce($2::timestamptz, now()) AS expired
           FROM device_verifications WHERE token_sha256 = $1`,
          [sha256Hex(token), time],
        )
        if (row === undefined) return { kind: 'invalid' }
        return { kind: ApprovalStateRow.parse(row).used ? 'used' : 'expired' }
      }
      const approval = ApprovalRow.parse(claimed)
      await verifyDevice(tx, approval.user_id, approval.device_id_sha256, time)
      const [user] = await tx.query('SELECT email FROM users WHERE id = $1', [approval.user_id])
      const email = EmailRow.parse(user).email
      if (email === null) return { kind: 'approved' }
      // The followed link proves the address: this code skips the 30 s wait, and restarts it.
      const slot = await takeMailSlot(tx, email, time)
      const key = { projectId: approval.project_id, purpose: 'login', email } as const
      const issued = await issueCode(tx, key, time)
      return {
        kind: 'approved',
        mail: { email, code: issued.code, salt: issued.salt, projectId: key.projectId, slot },
      }
    })
    if (outcome.kind !== 'approved') return approvalPage(c, outcome)
    if (outcome.mail !== undefined) {
      const { email, code, salt, projectId, slot } = outcome.mail
      try {
        await deliver(deps, { to: email, ...loginCodeMail(code) }, async () => {
          await dropCode(db, { projectId, purpose: 'login', email }, salt)
          await releaseMailSlot(db, slot)
        })
      } catch (error) {
        if (!(error instanceof HttpError)) throw error
        return htmlPage(c, 502, {
          title: 'This device is approved',
          paragraphs: [
            'The sign-in code could not be sent. Go back to the site and ask for a new code.',
          ],
        })
      }
    }
    return htmlPage(c, 200, {
      title: 'This device is approved',
      paragraphs: ['This device is approved. Go back to the site and enter the code we just sent.'],
    })
  })

  app.post('/auth/v1/login/email/verify', limit, async (c) => {
    const { project } = await readProjectQuery(c, db, Query)
    const body = parseInput(EmailVerifyRequest, await readJsonBody(c), 'body')
    const email = body.email.toLowerCase()
    await enforceRateLimit(db, {
      key: `email-verify-ip:${clientIp(c)}`,
      ...scaled(emailVerifyIpLimit, config.ipLimitScale),
      message: 'Too many codes tried from this network',
    })
    const deviceIdSha256 = sha256Hex(body.deviceId)
    const key = { projectId: project.id, purpose: 'login', email } as const
    const time = at()

    // One transaction: the code is spent, the user made, the device verified
    // and the session opened together, or none of them (SECURITY.md 19).
    const outcome = await db.transaction(async (tx): Promise<VerifyOutcome> => {
      const checked = await checkCode(tx, { ...key, otp: body.otp }, time)
      if (checked.kind !== 'valid') return checked
      let userId = await findUserByEmail(tx, email)
      if (userId === undefined) {
        userId = await createUser(tx, { email, provider: 'email', subject: email }, time)
        // Another login made the user meanwhile: this device was not verified for them.
        if (userId === undefined) return { kind: 'device_not_verified' }
      } else if (!(await isDeviceVerified(tx, userId, deviceIdSha256))) {
        return { kind: 'device_not_verified' }
      }
      await spendCode(tx, key, time)
      await verifyDevice(tx, userId, deviceIdSha256, time)
      // The email proved itself on this device: identities waiting for it here are linked.
      await confirmIdentityLinks(tx, userId, deviceIdSha256, time)
      const token = await createSession(tx, { userId, projectId: project.id, deviceIdSha256 }, time)
      return { kind: 'signed_in', token, userId }
    })

    if (outcome.kind === 'device_not_verified') {
      throw new HttpError(
        403,
        'device_not_verified',
        'This device is not approved for this account yet: approve it with the link in the email we sent, then enter the code from the next email',
      )
    }
    if (outcome.kind !== 'signed_in') throw codeError(outcome)
    const result: LoginResult = { token: outcome.token, user: await readUser(db, outcome.userId) }
    c.header('Cache-Control', 'no-store')
    return c.json(result)
  })

  app.get('/auth/v1/session', async (c) => {
    const { project } = await readProjectQuery(c, db, Query)
    const session = await requireSession(c, db, project.id, at())
    c.header('Cache-Control', 'no-store')
    return c.json({ user: await readUser(db, session.userId) })
  })

  app.delete('/auth/v1/session', async (c) => {
    const { project } = await readProjectQuery(c, db, Query)
    const session = await requireSession(c, db, project.id, at())
    await revokeSession(db, session, at())
    return c.body(null, 204)
  })

  return app
}

/**
 * Mails `email` a link that approves this device for the user (10 minutes,
 * once), after claiming the address's send slot (429 within 30 s of the last
 * mail). A social or Farcaster login on a device the account has not used
 * (SECURITY.md 23), whose caller proved the identity: it waits for the mail
 * (a 502 tells them it failed). Email login does its own, alike for every
 * address (SECURITY.md 26).
 */
export async function mailDeviceApproval(
  deps: MailDeps,
  config: Pick<Config, 'publicApiUrl'>,
  {
    userId,
    project,
    email,
    deviceIdSha256,
    at,
  }: {
    userId: string
    project: { id: string; name: string }
    email: string
    deviceIdSha256: string
    at: At
  },
): Promise<void> {
  const { db } = deps
  const slot = await claimMailSlot(db, email, at)
  const token = randomToken()
  await recordApproval(db, {
    tokenSha256: sha256Hex(token),
    userId,
    projectId: project.id,
    deviceIdSha256,
    at,
  })
  const link = approvalLink(config, token)
  await deliver(deps, { to: email, ...deviceMail(link, project.name) }, async () => {
    await db.query('DELETE FROM device_verifications WHERE token_sha256 = $1', [sha256Hex(token)])
    await releaseMailSlot(db, slot)
  })
}

/**
 * Counts a mail request against its limits, in order (SECURITY.md 13, 22):
 * per IP (429 with `Retry-After`), then per network prefix (IPv4 /24, IPv6
 * /56), then the project's shared budget. Past the prefix bucket or the
 * budget nothing the frame asks is refused outright (`chargeMailBudget`): a
 * `request` must carry a proof of work (428 `proof_of_work_required` with a
 * challenge first). Without `request` (a mail after a social or Farcaster
 * login) a spent prefix bucket is 429, and a spent budget's overflow is
 * counted and passes.
 */
export async function limitSends(
  c: Context,
  db: Db,
  projectId: string,
  ipLimitScale = 1,
  request?: MailRequest,
): Promise<void> {
  await enforceRateLimit(db, {
    key: `email-otp-ip:${clientIp(c)}`,
    ...scaled(emailSendIpLimit, ipLimitScale),
    message: 'Too many mails requested from this network',
  })
  const prefix = {
    key: `email-otp-prefix:${clientPrefix(c)}`,
    ...scaled(emailSendPrefixLimit, ipLimitScale),
    message: 'Too many mails requested from this block of network addresses',
  }
  // A spent prefix bucket refuses only mails the visitor cannot prove work
  // for: a fresh address sharing a busy /24 (a carrier's NAT) still gets in.
  if (request === undefined) await enforceRateLimit(db, prefix)
  const prefixSpent = request !== undefined && !(await consumeRateLimit(db, prefix)).allowed
  await chargeMailBudget(db, projectId, request, { prefixSpent })
}

/**
 * Stores a device-approval link's token (its SHA-256) for `userId`, valid
 * `deviceApprovalTtlSeconds`; with `userId` null it runs the same statement
 * and stores nothing (the email login of an address nobody uses, which must
 * do the same work: SECURITY.md 26).
 */
async function recordApproval(
  db: Queryable,
  {
    tokenSha256,
    userId,
    projectId,
    deviceIdSha256,
    at,
  }: {
    tokenSha256: string
    userId: string | null
    projectId: string
    deviceIdSha256: string
    at: At
  },
): Promise<void> {
  await db.query(
    `INSERT INTO device_verifications
       (token_sha256, user_id, project_id, device_id_sha256, created_at, expires_at)
     SELECT $1, $2::text, $3, $4, coalesce($5::timestamptz, now()),
            coalesce($5::timestamptz, now()) + make_interval(secs => $6)
     WHERE $2::text IS NOT NULL`,
    [tokenSha256, userId, projectId, deviceIdSha256, at, deviceApprovalTtlSeconds],
  )
}

/** The link of the device-approval mail. */
function approvalLink(config: Pick<Config, 'publicApiUrl'>, token: string): string {
  return `${config.publicApiUrl}/auth/v1/device/approve?token=${token}`
}

/**
 * Sends `mail` without holding the answer (SECURITY.md 26: how long a mail
 * server takes must not tell an approval link from a code). A failed send
 * runs `undo` (the address's slot freed, what the mail carried dropped) and
 * is reported through `onError`, naming neither address nor content.
 */
function deliverAfterAnswer(deps: MailDeps, mail: Mail, undo: () => Promise<void>): void {
  deliver(deps, mail, undo).catch((error: unknown) => {
    // `deliver` reported the mail's failure already; its 502 has nobody to go to.
    if (!(error instanceof HttpError)) deps.onError?.(error)
  })
}

/** The approval link's query, or undefined when it is not just `token`. */
function readApprovalQuery(c: Context): unknown {
  try {
    return readQuery(c)
  } catch {
    return undefined
  }
}

/** The token of the approval form (`application/x-www-form-urlencoded`, `token` only). */
async function readApprovalForm(c: Context): Promise<string | undefined> {
  const fields = await readFormFields(c)
  if (!fields) return undefined
  const parsed = ApprovalForm.safeParse(fields)
  return parsed.success ? parsed.data.token : undefined
}

function approvalPage(c: Context, outcome: { kind: 'invalid' | 'used' | 'expired' }) {
  switch (outcome.kind) {
    case 'invalid':
      return htmlPage(c, 400, {
        title: 'This link is not valid',
        paragraphs: [
          'Open the whole link from the mail, or sign in again on the site to get a new one.',
        ],
      })
    case 'used':
      return htmlPage(c, 410, {
        title: 'This link has already been used',
        paragraphs: [
          'The device is approved. Go back to the site and enter the code we sent, or ask for a new one.',
        ],
      })
    case 'expired':
      return htmlPage(c, 410, {
        title: 'This link has expired',
        paragraphs: [
          `Links work for ${deviceApprovalTtlSeconds / 60} minutes. Sign in again on the site to get a new one.`,
        ],
      })
  }
}

/**
 * The device-approval mail: it, not the answer, tells an account's owner on
 * a new device what to do (the login answers VERIFY_OTP either way).
 */
function deviceMail(link: string, projectName: string) {
  return {
    subject: deviceMailSubject,
    text: [
      `Someone is signing in to your Porthole account on a new device, for ${projectName}.`,
      "Approve this device, then we'll mail you a code to enter on the site.",
      '',
      `If it is you, open this link within ${deviceApprovalTtlSeconds / 60} minutes and press Approve:`,
      '',
      link,
      '',
      'If it was not you, ignore this mail: nobody can sign in without the link and the code.',
      '',
    ].join('\n'),
  }
}
