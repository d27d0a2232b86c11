import { Hono } from 'hono'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import { commonQuery, readProjectQuery } from '../http.js'

const OriginsQuery = z.strictObject(commonQuery)

export const OriginsResponse = z.strictObject({ allowedOrigins: z.array(z.string()) })
export type OriginsResponse = z.infer<typeof OriginsResponse>

/** `GET /projects/v1/origins`: the project's allowed host origins (exact or `https://*.domain`). */
export function createOriginsRoutes({ db }: { db: Db }): Hono {
  const app = new Hono()
  app.get('/projects/v1/origins', async (c) => {
    const { project } = await readProjectQuery(c, db, OriginsQuery)
    const body: OriginsResponse = { allowedOrigins: project.allowedOrigins }
    return c.json(body)
  })
  return app
}
