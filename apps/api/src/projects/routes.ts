import type { OriginsResponse } from '@porthole/protocol/Api'
import { Hono } from 'hono'
import { z } from 'zod'
import { sendCached } from '../http/cache.js'
import { servedOrigins } from '../http/origins.js'
import { commonQuery } from '../http/request.js'
import { type ProjectCache, projectCacheControl } from './cache.js'

const OriginsQuery = z.strictObject(commonQuery)

/**
 * `GET /projects/v1/origins`: the project's allowed host origins (exact or
 * `https://*.domain`), each re-validated when read (SECURITY.md 5). A list
 * whose every entry is refused fails (500) rather than serve `[]`, which the
 * widget and the secure frame read as "the dev defaults". Served from the
 * project cache with an `ETag`; a removed origin is gone within 40 s
 * (`projectCacheControl`).
 */
export function createOriginsRoutes({ projects }: { projects: ProjectCache }): Hono {
  const app = new Hono()
  app.get('/projects/v1/origins', async (c) => {
    const { cached } = await projects.read(c, OriginsQuery)
    const body = cached.answer(
      'origins',
      (project): OriginsResponse => ({
        allowedOrigins: servedOrigins(project),
      }),
    )
    return sendCached(c, body, projectCacheControl)
  })
  return app
}
