import type { OriginsResponse } from '@porthole/protocol/Api'
import { Hono } from 'hono'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import { servedOrigins } from '../http/origins.js'
import { commonQuery } from '../http/request.js'
import { readProjectQuery } from './projects.js'

const OriginsQuery = z.strictObject(commonQuery)

/**
 * `GET /projects/v1/origins`: the project's allowed host origins (exact or
 * `https://*.domain`), each re-validated when read (SECURITY.md 5). A list
 * whose every entry is refused fails (500) rather than serve `[]`, which the
 * widget and the secure frame read as "the dev defaults".
 */
export function createOriginsRoutes({ db }: { db: Db }): Hono {
  const app = new Hono()
  app.get('/projects/v1/origins', async (c) => {
    const { project } = await readProjectQuery(c, db, OriginsQuery)
    const body: OriginsResponse = { allowedOrigins: servedOrigins(project) }
    return c.json(body)
  })
  return app
}
