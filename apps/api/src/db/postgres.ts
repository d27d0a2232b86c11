import pg from 'pg'
import { BaseError } from '../http/errors.js'
import type { CreateDbOptions, Db, Queryable } from './db.js'

/** PostgreSQL through a `pg` pool. Several API replicas may share one database. */
export async function createPostgresDb(url: string, options: CreateDbOptions = {}): Promise<Db> {
  const { schema, onError } = options
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new BaseError(`Invalid PostgreSQL schema name '${schema}'`)
  }
  const pool = new pg.Pool({
    connectionString: url,
    application_name: 'porthole-api',
    max: 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  })
  // An idle client losing its connection emits 'error' on the pool: report it, never crash.
  pool.on('error', (error) => onError?.(error))
  const wrap = (target: pg.Pool | pg.PoolClient): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const result = await target.query(sql, [...params])
      return result.rows as T[]
    },
    async exec(sql: string) {
      await target.query(sql)
    },
  })
  // Fail at start-up, with a clear error, when the database cannot be reached.
  const probe = await pool.connect().catch(async (error: unknown) => {
    await pool.end().catch(() => {})
    throw new BaseError('Could not connect to PostgreSQL (DATABASE_URL)', {
      details: error instanceof Error ? error.message : undefined,
      cause: error,
    })
  })
  probe.release()
  let closed = false
  return {
    kind: 'postgres',
    ...wrap(pool),
    async transaction(fn) {
      const client = await pool.connect()
      let broken = false
      try {
        await client.query('BEGIN')
        const result = await fn(wrap(client))
        await client.query('COMMIT')
        return result
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {
          broken = true
        })
        throw error
      } finally {
        // A connection that could not even roll back is dropped, not reused.
        client.release(broken)
      }
    },
    async close() {
      if (closed) return
      closed = true
      await pool.end()
    },
  }
}
