import { randomBytes } from 'node:crypto'
import { createDb, type Db } from '../src/db/db.js'
import { migrate } from '../src/db/migrations.js'
import { createPostgresDb } from '../src/db/postgres.js'
import { parseTrustedProxies } from '../src/http/clientIp.js'
import { type Config, memoryDir, testConfig } from '../src/http/config.js'
import { seed } from '../src/projects/seed.js'

/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true

/** The dev project's features and networks as the seed writes them (the local chain first, Solana Local first among Solana's). */
export const seededDevProject = {
  features: {
    email: true,
    socials: ['google'],
    onramp: false,
    swaps: false,
    history: true,
    analytics: true,
  },
  networks: [
    'eip155:31337',
    'eip155:1',
    'eip155:11155111',
    'eip155:8453',
    'solana:B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD',
    'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  ],
}

export type TestDb = {
  db: Db
  config: Config
  /**
   * Another connection to the same database, as a second API replica would
   * have: a new pool on PostgreSQL; the same instance on PGlite (one process).
   */
  openReplica(): Promise<Db>
  close(): Promise<void>
}

/**
 * A migrated, seeded database for one test file. The backend follows the
 * environment: `DATABASE_URL` set gives PostgreSQL in a fresh schema (dropped
 * by `close()`); otherwise in-memory PGlite. Create it once per file
 * (`beforeAll`): PGlite takes seconds to start.
 */
export async function createTestDb(
  overrides: Partial<Config> = {},
  options: { migrate?: boolean } = {},
): Promise<TestDb> {
  const databaseUrl = process.env.DATABASE_URL || undefined
  const config = testConfig({ databaseUrl, pgliteDir: memoryDir, ...overrides })
  const prepare = async (db: Db) => {
    if (options.migrate === false) return
    await migrate(db)
    await seed(db, config)
  }
  if (!databaseUrl) {
    const db = await createDb(config)
    await prepare(db)
    return { db, config, openReplica: async () => db, close: () => db.close() }
  }
  const schema = `test_${randomBytes(8).toString('hex')}`
  const admin = await createPostgresDb(databaseUrl)
  await admin.exec(`CREATE SCHEMA ${schema}`)
  const db = await createPostgresDb(databaseUrl, { schema })
  const replicas: Db[] = []
  try {
    await prepare(db)
  } catch (error) {
    await db.close()
    await admin.exec(`DROP SCHEMA ${schema} CASCADE`)
    await admin.close()
    throw error
  }
  return {
    db,
    config,
    async openReplica() {
      const replica = await createPostgresDb(databaseUrl, { schema })
      replicas.push(replica)
      return replica
    },
    async close() {
      await Promise.all([db, ...replicas].map((open) => open.close()))
      await admin.exec(`DROP SCHEMA ${schema} CASCADE`)
      await admin.close()
    },
  }
}

/**
 * `config` behind the proxy 10.0.0.1 (`TRUSTED_PROXIES` 10.0.0.0/8), the
 * per-IP limits unscaled: clients are told apart by `X-Forwarded-For`.
 */
export function behindProxy(config: Config): Config {
  return { ...config, ipLimitScale: 1, trustedProxies: parseTrustedProxies('10.0.0.0/8') }
}
