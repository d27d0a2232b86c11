/**
 * Analytics events (`POST /e`), e.g. SIWX_AUTH_SUCCESS. Sent only when the
 * project's analytics are on (`GET /getAnalyticsConfig`); a failure is ignored:
 * analytics never get in the visitor's way.
 */
import { AnalyticsConfig } from '@porthole/protocol/Api'
import { queryOptions } from '@tanstack/react-query'
import { projectId } from '../env.js'
import { store } from '../state/store.js'
import { api } from './api.js'
import { sdkType, sdkVersion } from './explorer.js'
import { queryClient } from './queryClient.js'

export const analyticsConfigQuery = queryOptions({
  queryKey: ['analyticsConfig'],
  queryFn: async ({ signal }) =>
    AnalyticsConfig.parse(await api.get('/getAnalyticsConfig', { params: { projectId }, signal })),
})

export async function track(event: string): Promise<void> {
  try {
    const { isAnalyticsEnabled } = await queryClient.fetchQuery(analyticsConfigQuery)
    const { hostOrigin } = store.getState()
    if (!isAnalyticsEnabled || !hostOrigin) return
    await api.post('/e', {
      params: { projectId, st: sdkType, sv: sdkVersion },
      body: {
        eventId: crypto.randomUUID(),
        url: hostOrigin,
        domain: new URL(hostOrigin).host,
        timestamp: Date.now(),
        props: { type: 'track', event },
      },
    })
  } catch {}
}
