import { Hono } from 'hono'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import { commonQuery, readProjectQuery } from '../http.js'
import { Features } from '../schemas.js'

const ConfigQuery = z.strictObject(commonQuery)

export const ConfigResponse = z.strictObject({ features: Features })
export type ConfigResponse = z.infer<typeof ConfigResponse>

/** `GET /appkit/v1/config`: the project's features. */
export function createConfigRoutes({ db }: { db: Db }): Hono {
  const app = new Hono()
  app.get('/appkit/v1/config', async (c) => {
    const { project } = await readProjectQuery(c, db, ConfigQuery)
    const body: ConfigResponse = { features: project.features }
    return c.json(body)
  })
  return app
}
