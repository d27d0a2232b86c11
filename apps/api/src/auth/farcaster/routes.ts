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
import { FarcasterResultRequest, FarcasterStartRequest } from '@porthole/protocol/Embedded'
import type { Context } from 'hono'
import { Hono } from 'hono'
import { z } from 'zod'
import type { At, Db } from '../../db/db.js'
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
import { createUser, findUserByIdentity, sha256Hex } from '../../wallet/users.js'
import type { MailDeps } from '../email/codes.js'
import type { Mailer } from '../email/mailer.js'
import {
  answerLogin,
  consumePendingLogin,
  isStateUsed,
  loginExpired,
  pendingAnswer,
  readCollection,
  signInOrAskEmail,
  startPendingLogin,
  stateInUse,
} from '../pendingLogin.js'
import {
  createFarcasterRelayClient,
  createFarcasterVerifier,
  FarcasterChainError,
  type FarcasterCompleted,
  FarcasterInvalidError,
  FarcasterRelayError,
  type FarcasterVerifier,
} from './relay.js'

/** Farcaster logins started from one IP address. */
export const farcasterStartIpLimit = { limit: 30, windowSeconds: 10 * 60 } as const
/** Largest JSON body of start and result. */
export const maxFarcasterBodyBytes = 1024
/** The login identity's provider name; its subject is the fid in decimal. */
export const farcasterProvider = 'farcaster'

const Query = z.strictObject(commonQuery)
/** What a Farcaster login keeps besides the pending login's own columns. */
const FarcasterLogin = {
  table: 'farcaster_logins',
  columns: 'channel_token, nonce',
  row: z.object({ channel_token: z.string(), nonce: z.string() }),
} as const

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
    if (await isStateUsed(db, 'farcaster_logins', sha256Hex(body.state))) throw stateInUse()

    const nonce = randomBytes(16).toString('hex')
    let channel: Awaited<ReturnType<typeof relay.createChannel>>
    try {
      channel = await relay.createChannel({ siweUri, domain, nonce })
    } catch (error) {
      throw unavailable(error)
    }
    await startPendingLogin(
      db,
      'farcaster_logins',
      {
        state: body.state,
        projectId: project.id,
        deviceId: body.deviceId,
        columns: { channel_token: channel.channelToken, nonce },
      },
      at(),
    )
    c.header('Cache-Control', 'no-store')
    return c.json({ uri: channel.url })
  })

  app.post('/auth/v1/farcaster/result', limit, async (c) => {
    fromFrame(c)
    const time = at()
    const { project, stateSha256, row } = await readCollection(c, db, {
      body: FarcasterResultRequest,
      kind: FarcasterLogin,
      at: time,
    })
    if (row.consumed || row.expired) throw loginExpired()

    let completed: FarcasterCompleted
    try {
      const status = await relay.status(row.channel_token)
      if (status.state === 'gone') {
        await consumePendingLogin(db, 'farcaster_logins', stateSha256, time)
        throw loginExpired()
      }
      if (status.state === 'pending') return pendingAnswer(c)
      completed = status
      await verify(completed, { domain, siweUri, nonce: row.nonce, now: now?.() ?? new Date() })
    } catch (error) {
      if (error instanceof HttpError) throw error
      if (error instanceof FarcasterInvalidError) {
        onError?.(error)
        await consumePendingLogin(db, 'farcaster_logins', stateSha256, time)
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
      // The strongest factor the account has decides (SECURITY.md 23): its email, once it
      // has one; without, the custody signature, which verifies the device.
      return signInOrAskEmail(
        tx,
        { userId, projectId: project.id, deviceIdSha256: row.device_id_sha256 },
        time,
      )
    })
    if (outcome === undefined) throw loginExpired()
    return answerLogin(c, outcome, {
      deps,
      config,
      project,
      deviceIdSha256: row.device_id_sha256,
      at: time,
    })
  })

  return app
}
