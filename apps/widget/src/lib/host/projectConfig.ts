/** `GET /appkit/v1/config`: the project's features (which login methods Connect offers). */

import { ProjectConfig } from '@porthole/protocol/Api'
import { queryOptions } from '@tanstack/react-query'
import { type Api, api as defaultApi } from '../data/api.js'
import { projectId } from '../env.js'

export async function getProjectConfig(
  options: { api?: Api; signal?: AbortSignal } = {},
): Promise<ProjectConfig> {
  const { api = defaultApi, signal } = options
  return ProjectConfig.parse(await api.get('/appkit/v1/config', { params: { projectId }, signal }))
}

export const projectConfigQuery = queryOptions({
  queryKey: ['projectConfig'],
  queryFn: ({ signal }) => getProjectConfig({ signal }),
})
