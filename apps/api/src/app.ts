import { Hono } from 'hono'
import { createAdminRoutes } from './admin/routes.js'
import { createAnalyticsRoutes } from './analytics/routes.js'
import { createDevOutboxRoutes } from './auth/email/devOutbox.js'
import { createAuthRoutes } from './auth/email/login.js'
import { createMailer, type Mailer } from './auth/email/mailer.js'
import { createEmailUpdateRoutes } from './auth/email/update.js'
import { createFarcasterRoutes } from './auth/farcaster/routes.js'
import { createSocialRoutes } from './auth/social/routes.js'
import type { Db } from './db/db.js'
import { priceSourceOf } from './explorer/prices.js'
import { createPricesRoutes } from './explorer/pricesRoutes.js'
import { createExplorerRoutes } from './explorer/routes.js'
import { createTokensRoutes } from './explorer/tokens.js'
import { createHistoryRoutes } from './history/routes.js'
import type { Config } from './http/config.js'
import { refuseCrossSite } from './http/crossSite.js'
import { HttpError } from './http/errors.js'
import { refuseForeignHosts } from './http/hostNames.js'
import { errorBody, identifyClient } from './http/request.js'
import { createConfigRoutes } from './projects/appkitConfig.js'
import { createProjectCache } from './projects/cache.js'
import { projectChangedChannel } from './projects/projects.js'
import { createOriginsRoutes } from './projects/routes.js'
import { createRpcRoutes, defaultRpcTimeoutMs, type RpcLimits } from './rpc/routes.js'
import { createSiwxRoutes } from './siwx/routes.js'
import { createSignatureVerifier, type SignatureVerifier } from './siwx/signatures.js'
import { createSharesRoutes } from './wallet/shares.js'

export type CreateAppOptions = {
  config: Config
  db: Db
  /** Called with unexpected errors (answered as a bare 500); the server logs them. */
  onError?: ((error: unknown) => void) | undefined
  /** Called with warnings for the operator (a project's spent RPC budget); the server logs them. */
  onWarning?: ((line: string) => void) | undefined
  /** How long the RPC proxy (and a sign-in's on-chain signature check) waits for an upstream. */
  rpcTimeoutMs?: number | undefined
  /** The RPC proxy's limits and caps, for tests; `defaultRpcLimits` (`rpc/limits.ts`) otherwise. */
  rpcLimits?: Partial<RpcLimits> | undefined
  /**
   * Checks sign-in signatures; by default viem over `config.rpcUpstreams`
   * (EOAs locally, contract wallets on chain) and ed25519 for Solana.
   */
  verifySignature?: SignatureVerifier | undefined
  /**
   * Sends login codes and device-approval links; by default SMTP to
   * `config.smtpUrl`, or the dev outbox when it is unset.
   */
  mailer?: Mailer | undefined
  /**
   * The clock of the embedded-wallet rules (30 s between mails, code, link,
   * session and social-login expiry); by default the database's `now()`,
   * shared by every replica. Tests move it.
   */
  now?: (() => Date) | undefined
  /** How the API reaches OAuth providers, the Farcaster relay and the price API; the global fetch by default. */
  fetch?: typeof fetch | undefined
  /**
   * The clock (ms) of the answers kept in memory (projects, wallet pages);
   * `performance.now` by default. Tests move it.
   */
  cacheNow?: (() => number) | undefined
}

const corsMethods = 'GET, POST, PUT, DELETE, OPTIONS'
const corsHeaders = 'Content-Type, Authorization, If-None-Match'
const corsMaxAgeSeconds = 600

/**
 * The API as a Hono app: the wallet provider's services (explorer, config,
 * origins, analytics, RPC proxy, token lists, sign-in with X) and the
 * embedded wallet's (email, social and Farcaster login, device approval, sessions, key
 * shares, email change). Used by the server and by the tests.
 * The database must be migrated (and seeded) first.
 */
export function createApp({
  config,
  db,
  onError,
  onWarning,
  rpcTimeoutMs,
  rpcLimits,
  verifySignature = createSignatureVerifier({
    rpcUpstreams: config.rpcUpstreams,
    timeoutMs: rpcTimeoutMs ?? defaultRpcTimeoutMs,
  }),
  mailer = createMailer({ config, db }),
  now,
  fetch,
  cacheNow,
}: CreateAppOptions): Hono {
  const app = new Hono()
  const corsOrigins = new Set(config.corsOrigins)
  const projects = createProjectCache({ db, now: cacheNow })
  // A project changed by the CLI (any process on PostgreSQL) is dropped at once; the TTL bounds the rest.
  db.listen(projectChangedChannel, (id) => projects.changed(id)).catch((error: unknown) =>
    onError?.(error),
  )

  // Only the API's own names (SECURITY.md 25): a DNS-rebound name gets 421 before anything runs.
  app.use('*', refuseForeignHosts(config))

  // CORS: only the configured browser origins (widget, secure frame) may read answers.
  app.use('*', async (c, next) => {
    const origin = c.req.header('origin')
    const allowed = origin !== undefined && corsOrigins.has(origin)
    if (c.req.method === 'OPTIONS') {
      const headers = new Headers({ Vary: 'Origin' })
      if (allowed) {
        headers.set('Access-Control-Allow-Origin', origin)
        headers.set('Access-Control-Allow-Methods', corsMethods)
        headers.set('Access-Control-Allow-Headers', corsHeaders)
        headers.set('Access-Control-Max-Age', String(corsMaxAgeSeconds))
      }
      return new Response(null, { status: 204, headers })
    }
    await next()
    c.res.headers.append('Vary', 'Origin')
    c.res.headers.set('X-Content-Type-Options', 'nosniff')
    if (allowed) {
      c.res.headers.set('Access-Control-Allow-Origin', origin)
      c.res.headers.set('Access-Control-Expose-Headers', 'Retry-After, ETag')
    }
  })

  // Who the client is, for per-IP limits: the socket, or X-Forwarded-For via TRUSTED_PROXIES.
  app.use('*', identifyClient(config.trustedProxies))
  // State-changing browser endpoints: only their caller's origin, only their body type.
  app.use('*', refuseCrossSite(config))

  app.get('/health', async (c) => {
    try {
      await db.query('SELECT 1')
    } catch (error) {
      onError?.(error)
      throw new HttpError(503, 'database_unavailable', 'The database is unavailable')
    }
    return c.json({ ok: true })
  })

  app.route('/', createExplorerRoutes({ db, projects, now: cacheNow }))
  app.route(
    '/',
    createConfigRoutes({
      projects,
      rpcUpstreams: config.rpcUpstreams,
      historyChains: config.historyIndexer,
    }),
  )
  app.route('/', createOriginsRoutes({ projects }))
  app.route('/', createAnalyticsRoutes({ db, config }))
  app.route('/', createRpcRoutes({ db, config, rpcTimeoutMs, limits: rpcLimits, warn: onWarning }))
  app.route('/', createTokensRoutes({ db, config }))
  app.route(
    '/',
    createPricesRoutes({ db, config, prices: priceSourceOf(config, { warn: onWarning, fetch }) }),
  )
  app.route(
    '/',
    createHistoryRoutes({ db, config, indexedChains: new Set(Object.keys(config.historyIndexer)) }),
  )
  app.route('/', createSiwxRoutes({ db, config, verifySignature }))
  app.route('/', createAuthRoutes({ db, config, mailer, now, onError }))
  app.route(
    '/',
    createEmailUpdateRoutes({ db, mailer, now, onError, ipLimitScale: config.ipLimitScale }),
  )
  app.route('/', createSharesRoutes({ db, config, now }))
  const signIns = { db, config, mailer, now, onError, fetch }
  app.route('/', createSocialRoutes(signIns))
  app.route(
    '/',
    createFarcasterRoutes({ ...signIns, rpcTimeoutMs: rpcTimeoutMs ?? defaultRpcTimeoutMs }),
  )
  app.route('/', createAdminRoutes({ db, config }))
  if (config.devOutbox) {
    app.route(
      '/',
      createDevOutboxRoutes({
        db,
        token: config.devOutboxToken,
        smtpConfigured: config.smtpUrl !== undefined,
      }),
    )
  }

  app.notFound((c) => {
    const path = new URL(c.req.url).pathname.slice(0, 200)
    return c.json(errorBody('not_found', `No such endpoint: ${c.req.method} ${path}`), 404)
  })

  app.onError((error, c) => {
    if (error instanceof HttpError) {
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value)
      return c.json({ ...error.extra, ...errorBody(error.code, error.shortMessage) }, error.status)
    }
    onError?.(error)
    return c.json(
      errorBody('internal_error', 'Something went wrong on our side; try again later'),
      500,
    )
  })

  return app
}
