import type { ProjectConfig } from '@porthole/protocol/Api'
import { Hono } from 'hono'
import { z } from 'zod'
import { sendCached } from '../http/cache.js'
import { commonQuery } from '../http/request.js'
import { type ProjectCache, projectCacheControl } from './cache.js'

const ConfigQuery = z.strictObject(commonQuery)

/**
 * `GET /appkit/v1/config`: the project's features and networks, the default
 * first, and which of them have no RPC upstream (`Api.ProjectConfig`).
 */
export function createConfigRoutes({
  projects,
  rpcUpstreams,
  historyChains = {},
}: {
  projects: ProjectCache
  rpcUpstreams: Readonly<Record<string, string>>
  /** `HISTORY_INDEXER`: the networks with a history. */
  historyChains?: Readonly<Record<string, unknown>>
}): Hono {
  const app = new Hono()
  app.get('/appkit/v1/config', async (c) => {
    const { cached } = await projects.read(c, ConfigQuery)
    const body = cached.answer(
      'config',
      (project): ProjectConfig => ({
        features: project.features,
        networks: project.networks,
        networksWithoutRpc: project.networks.filter((network) => !(network in rpcUpstreams)),
        networksWithHistory: project.features.history
          ? project.networks.filter((network) => Object.hasOwn(historyChains, network))
          : [],
      }),
    )
    return sendCached(c, body, projectCacheControl)
  })
  return app
}
