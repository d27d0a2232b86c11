/** `GET /appkit/v1/config`: the project's features (which login methods Connect offers). */

import { ProjectConfig } from '@porthole/protocol/Api'
import { queryOptions } from '@tanstack/react-query'
import { type Api, api as defaultApi } from '../data/api.js'
import { createCache } from '../data/cache.js'
import { apiUrl, projectId } from '../env.js'
import { configGet, takeArrived } from '../startup.js'

export async function getProjectConfig(
  options: { api?: Api; signal?: AbortSignal } = {},
): Promise<ProjectConfig> {
  const { api = defaultApi, signal } = options
  const { path, params } = configGet(projectId)
  return ProjectConfig.parse(await api.get(path, { params, signal, shared: true }))
}

/** The config a returning visitor's Connect paints from, while start-up fetches it again. */
export const projectConfigCache = createCache('config', projectId, (value) =>
  ProjectConfig.parse(value),
)

const kept = projectConfigCache.read()

/** The config if the prefetch script has it already (then kept), else `undefined`: start-up fetches it. */
export function arrivedProjectConfig(): ProjectConfig | undefined {
  const config = takeArrived(apiUrl, configGet(projectId), (body) => ProjectConfig.parse(body))
  return config && projectConfigCache.write(config)
}

export const projectConfigQuery = queryOptions({
  queryKey: ['projectConfig'],
  queryFn: async ({ signal }) => projectConfigCache.write(await getProjectConfig({ signal })),
  initialData: kept?.data,
  initialDataUpdatedAt: kept?.at,
})
