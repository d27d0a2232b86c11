/** `GET /appkit/v1/config`: the project's features (which login methods Connect offers). */

import { z } from '@porthole/protocol/zod'
import { queryOptions } from '@tanstack/react-query'
import { type Api, api as defaultApi } from './api.js'
import { projectId } from './env.js'

export const Features = z.strictObject({
  email: z.boolean(),
  socials: z.array(z.enum(['google', 'github', 'apple', 'facebook', 'x', 'discord'])).max(6),
  onramp: z.boolean(),
  swaps: z.boolean(),
  history: z.boolean(),
  analytics: z.boolean(),
})
export type Features = z.infer<typeof Features>

export const ProjectConfig = z.strictObject({ features: Features })
export type ProjectConfig = z.infer<typeof ProjectConfig>

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
