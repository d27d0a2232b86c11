/**
 * Sign In With Farcaster for embedded wallets, through the Farcaster auth
 * relay (`FARCASTER_RELAY_URL`), collected by the secure frame by polling.
 *
 * - `POST /auth/v1/farcaster/start` `{ deviceId, state }`: the state is the
 *   frame's secret. The API opens a relay channel with a fresh nonce, for
 *   SIWE `uri` = the secure frame's origin (`SECURE_FRAME_ORIGIN`) and
 *   `domain` = its host: the frame is where the person signs in and what
 *   their Farcaster app names, the API being only its backend. The channel
 *   token and nonce are kept under the state's SHA-256, with the device id's
 *   SHA-256, for 10 minutes; the answer is the relay's https URL, for the
 *   person to open or scan with their Farcaster app.
 * - `POST /auth/v1/farcaster/result` `{ state, deviceId }`: each call reads
 *   the channel once. 202 `{ status: 'pending' }` until the app has signed;
 *   then the sign-in is verified (`relay.ts`: our domain, URI and nonce,
 *   the signature, the fid's custody address on the IdRegistry), the user
 *   found by their identity (`farcaster`, fid) or created (no email), the
 *   device verified (the custody signature is the proof) and a session
 *   opened, in one transaction; the login result is answered once, then 410
 *   `login_expired`. The strongest factor the account has decides
 *   (SECURITY.md 23): once the account has an email (added since), a device
 *   not verified for it gets no session; the email's device approval is
 *   mailed (`{ action: 'VERIFY_DEVICE', email }`) and the login goes on as
 *   that email's login. A sign-in that fails verification is spent: 403
 *   `farcaster_invalid`, then 410. A relay that cannot be reached, or a chain
 *   that cannot be read, is 502 `farcaster_unavailable` (the frame asks again).
 *
 * Both are the secure frame's: a browser request from another origin is
 * refused (besides CORS). States, channel tokens, nonces, messages and
 * signatures are never written to an error message or a log.
 */
import { randomBytes } from 'node:crypto'
import {
  type EmailStep,
  FarcasterResultRequest,
  FarcasterStartRequest,
  type LoginResult,
} from '@porthole/protocol/Embedded'
import type { Context } from 'hono'
import { Hono } from 'hono'
import { z } from 'zod'
import type { At, Db, Queryable } from '../../db/db.js'
import { enforceRateLimit, scaled } from '../../db/rateLimit.js'
import type { Config } from '../../http/config.js'
import { HttpError, UserNotCreatedError } from '../../http/errors.js'
import {
  clientIp,
  commonQuery,
  limitBody,
  parseInput,
  readJsonBody,
  requireOrigin,
} from '../../http/request.js'
import { readProjectQuery } from '../../projects/projects.js'
import {
  createSession,
  createUser,
  emailOf,
  findUserByIdentity,
  hasVerifiedDevice,
  isDeviceVerified,
  readUser,
  sha256Hex,
  verifyDevice,
} from '../../wallet/users.js'
import type { MailDeps } from '../email/codes.js'
import { limitSends, mailDeviceApproval } from '../email/login.js'
import type { Mailer } from '../email/mailer.js'
import {
  createFarcasterRelayClient,
  createFarcasterVerifier,
  FarcasterChainError,
  type FarcasterCompleted,
  FarcasterInvalidError,
  FarcasterRelayError,
  type FarcasterVerifier,
} from './relay.js'

/** How long a started Farcaster login may wait for the app's signature. */
export const farcasterLoginTtlSeconds = 10 * 60
/** Farcaster logins started from one IP address. */
export const farcasterStartIpLimit = { limit: 30, windowSeconds: 10 * 60 } as const
/** Largest JSON body of start and result. */
export const maxFarcasterBodyBytes = 1024
/** The login identity's provider name; its subject is the fid in decimal. */
export const farcasterProvider = 'farcaster'

const Query = z.strictObject(commonQuery)
const LoginRow = z.object({
  project_id: z.string(),
  device_id_sha256: z.string(),
  channel_token: z.string(),
  nonce: z.string(),
  consumed: z.boolean(),
  expired: z.boolean(),
})

export type CreateFarcasterRoutesOptions = {
  db: Db
  config: Pick<
    Config,
    | 'publicApiUrl'
    | 'secureFrameOrigin'
    | 'ipLimitScale'
    | 'rpcUpstreams'
    | 'farcasterRelayUrl'
    | 'farcasterChain'
    | 'farcasterIdRegistry'
  >
  /** Mails the account's email when it must decide a login (SECURITY.md 23). */
  mailer: Mailer
  /** The clock of the rules (expiry, the message's validity window); by default the database's `now()`. */
  now?: (() => Date) | undefined
  onError?: ((error: unknown) => void) | undefined
  /** The fetch used to reach the relay; the global one by default. */
  fetch?: typeof globalThis.fetch | undefined
  /** How long a read of the IdRegistry's chain may take. */
  rpcTimeoutMs: number
  /** Checks a completed sign-in; by default `createFarcasterVerifier` over the config. */
  verify?: FarcasterVerifier | undefined
}

export function createFarcasterRoutes({
  db,
  config,
  mailer,
  now,
  onError,
  fetch,
  rpcTimeoutMs,
  verify = createFarcasterVerifier({
    rpcUpstreams: config.rpcUpstreams,
    chain: config.farcasterChain,
    idRegistry: config.farcasterIdRegistry as `0x${string}`,
    timeoutMs: rpcTimeoutMs,
  }),
}: CreateFarcasterRoutesOptions): Hono {
  const app = new Hono()
  const at = (): At => now?.() ?? null
  const deps: MailDeps = { db, mailer, onError }
  const relay = createFarcasterRelayClient({ relayUrl: config.farcasterRelayUrl, fetch })
  const siweUri = config.secureFrameOrigin
  const domain = new URL(config.secureFrameOrigin).host
  const limit = limitBody(maxFarcasterBodyBytes)
  const fromFrame = (c: Context) =>
    requireOrigin(c, config.secureFrameOrigin, 'start or collect a Farcaster login')
  const unavailable = (error: unknown) => {
    onError?.(error)
    return new HttpError(
      502,
      'farcaster_unavailable',
      'Farcaster cannot be reached right now: try again later',
    )
  }

  app.post('/auth/v1/farcaster/start', limit, async (c) => {
    fromFrame(c)
    const { project } = await readProjectQuery(c, db, Query)
    const body = parseInput(FarcasterStartRequest, await readJsonBody(c), 'body')
    if (!Object.hasOwn(config.rpcUpstreams, config.farcasterChain)) {
      throw new HttpError(
        400,
        'provider_not_configured',
        `Sign-in with Farcaster is not configured on this server (RPC_UPSTREAMS has no ${config.farcasterChain} to read the Farcaster IdRegistry on)`,
      )
    }
    await enforceRateLimit(db, {
      key: `farcaster-start-ip:${clientIp(c)}`,
      ...scaled(farcasterStartIpLimit, config.ipLimitScale),
      message: 'Too many Farcaster logins started from this network',
    })
    const stateSha256 = sha256Hex(body.state)
    const [used] = await db.query('SELECT 1 FROM farcaster_logins WHERE state_sha256 = $1', [
      stateSha256,
    ])
    if (used !== undefined) throw stateInUse()

    const nonce = randomBytes(16).toString('hex')
    let channel: Awaited<ReturnType<typeof relay.createChannel>>
    try {
      channel = await relay.createChannel({ siweUri, domain, nonce })
    } catch (error) {
      throw unavailable(error)
    }
    const inserted = await db.query(
      `INSERT INTO farcaster_logins
         (state_sha256, project_id, device_id_sha256, channel_token, nonce, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()),
               coalesce($6::timestamptz, now()) + make_interval(secs => $7))
       ON CONFLICT (state_sha256) DO NOTHING
       RETURNING 1`,
      [
        stateSha256,
        project.id,
        sha256Hex(body.deviceId),
        channel.channelToken,
        nonce,
        at(),
        farcasterLoginTtlSeconds,
      ],
    )
    if (inserted.length === 0) throw stateInUse()
    c.header('Cache-Control', 'no-store')
    return c.json({ uri: channel.url })
  })

  app.post('/auth/v1/farcaster/result', limit, async (c) => {
    fromFrame(c)
    const { project } = await readProjectQuery(c, db, Query)
    const body = parseInput(FarcasterResultRequest, await readJsonBody(c), 'body')
    const time = at()
    const stateSha256 = sha256Hex(body.state)
    const row = await readLogin(db, stateSha256, time)
    if (row === undefined || row.project_id !== project.id) throw loginExpired()
    if (row.device_id_sha256 !== sha256Hex(body.deviceId)) {
      throw new HttpError(403, 'device_mismatch', 'This login was started on another device')
    }
    if (row.consumed || row.expired) throw loginExpired()

    let completed: FarcasterCompleted
    try {
      const status = await relay.status(row.channel_token)
      if (status.state === 'gone') {
        await consume(db, stateSha256, time)
        throw loginExpired()
      }
      if (status.state === 'pending') {
        c.header('Cache-Control', 'no-store')
        return c.json({ status: 'pending' as const }, 202)
      }
      completed = status
      await verify(completed, { domain, siweUri, nonce: row.nonce, now: now?.() ?? new Date() })
    } catch (error) {
      if (error instanceof HttpError) throw error
      if (error instanceof FarcasterInvalidError) {
        onError?.(error)
        await consume(db, stateSha256, time)
        throw new HttpError(
          403,
          'farcaster_invalid',
          'This Farcaster sign-in could not be verified: start again',
        )
      }
      if (error instanceof FarcasterRelayError || error instanceof FarcasterChainError)
        throw unavailable(error)
      throw error
    }

    // One transaction: the user, their identity, the verified device, the
    // session and the spent login are written together, or none of them.
    const subject = String(completed.fid)
    const outcome = await db.transaction(async (tx) => {
      const [locked] = await tx.query(
        `SELECT 1 FROM farcaster_logins WHERE state_sha256 = $1 AND consumed_at IS NULL FOR UPDATE`,
        [stateSha256],
      )
      if (locked === undefined) return undefined
      // Two first logins of one fid at once make one user.
      await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `identity:${farcasterProvider}:${subject}`,
      ])
      const userId =
        (await findUserByIdentity(tx, farcasterProvider, subject)) ??
        (await createUser(tx, { email: null, provider: farcasterProvider, subject }, time))
      if (userId === undefined) throw new UserNotCreatedError()
      await tx.query(
        `UPDATE farcaster_logins SET user_id = $2, consumed_at = coalesce($3::timestamptz, now())
         WHERE state_sha256 = $1`,
        [stateSha256, userId, time],
      )
      // The strongest factor the account has decides (SECURITY.md 23): its email, once it has one.
      const email = await emailOf(tx, userId)
      const verified = await isDeviceVerified(tx, userId, row.device_id_sha256)
      if (email !== null && !verified && (await hasVerifiedDevice(tx, userId)))
        return { kind: 'email' as const, userId, email }
      // Without an email the custody signature is the account's strongest factor: it
      // verifies the device, as it does the first of an account this login just made.
      if (!verified) await verifyDevice(tx, userId, row.device_id_sha256, time)
      const token = await createSession(
        tx,
        { userId, projectId: project.id, deviceIdSha256: row.device_id_sha256 },
        time,
      )
      return { kind: 'signed_in' as const, userId, token }
    })
    if (outcome === undefined) throw loginExpired()
    if (outcome.kind === 'email') {
      const { userId, email } = outcome
      await limitSends(c, db, project.id, config.ipLimitScale)
      await mailDeviceApproval(deps, config, {
        userId,
        project,
        email,
        deviceIdSha256: row.device_id_sha256,
        at: time,
      })
      const step: EmailStep = { action: 'VERIFY_DEVICE', email }
      c.header('Cache-Control', 'no-store')
      return c.json(step)
    }
    const result: LoginResult = { token: outcome.token, user: await readUser(db, outcome.userId) }
    c.header('Cache-Control', 'no-store')
    return c.json(result)
  })

  return app
}

async function readLogin(db: Queryable, stateSha256: string, at: At) {
  const [row] = await db.query(
    `SELECT project_id, device_id_sha256, channel_token, nonce,
            consumed_at IS NOT NULL AS consumed,
            expires_at <= coalesce($2::timestamptz, now()) AS expired
     FROM farcaster_logins WHERE state_sha256 = $1`,
    [stateSha256, at],
  )
  return row === undefined ? undefined : LoginRow.parse(row)
}

/** Spends a login that can sign no one in (the relay forgot it, or it failed verification). */
async function consume(db: Queryable, stateSha256: string, at: At): Promise<void> {
  await db.query(
    `UPDATE farcaster_logins SET consumed_at = coalesce($2::timestamptz, now())
     WHERE state_sha256 = $1 AND consumed_at IS NULL`,
    [stateSha256, at],
  )
}

function stateInUse(): HttpError {
  return new HttpError(409, 'state_in_use', 'This state has been used already: make a new one')
}

function loginExpired(): HttpError {
  return new HttpError(
    410,
    'login_expired',
    'This login has expired or was already collected: start again',
  )
}
