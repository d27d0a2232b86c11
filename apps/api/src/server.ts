/**
 * Starts the API: `npx tsx apps/api/src/server.ts` (or `npm start` at the root,
 * which starts everything). Configured by environment variables (src/http/config.ts).
 */
import { serve } from '@hono/node-server'
import { loopbackHostnames } from '@porthole/protocol/HostNames'
import { createApp } from './app.js'
import { logMailBudgetTo, pruneEmailLogin } from './auth/email/codes.js'
import { devOutboxPath } from './auth/email/devOutbox.js'
import { createDb } from './db/db.js'
import { migrate } from './db/migrations.js'
import { pruneRateLimits } from './db/rateLimit.js'
import { startIndexers } from './history/indexers.js'
import { configFromEnv, developmentShareKey, memoryDir, productionRefusals } from './http/config.js'
import { BaseError } from './http/errors.js'
import { apiHostRule } from './http/hostNames.js'
import { productionRefusalsInDb } from './projects/projects.js'
import { seed } from './projects/seed.js'
import { pruneSiwx } from './siwx/routes.js'
import { pruneAccounts } from './wallet/users.js'

/** Rate-limit rows older than this are deleted (every limit's window is far shorter). */
const rateLimitRetentionSeconds = 24 * 60 * 60
const pruneIntervalMs = 10 * 60 * 1000
const shutdownTimeoutMs = 5_000

function logError(context: string, error: unknown): void {
  // Messages and stacks only: no request bodies, no configuration values.
  console.error(`${context}:`, error instanceof Error ? (error.stack ?? error.message) : error)
}

/** Prints each refusal of `PORTHOLE_ENV=production` on its own line and exits with 1. */
function refuseToStart(refusals: string[]): never {
  for (const line of refusals) console.error(line)
  process.exit(1)
}

async function main(): Promise<void> {
  const config = configFromEnv(process.env)
  // Before the database is opened: a refused start changes nothing.
  const refusals = productionRefusals(config)
  if (refusals.length > 0) refuseToStart(refusals)
  const db = await createDb(config, { onError: (error) => logError('PostgreSQL', error) })
  const applied = await migrate(db)
  const refusedInDb = await productionRefusalsInDb(db, config)
  if (refusedInDb.length > 0) {
    await db.close()
    refuseToStart(refusedInDb)
  }
  await seed(db, config)
  const app = createApp({
    config,
    db,
    onError: (error) => logError('Request failed', error),
    onWarning: (line) => console.warn(line),
  })
  // A project's spent mail budget, once per window (SECURITY.md 22).
  logMailBudgetTo((line) => console.warn(line))

  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    const storage =
      db.kind === 'postgres'
        ? 'PostgreSQL (DATABASE_URL)'
        : config.pgliteDir === memoryDir
          ? 'PGlite in memory'
          : `PGlite in ${config.pgliteDir}`
    if (applied.length > 0) console.log(`Applied migrations: ${applied.join(', ')}`)
    const devProject = config.seedDevProject ? config.devProjectId : 'not seeded'
    console.log(`Environment: ${config.portholeEnv} (PORTHOLE_ENV)`)
    console.log(`Database: ${storage}; dev project: ${devProject}`)
    const proxies = config.trustedProxies.entries
    console.log(
      proxies.length > 0
        ? `Client addresses: X-Forwarded-For through the trusted proxies ${proxies.join(', ')}`
        : 'Client addresses: the socket (TRUSTED_PROXIES unset: X-Forwarded-For ignored)',
    )
    const names = apiHostRule(config).names.map(({ hostname, port }) => `${hostname}:${port}`)
    const loopback =
      config.portholeEnv === 'production'
        ? ''
        : `, and ${loopbackHostnames.join(', ')} on port ${info.port} (development)`
    console.log(`Host names: ${names.join(', ')}${loopback}; any other Host gets 421`)
    // Never the SMTP URL itself: it may hold a password.
    const mail = config.smtpUrl ? 'SMTP (SMTP_URL)' : 'dev outbox only (SMTP_URL unset)'
    // The path is the outbox's only protection (SECURITY.md 25): printed for the developer.
    const outbox = config.devOutbox
      ? `; dev outbox at ${config.publicApiUrl}${devOutboxPath(config)}`
      : ''
    console.log(`Mail: ${mail}${outbox}`)
    if (config.shareEncryptionKeys[0]?.id === developmentShareKey.id) {
      console.warn(
        'Warning: SHARE_ENCRYPTION_KEY is unset: recovery shares are encrypted under the public development key. Set it (openssl rand -base64 32) before holding real funds.',
      )
    }
    const socials = Object.keys(config.socialProviders)
    console.log(
      `Social logins: ${socials.length > 0 ? socials.join(', ') : 'none (SOCIAL_PROVIDERS unset)'}`,
    )
    console.log(`API listening on http://${config.host}:${info.port}`)
  })

  // One indexer per network in HISTORY_INDEXER; with several replicas, a lease picks one.
  const indexers = startIndexers({ db, config, onError: (error) => logError('Indexing', error) })

  const prune = setInterval(() => {
    pruneRateLimits(db, rateLimitRetentionSeconds).catch((error: unknown) =>
      logError('Pruning rate limits failed', error),
    )
    pruneSiwx(db).catch((error: unknown) => logError('Pruning sign-in nonces failed', error))
    pruneEmailLogin(db).catch((error: unknown) => logError('Pruning email codes failed', error))
    pruneAccounts(db).catch((error: unknown) => logError('Pruning sessions failed', error))
  }, pruneIntervalMs)
  prune.unref()

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) {
      console.log(`${signal} again: exiting now`)
      process.exit(1)
    }
    stopping = true
    console.log(`${signal}: shutting down`)
    clearInterval(prune)
    const force = setTimeout(() => {
      console.error('Shutdown timed out; exiting')
      process.exit(1)
    }, shutdownTimeoutMs)
    force.unref()
    server.close(async () => {
      // The leases go back first, so another replica takes the networks over at once.
      await indexers.stop()
      db.close().then(
        () => {
          console.log('API stopped')
          process.exit(0)
        },
        (error: unknown) => {
          logError('Closing the database failed', error)
          process.exit(1)
        },
      )
    })
    if ('closeIdleConnections' in server) server.closeIdleConnections()
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))

  server.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') {
      console.error(
        `Port ${config.port} on ${config.host} is in use: stop the other process or set PORT`,
      )
    } else {
      logError('Server error', error)
    }
    db.close().then(
      () => process.exit(1),
      () => process.exit(1),
    )
  })
}

main().catch((error: unknown) => {
  if (error instanceof BaseError) console.error(`Error: ${error.message}`)
  else logError('The API failed to start', error)
  process.exit(1)
})
