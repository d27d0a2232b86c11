import type { OriginsResponse } from '@porthole/protocol/Api'
import { Hono } from 'hono'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import { StoredOriginsError } from '../errors.js'
import { commonQuery, readProjectQuery } from '../http.js'

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
    if (project.allowedOrigins.length === 0 && project.refusedOrigins.length > 0) {
      throw new StoredOriginsError(
        `Project '${project.id}' lists only allowed origins that may not be stored`,
        {
          details: `Set its origins again (npm run project -- set-origins). Refused: ${project.refusedOrigins.join(', ')}`,
        },
      )
    }
    const body: OriginsResponse = { allowedOrigins: project.allowedOrigins }
    return c.json(body)
  })
  return app
}
