import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import { PGlite, type Transaction } from '@electric-sql/pglite'
import { memoryDir } from '../http/config.js'
import { DatabaseLockedError } from '../http/errors.js'
import type { Db, Queryable } from './db.js'

/**
 * PGlite, embedded: one process owns a data directory at a time. A lock file
 * beside the directory (`<dir>.lock`, holding the owner's pid) keeps a second
 * process (say `npm run project` while the server runs) from opening it and
 * corrupting it; a lock left by a dead process is taken over.
 */
export async function createPgliteDb(dir: string): Promise<Db> {
  const release = dir === memoryDir ? () => {} : lock(dir)
  let pglite: PGlite
  try {
    pglite = await PGlite.create(dir)
  } catch (error) {
    release()
    throw error
  }
  const wrap = (target: PGlite | Transaction): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const result = await target.query<T>(sql, [...params])
      return result.rows
    },
    async exec(sql: string) {
      await target.exec(sql)
    },
  })
  let closed = false
  return {
    kind: 'pglite',
    ...wrap(pglite),
    transaction: (fn) => pglite.transaction((tx) => fn(wrap(tx))),
    // PGlite runs LISTEN/NOTIFY in the one instance: a listener hears a NOTIFY when it commits.
    async notify(channel, payload) {
      await pglite.query('SELECT pg_notify($1, $2)', [channel, payload])
    },
    async listen(channel, onMessage) {
      await pglite.listen(channel, onMessage)
    },
    async close() {
      if (closed) return
      closed = true
      try {
        await pglite.close()
      } finally {
        release()
      }
    },
  }
}

function lock(dir: string): () => void {
  mkdirSync(dir, { recursive: true })
  const path = `${dir}.lock`
  mkdirSync(dirname(path), { recursive: true })
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return () => rmSync(path, { force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const owner = Number.parseInt(readFileSync(path, 'utf8'), 10)
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new DatabaseLockedError(
          `The PGlite database in ${dir} is in use by process ${owner} (is the API server running?). PGlite allows one process at a time: stop that process first, or use PostgreSQL (DATABASE_URL) to share the database.`,
        )
      }
      rmSync(path, { force: true })
    }
  }
  throw new DatabaseLockedError(`Could not lock the PGlite database in ${dir} (${path})`)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
