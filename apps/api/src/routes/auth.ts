/**
 * Embedded-wallet login by email, device approval and sessions
 * (SECURITY.md 13, 16, 19; wire shapes in `@porthole/protocol/Embedded`).
 *
 * - `POST /auth/v1/login/email`: a known user on a device not verified for
 *   them gets a device-approval link by mail (`VERIFY_DEVICE`); anyone else a
 *   login code (`VERIFY_OTP`). One mail per address every 30 seconds either way.
 * - `GET /auth/v1/device/approve?token=`: a page with an Approve button; a
 *   GET changes nothing (mail scanners open links). The button POSTs the
 *   token back: the device becomes verified (once, within 10 minutes) and a
 *   login code is mailed.
 * - `POST /auth/v1/device/status`: whether the device is verified for the
 *   address (false for an address nobody uses).
 * - `POST /auth/v1/login/email/verify`: the code; creates the user when new,
 *   verifies the device, links the login identities waiting for this email
 *   on this device (SECURITY.md 23) and opens a 30-day session, in one
 *   transaction.
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
import type { Config } from '../config.js'
import type { Db } from '../db/db.js'
import {
  type At,
  checkCode,
  claimMailSlot,
  codeError,
  deliver,
  dropCode,
  emailSendIpLimit,
  emailSendProjectLimit,
  emailVerifyIpLimit,
  issueCode,
  loginCodeMail,
  type MailDeps,
  type MailSlot,
  releaseMailSlot,
  sendCode,
  spendCode,
  takeMailSlot,
} from '../emailCodes.js'
import { HttpError } from '../errors.js'
import {
  clientIp,
  commonQuery,
  limitBody,
  parseInput,
  readJsonBody,
  readProjectQuery,
  readQuery,
} from '../http.js'
import type { Mailer } from '../mailer.js'
import { htmlPage } from '../pages.js'
import { enforceRateLimit, scaled } from '../rateLimit.js'
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
} from '../users.js'

/** How long a device-approval link works. */
export const deviceApprovalTtlSeconds = 10 * 60
/** The subject of the device-approval mail. */
export const deviceMailSubject = 'Approve this device for Porthole'
/** Device status checks from one IP address (the frame polls while the user reads their mail). */
export const deviceStatusIpLimit = { limit: 300, windowSeconds: 10 * 60 } as const
/** Largest JSON body of these endpoints, and of the approval form. */
export const maxAuthBodyBytes = 1024

const Query = z.strictObject(commonQuery)
const ApprovalForm = z.strictObject({ token: Token })
const ApprovalRow = z.object({
  user_id: z.string(),
  project_id: z.string(),
  device_id_sha256: z.string(),
})
const ApprovalStateRow = z.object({ used: z.boolean(), expired: z.boolean() })
const EmailRow = z.object({ email: z.string().nullable() })

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
  const at = (): At => now?.() ?? null
  const deps: MailDeps = { db, mailer, onError }
  const limit = limitBody(maxAuthBodyBytes)

  app.post('/auth/v1/login/email', limit, async (c) => {
    const { project } = await readProjectQuery(c, db, Query)
    const body = parseInput(EmailLoginRequest, await readJsonBody(c), 'body')
    const email = body.email.toLowerCase()
    await limitSends(c, db, project.id, config.ipLimitScale)
    const time = at()
    const deviceIdSha256 = sha256Hex(body.deviceId)

    const userId = await findUserByEmail(db, email)
    if (userId !== undefined && !(await isDeviceVerified(db, userId, deviceIdSha256))) {
      await mailDeviceApproval(deps, config, {
        userId,
        project,
        email,
        deviceIdSha256,
        at: time,
      })
      c.header('Cache-Control', 'no-store')
      return c.json({ action: 'VERIFY_DEVICE' as const })
    }

    await sendCode(
      deps,
      { projectId: project.id, purpose: 'login', email },
      { at: time, mail: loginCodeMail },
    )
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
        'This device is not verified for this account: follow the link we mailed, then enter the new code',
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
 * mail). The email login of a known user on a new device, and a social or
 * Farcaster login on a device the account has not used (SECURITY.md 23).
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
  await db.query(
    `INSERT INTO device_verifications
       (token_sha256, user_id, project_id, device_id_sha256, created_at, expires_at)
     VALUES ($1, $2, $3, $4, coalesce($5::timestamptz, now()),
             coalesce($5::timestamptz, now()) + make_interval(secs => $6))`,
    [sha256Hex(token), userId, project.id, deviceIdSha256, at, deviceApprovalTtlSeconds],
  )
  const link = `${config.publicApiUrl}/auth/v1/device/approve?token=${token}`
  await deliver(deps, { to: email, ...deviceMail(link, project.name) }, async () => {
    await db.query('DELETE FROM device_verifications WHERE token_sha256 = $1', [sha256Hex(token)])
    await releaseMailSlot(db, slot)
  })
}

/** Counts a mail against the per-IP and per-project limits. */
export async function limitSends(
  c: Context,
  db: Db,
  projectId: string,
  ipLimitScale = 1,
): Promise<void> {
  await enforceRateLimit(db, {
    key: `email-otp-ip:${clientIp(c)}`,
    ...scaled(emailSendIpLimit, ipLimitScale),
    message: 'Too many mails requested from this network',
  })
  await enforceRateLimit(db, {
    key: `email-otp-project:${projectId}`,
    ...emailSendProjectLimit,
    message: `Too many mails requested for project '${projectId}'`,
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
  const type = c.req.header('content-type') ?? ''
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) return undefined
  const fields: Record<string, string> = {}
  for (const [name, value] of new URLSearchParams(await c.req.text())) {
    if (Object.hasOwn(fields, name)) return undefined
    fields[name] = value
  }
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

/** The device-approval mail. */
function deviceMail(link: string, projectName: string) {
  return {
    subject: deviceMailSubject,
    text: [
      `Someone is signing in to your Porthole account on a new device, for ${projectName}.`,
      `If it is you, approve the device within ${deviceApprovalTtlSeconds / 60} minutes:`,
      '',
      link,
      '',
      'We will then mail you a sign-in code to enter on the site.',
      'If it was not you, ignore this mail: nobody can sign in without the link and the code.',
      '',
    ].join('\n'),
  }
}
