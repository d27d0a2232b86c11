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
  const listeners = createListeners(url, schema, onError, () => closed)
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
    async notify(channel, payload) {
      await pool.query('SELECT pg_notify($1, $2)', [channel, payload])
      // This process at once; the others (and this one again) when PostgreSQL delivers it.
      listeners.deliver(channel, payload)
    },
    listen: (channel, onMessage) => listeners.add(channel, onMessage),
    async close() {
      if (closed) return
      closed = true
      await Promise.all([pool.end(), listeners.close()])
    },
  }
}

/** How long a lost listening connection waits before it is opened again. */
const relistenDelayMs = 1_000

/**
 * The `LISTEN`s of one Db: one connection of their own (a pooled one would
 * go back to the pool), opened at the first `add`. When it is lost every
 * listener hears `null` (messages may have been missed) and it is opened
 * again after `relistenDelayMs`.
 */
function createListeners(
  url: string,
  schema: string | undefined,
  onError: ((error: Error) => void) | undefined,
  isClosed: () => boolean,
) {
  const byChannel = new Map<string, ((payload: string | null) => void)[]>()
  let client: Promise<pg.Client> | undefined
  const deliver = (channel: string, payload: string | null) => {
    for (const onMessage of byChannel.get(channel) ?? []) onMessage(payload)
  }
  const connect = (): Promise<pg.Client> => {
    const opened = new pg.Client({
      connectionString: url,
      application_name: 'porthole-api-listen',
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    })
    let lostOnce = false
    const lost = (error: Error) => {
      if (lostOnce) return
      lostOnce = true
      onError?.(error)
      if (client === listening) client = undefined
      opened.end().catch(() => {})
      for (const channel of byChannel.keys()) deliver(channel, null)
      setTimeout(() => {
        if (!isClosed() && client === undefined) connect().catch(() => {})
      }, relistenDelayMs).unref()
    }
    opened.on('notification', (message) => deliver(message.channel, message.payload ?? null))
    opened.on('error', lost)
    opened.on('end', () => {
      if (!isClosed()) lost(new Error('The PostgreSQL LISTEN connection ended'))
    })
    const listening = opened.connect().then(async () => {
      for (const channel of byChannel.keys()) await opened.query(`LISTEN ${quoteName(channel)}`)
      return opened
    })
    listening.catch(lost)
    client = listening
    return listening
  }
  return {
    deliver,
    async add(channel: string, onMessage: (payload: string | null) => void) {
      const known = byChannel.get(channel)
      byChannel.set(channel, [...(known ?? []), onMessage])
      const open = await (client ?? connect())
      if (known === undefined) await open.query(`LISTEN ${quoteName(channel)}`)
    },
    async close() {
      const open = await client?.catch(() => undefined)
      client = undefined
      await open?.end().catch(() => {})
    },
  }
}

/** A channel name as an SQL identifier. */
function quoteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}
