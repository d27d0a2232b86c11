import type { ProjectConfig } from '@porthole/protocol/Api'
import { Hono } from 'hono'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import { commonQuery } from '../http/request.js'
import { readProjectQuery } from './projects.js'

const ConfigQuery = z.strictObject(commonQuery)

/** `GET /appkit/v1/config`: the project's features and networks, the default first (`Api.ProjectConfig`). */
export function createConfigRoutes({ db }: { db: Db }): Hono {
  const app = new Hono()
  app.get('/appkit/v1/config', async (c) => {
    const { project } = await readProjectQuery(c, db, ConfigQuery)
    const body: ProjectConfig = { features: project.features, networks: project.networks }
    return c.json(body)
  })
  return app
}
