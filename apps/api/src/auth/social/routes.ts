/**
 * Social login for embedded wallets (Google, GitHub, Apple, Facebook, X,
 * Discord) in a popup, collected by the secure frame by polling.
 *
 * - `POST /auth/v1/social/start` `{ provider, deviceId, state }`: the state
 *   is the frame's secret; the API keeps its SHA-256 with a PKCE verifier and
 *   a nonce for 10 minutes, and answers the provider's authorization URL.
 * - `GET|POST /auth/v1/social/callback?code&state` (the popup lands here;
 *   Apple posts): the code is exchanged, the user found by their identity,
 *   or by an email the provider verified and is trusted to
 *   (`emailTrustedProviders`; the identity is then not linked yet), or
 *   created, and a one-time claim (256 bits) made, of which only the SHA-256
 *   is kept; then 303 to the done page. A refusal at the provider
 *   (`error=access_denied`) is stored as a failure, and a page says so.
 * - `GET /auth/v1/social/done?state&claim`: a page whose one script
 *   (`GET /auth/v1/social/done.js`) posts `{ type: 'porthole:social-done',
 *   uri: location.href }` to `window.opener` with target origin
 *   `WIDGET_ORIGIN`, then closes the window: only the window that opened the
 *   popup learns the claim (SECURITY.md 15). Without an opener it says so.
 * - `POST /auth/v1/social/result` `{ state, deviceId, claim }`: 202 `{ status:
 *   'pending' }` until the callback ran, then, for the claim made there only,
 *   the login result once, then 410 `login_expired`. The strongest factor
 *   the account has decides (SECURITY.md 23): an account with an email gets
 *   a session only on a device already verified for it; on another, the
 *   email's device approval is mailed (`{ action: 'VERIFY_DEVICE', email }`)
 *   and the login goes on as that email's login. An identity found by email
 *   alone is linked only once a code mailed to that email is entered on this
 *   device (`VERIFY_OTP`, after the approval on a new device), never
 *   silently. An account without an email has its one identity as its
 *   strongest factor: the login verifies the device and opens the session. Another claim gets 403 `claim_mismatch` and ends
 *   the login: who started a login and let someone else finish it (the
 *   provider link sent to a victim) gets nothing. The device id must be the
 *   one the login started with.
 *
 * Start and result are the secure frame's: a browser request from another
 * origin is refused (besides CORS). States, verifiers, codes and tokens are
 * never written to an error message or a log.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import {
  Claim,
  SocialResultRequest,
  SocialStartRequest,
  State,
  socialDonePath,
} from '@porthole/protocol/Embedded'
import type { Context } from 'hono'
import { Hono } from 'hono'
import * as client from 'openid-client'
import { z } from 'zod'
import type { At, Db, Queryable } from '../../db/db.js'
import { enforceRateLimit, scaled } from '../../db/rateLimit.js'
import type { Config, OAuthProvider } from '../../http/config.js'
import { HttpError, OAuthProviderError, UserNotCreatedError } from '../../http/errors.js'
import { donePage, doneScript, htmlPage } from '../../http/pages.js'
import {
  clientIp,
  commonQuery,
  limitBody,
  parseInput,
  readFormFields,
  readJsonBody,
  readQuery,
  requireOrigin,
} from '../../http/request.js'
import { readProjectQuery } from '../../projects/projects.js'
import {
  addPendingIdentityLink,
  createUser,
  emailOf,
  findUserByEmail,
  findUserByIdentity,
  isDeviceVerified,
  sha256Hex,
} from '../../wallet/users.js'
import type { MailDeps } from '../email/codes.js'
import type { Mailer } from '../email/mailer.js'
import {
  answerLogin,
  type LoginOutcome,
  loginExpired,
  pendingAnswer,
  pendingLoginTtlSeconds,
  readCollection,
  signInOrAskEmail,
  startPendingLogin,
} from '../pendingLogin.js'
import {
  createSocialClients,
  providerDefaults,
  type SocialProfile,
  trustedEmail,
} from './providers.js'

/** Social logins started from one IP address. */
export const socialStartIpLimit = { limit: 30, windowSeconds: 10 * 60 } as const
/** Largest JSON body of start and result. */
export const maxSocialBodyBytes = 1024
/** Largest callback form (Apple's form_post). */
export const maxCallbackBodyBytes = 16 * 1024

const Query = z.strictObject(commonQuery)
const param = (max: number) => z.string().max(max).optional()
/**
 * What providers send back to the redirect URI: the code and state, an error,
 * or the extra parameters Google (`scope`, `authuser`, `hd`, `prompt`), Apple
 * (`user`, `id_token`) and RFC 9207 (`iss`) add. Anything else is refused.
 */
const CallbackParams = z.strictObject({
  state: State,
  code: z.string().min(1).max(2048).optional(),
  iss: param(2048),
  error: param(256),
  error_description: param(1024),
  error_uri: param(2048),
  error_reason: param(256),
  error_code: param(64),
  scope: param(2048),
  authuser: param(16),
  hd: param(256),
  prompt: param(64),
  session_state: param(512),
  user: param(4096),
  id_token: param(8192),
})
/** The done page's query: exactly the state and the claim. */
const DoneParams = z.strictObject({ state: State, claim: Claim })
/** What a social login keeps besides the pending login's own columns. */
const LoginRow = z.object({
  provider: z.string(),
  code_verifier: z.string(),
  nonce: z.string(),
  user_id: z.string().nullable(),
  error: z.string().nullable(),
  claim_sha256: z.string().nullable(),
  link_subject: z.string().nullable(),
  completed: z.boolean(),
})
const SocialLogin = {
  table: 'social_logins',
  columns: `provider, code_verifier, nonce, user_id, error, claim_sha256, link_subject,
            completed_at IS NOT NULL AS completed`,
  row: LoginRow,
} as const
const CallbackRow = LoginRow.extend({ expired: z.boolean() })

type Failure = 'access_denied' | 'provider_error'

/** How a collection ends: the shared outcomes, or a login spent meanwhile or failed at the provider. */
type Collected = LoginOutcome | { kind: 'gone' } | { kind: 'failed'; error: string | null }

export function createSocialRoutes({
  db,
  config,
  mailer,
  now,
  onError,
  fetch,
}: {
  db: Db
  config: Pick<
    Config,
    'publicApiUrl' | 'secureFrameOrigin' | 'widgetOrigin' | 'socialProviders' | 'ipLimitScale'
  >
  /** Mails the account's email when it must decide a login (SECURITY.md 23). */
  mailer: Mailer
  /** The clock of the rules (expiry); by default the database's `now()`. */
  now?: (() => Date) | undefined
  onError?: ((error: unknown) => void) | undefined
  /** The fetch used to reach providers; the global one by default. */
  fetch?: typeof globalThis.fetch | undefined
}): Hono {
  const app = new Hono()
  const at = (): At => now?.() ?? null
  const deps: MailDeps = { db, mailer, onError }
  const clients = createSocialClients({
    providers: config.socialProviders,
    redirectUri: `${config.publicApiUrl}/auth/v1/social/callback`,
    fetch,
  })
  const limit = limitBody(maxSocialBodyBytes)
  const fromFrame = (c: Context) =>
    requireOrigin(c, config.secureFrameOrigin, 'start or collect a social login')

  app.post('/auth/v1/social/start', limit, async (c) => {
    fromFrame(c)
    const { project } = await readProjectQuery(c, db, Query)
    const body = parseInput(SocialStartRequest, await readJsonBody(c), 'body')
    const social = clients.get(body.provider)
    if (social === undefined) {
      throw new HttpError(
        400,
        'provider_not_configured',
        `Sign-in with ${providerDefaults[body.provider].label} is not configured on this server (SOCIAL_PROVIDERS has no '${body.provider}')`,
      )
    }
    await enforceRateLimit(db, {
      key: `social-start-ip:${clientIp(c)}`,
      ...scaled(socialStartIpLimit, config.ipLimitScale),
      message: 'Too many social logins started from this network',
    })
    const codeVerifier = client.randomPKCECodeVerifier()
    const nonce = client.randomNonce()
    let uri: URL
    try {
      uri = await social.authorizationUrl({ state: body.state, codeVerifier, nonce })
    } catch (error) {
      onError?.(error)
      throw new HttpError(
        502,
        'provider_unavailable',
        `${social.label} cannot be reached right now: try again later`,
      )
    }
    await startPendingLogin(
      db,
      'social_logins',
      {
        state: body.state,
        projectId: project.id,
        deviceId: body.deviceId,
        columns: { provider: body.provider, code_verifier: codeVerifier, nonce },
      },
      at(),
    )
    c.header('Cache-Control', 'no-store')
    return c.json({ uri: uri.href })
  })

  const callback = async (c: Context) => {
    const raw = await readCallbackParams(c)
    const parsed = CallbackParams.safeParse(raw)
    if (!parsed.success) return callbackPage(c, 'invalid')
    const params = parsed.data
    const time = at()
    const stateSha256 = sha256Hex(params.state)
    const row = await readLogin(db, stateSha256, time)
    if (row === undefined) return callbackPage(c, 'invalid')
    const label = labelOf(row.provider)
    if (row.completed) return callbackPage(c, 'done', label)
    if (row.expired) return callbackPage(c, 'expired', label)

    if (params.error !== undefined || params.code === undefined) {
      const failure: Failure = params.error === 'access_denied' ? 'access_denied' : 'provider_error'
      await fail(db, stateSha256, failure, time)
      return callbackPage(c, failure, label)
    }
    const social = clients.get(row.provider as OAuthProvider)
    if (social === undefined) {
      await fail(db, stateSha256, 'provider_error', time)
      return callbackPage(c, 'provider_error', label)
    }

    let profile: SocialProfile
    try {
      profile = await social.exchange(
        { code: params.code, state: params.state, iss: params.iss },
        { codeVerifier: row.code_verifier, nonce: row.nonce },
      )
    } catch (error) {
      onError?.(error instanceof OAuthProviderError ? error : new OAuthProviderError(label))
      await fail(db, stateSha256, 'provider_error', time)
      return callbackPage(c, 'provider_error', label)
    }

    // One transaction: the user, their identity and the finished login with
    // its claim are written together, or none of them (SECURITY.md 19). The
    // device is verified only when the claim is shown (the result): whoever
    // finishes someone else's login verifies nothing for them.
    const claim = randomBytes(32).toString('base64url')
    const finished = await db.transaction(async (tx) => {
      const [locked] = await tx.query(
        `SELECT 1 FROM social_logins WHERE state_sha256 = $1 AND completed_at IS NULL FOR UPDATE`,
        [stateSha256],
      )
      if (locked === undefined) return false
      const { userId, linkSubject } = await findOrCreateUser(tx, social.provider, profile, time)
      await tx.query(
        `UPDATE social_logins SET user_id = $2, claim_sha256 = $5, link_subject = $6,
           completed_at = coalesce($3::timestamptz, now()),
           expires_at = coalesce($3::timestamptz, now()) + make_interval(secs => $4)
         WHERE state_sha256 = $1`,
        [stateSha256, userId, time, pendingLoginTtlSeconds, sha256Hex(claim), linkSubject],
      )
      return true
    })
    if (!finished) return callbackPage(c, 'done', label)
    const done = new URL(`${config.publicApiUrl}${socialDonePath}`)
    done.searchParams.set('state', params.state)
    done.searchParams.set('claim', claim)
    c.header('Cache-Control', 'no-store')
    c.header('Referrer-Policy', 'no-referrer')
    return c.redirect(done.href, 303)
  }
  app.get('/auth/v1/social/callback', callback)
  app.post('/auth/v1/social/callback', limitBody(maxCallbackBodyBytes), callback)

  // The end of a successful login in the popup. Nothing is looked up: the
  // page only hands its own URL to the window that opened the popup.
  app.get(socialDonePath, (c) => {
    let params: unknown
    try {
      params = readQuery(c)
    } catch {
      return callbackPage(c, 'invalid')
    }
    if (!DoneParams.safeParse(params).success) return callbackPage(c, 'invalid')
    return donePage(c, config.widgetOrigin)
  })
  app.get(`${socialDonePath}.js`, (c) => {
    c.header('Content-Type', 'text/javascript; charset=utf-8')
    c.header('Cache-Control', 'no-cache')
    c.header('Cross-Origin-Resource-Policy', 'same-origin')
    return c.body(doneScript)
  })

  app.post('/auth/v1/social/result', limit, async (c) => {
    fromFrame(c)
    const time = at()
    const { project, body, stateSha256, row } = await readCollection(c, db, {
      body: SocialResultRequest,
      kind: SocialLogin,
      at: time,
    })
    if (row.expired) throw loginExpired()
    if (!row.completed) {
      if (row.consumed) throw loginExpired()
      // No claim exists yet: any well-formed one waits.
      return pendingAnswer(c)
    }
    // A signed-in login is collected only with the claim its done page
    // handed to the popup's opener. Another claim ends the login (counted),
    // so it cannot be guessed and the right claim no longer helps.
    if (row.user_id !== null && !claimMatches(body.claim, row.claim_sha256)) {
      await db.query(
        `UPDATE social_logins SET claim_failures = claim_failures + 1,
           error = CASE WHEN consumed_at IS NULL THEN 'claim_mismatch' ELSE error END,
           consumed_at = coalesce(consumed_at, coalesce($2::timestamptz, now()))
         WHERE state_sha256 = $1`,
        [stateSha256, time],
      )
      throw new HttpError(
        403,
        'claim_mismatch',
        'This sign-in was not finished in the window that started it: start again',
      )
    }
    if (row.consumed) throw loginExpired()

    const deviceIdSha256 = row.device_id_sha256
    const outcome = await db.transaction(async (tx): Promise<Collected> => {
      const [consumed] = await tx.query(
        `UPDATE social_logins SET consumed_at = coalesce($2::timestamptz, now())
         WHERE state_sha256 = $1 AND consumed_at IS NULL AND completed_at IS NOT NULL
         RETURNING user_id, error, link_subject`,
        [stateSha256, time],
      )
      if (consumed === undefined) return { kind: 'gone' }
      const {
        user_id: userId,
        error,
        link_subject: linkSubject,
      } = LoginRow.pick({ user_id: true, error: true, link_subject: true }).parse(consumed)
      if (userId === null) return { kind: 'failed', error }
      if (linkSubject !== null) {
        // Found by its email alone: linked once that email confirms it here, never silently.
        const email = await emailOf(tx, userId)
        if (email === null) return { kind: 'failed', error: 'provider_error' }
        const verified = await isDeviceVerified(tx, userId, deviceIdSha256)
        await addPendingIdentityLink(
          tx,
          { userId, provider: row.provider, subject: linkSubject, deviceIdSha256 },
          time,
        )
        return { kind: 'email', userId, email, action: verified ? 'VERIFY_OTP' : 'VERIFY_DEVICE' }
      }
      // The strongest factor the account has decides (SECURITY.md 23). Without an email
      // the provider login (its own window showed the claim) verifies the device, as it
      // does the first of an account this login just made.
      return signInOrAskEmail(tx, { userId, projectId: project.id, deviceIdSha256 }, time)
    })
    if (outcome.kind === 'gone') throw loginExpired()
    if (outcome.kind === 'failed') {
      const label = labelOf(row.provider)
      throw new HttpError(
        403,
        'social_login_failed',
        outcome.error === 'access_denied'
          ? `Sign-in with ${label} was cancelled`
          : `Sign-in with ${label} failed: try again`,
      )
    }
    return answerLogin(c, outcome, { deps, config, project, deviceIdSha256, at: time })
  })

  return app
}

/**
 * The user a provider login belongs to: by identity; else, when the provider
 * verified the email and is trusted to (`trustedEmail`), the user with that
 * email, with `linkSubject` set: the identity is linked only once that email
 * confirms it (SECURITY.md 23); else a new user with this identity, and the
 * email only if it is verified, trusted and free.
 */
async function findOrCreateUser(
  tx: Queryable,
  provider: OAuthProvider,
  profile: SocialProfile,
  at: At,
): Promise<{ userId: string; linkSubject: string | null }> {
  const identity = { provider, subject: profile.subject }
  // Two first logins of one identity at once make one user.
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
    `identity:${provider}:${profile.subject}`,
  ])
  const known = await findUserByIdentity(tx, provider, profile.subject)
  if (known !== undefined) return { userId: known, linkSubject: null }
  const email = trustedEmail(provider, profile) ?? null
  if (email !== null) {
    const owner = await findUserByEmail(tx, email)
    if (owner !== undefined) return { userId: owner, linkSubject: profile.subject }
  }
  const created = await createUser(tx, { email, ...identity }, at)
  if (created !== undefined) return { userId: created, linkSubject: null }
  // The email was taken meanwhile (a concurrent login): its owner, once the email confirms it.
  const owner = email === null ? undefined : await findUserByEmail(tx, email)
  if (owner === undefined) throw new UserNotCreatedError()
  return { userId: owner, linkSubject: profile.subject }
}

/** The login the provider's callback finishes, read by its state alone (the popup has no device id). */
async function readLogin(db: Queryable, stateSha256: string, at: At) {
  const [row] = await db.query(
    `SELECT ${SocialLogin.columns}, expires_at <= coalesce($2::timestamptz, now()) AS expired
     FROM social_logins WHERE state_sha256 = $1`,
    [stateSha256, at],
  )
  return row === undefined ? undefined : CallbackRow.parse(row)
}

/** Stores a failed login (unless it finished meanwhile). */
async function fail(db: Queryable, stateSha256: string, failure: Failure, at: At): Promise<void> {
  await db.query(
    `UPDATE social_logins SET error = $2, completed_at = coalesce($3::timestamptz, now()),
       expires_at = coalesce($3::timestamptz, now()) + make_interval(secs => $4)
     WHERE state_sha256 = $1 AND completed_at IS NULL`,
    [stateSha256, failure, at, pendingLoginTtlSeconds],
  )
}

/** The callback's parameters: the query of a GET, the form of a POST (`response_mode=form_post`). */
async function readCallbackParams(c: Context): Promise<unknown> {
  try {
    if (c.req.method === 'GET') return readQuery(c)
    return await readFormFields(c)
  } catch {
    return undefined
  }
}

function labelOf(provider: string): string {
  return (
    (providerDefaults as Record<string, { label: string } | undefined>)[provider]?.label ?? provider
  )
}

/** Whether `claim` is the one whose SHA-256 was kept, compared in constant time. */
function claimMatches(claim: string, expectedSha256: string | null): boolean {
  if (expectedSha256 === null) return false
  const expected = Buffer.from(expectedSha256, 'hex')
  const given = Buffer.from(sha256Hex(claim), 'hex')
  return expected.length === given.length && timingSafeEqual(expected, given)
}

function callbackPage(
  c: Context,
  outcome: 'done' | 'invalid' | 'expired' | Failure,
  label = 'the provider',
) {
  switch (outcome) {
    case 'done':
      return htmlPage(c, 410, {
        title: 'This sign-in is already finished',
        paragraphs: ['You can close this window.'],
      })
    case 'invalid':
      return htmlPage(c, 400, {
        title: 'This sign-in is not valid',
        paragraphs: ['Close this window and sign in again from the site.'],
      })
    case 'expired':
      return htmlPage(c, 410, {
        title: 'This sign-in has expired',
        paragraphs: [
          `Sign-ins must finish within ${pendingLoginTtlSeconds / 60} minutes. Close this window and try again.`,
        ],
      })
    case 'access_denied':
      return htmlPage(c, 403, {
        title: 'Sign-in cancelled',
        paragraphs: [
          `Sign-in with ${label} was cancelled. You can close this window and try again.`,
        ],
      })
    case 'provider_error':
      return htmlPage(c, 502, {
        title: 'Sign-in failed',
        paragraphs: [`Sign-in with ${label} failed. Close this window and try again.`],
      })
  }
}
