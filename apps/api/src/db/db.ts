import { resolve } from 'node:path'
import type { Config } from '../http/config.js'
import { memoryDir } from '../http/config.js'
import { createPgliteDb } from './pglite.js'
import { createPostgresDb } from './postgres.js'

/** Runs SQL. The same SQL runs on PGlite and PostgreSQL. */
export type Queryable = {
  /** One statement with `$1`-style parameters; resolves to its rows. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>
  /** A script of one or more statements without parameters (migrations). */
  exec(sql: string): Promise<void>
}

/**
 * The time of a rule: an injected clock in tests, otherwise `null`, which the
 * SQL turns into the database's `now()`, shared by every replica.
 */
export type At = Date | null

/** The API's database: PGlite (embedded) or PostgreSQL. */
export type Db = Queryable & {
  readonly kind: 'pglite' | 'postgres'
  /** Runs `fn` in a transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>
  /**
   * `NOTIFY channel, payload`: this process's listeners hear it at once,
   * other API processes on the same PostgreSQL database through it. (On
   * PGlite no other process can have the database open.)
   */
  notify(channel: string, payload: string): Promise<void>
  /**
   * Calls `onMessage` with every payload sent on `channel` by any process,
   * and with `null` when some may have been missed (PostgreSQL: the listening
   * connection was lost; it is opened again). Resolves once listening.
   */
  listen(channel: string, onMessage: (payload: string | null) => void): Promise<void>
  close(): Promise<void>
}

export type CreateDbOptions = {
  /** PostgreSQL only: the schema to use (`search_path`), e.g. a fresh one per test run. */
  schema?: string | undefined
  /** Called with errors of idle PostgreSQL connections (which would otherwise crash the process). */
  onError?: ((error: Error) => void) | undefined
}

/** Opens PostgreSQL when `databaseUrl` is set, otherwise PGlite in `pgliteDir` (or in memory). */
export async function createDb(
  config: Pick<Config, 'databaseUrl' | 'pgliteDir'>,
  options: CreateDbOptions = {},
): Promise<Db> {
  if (config.databaseUrl) return createPostgresDb(config.databaseUrl, options)
  const dir = config.pgliteDir === memoryDir ? memoryDir : resolve(config.pgliteDir)
  return createPgliteDb(dir)
}
