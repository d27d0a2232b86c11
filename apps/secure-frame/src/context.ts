/**
 * The handlers' context in the browser: the API at `apiUrl` for the project
 * named in the frame's own URL (`?projectId=`), the frame's IndexedDB (memory
 * when blocked), the approval UI, and the browser's word on the host origin.
 */

import { createApi } from './api.js'
import { requestApproval } from './approval/index.js'
import { apiUrl } from './config.js'
import { type Context, createMemory } from './wallet/session.js'
import { createIndexedDbBackend, createStorage, withFallback } from './wallet/storage.js'

/** Milliseconds between two polls of the API while a login waits (device approval, social). */
export const pollInterval = 1_500

/**
 * The host's origin as the browser reports it: the last of
 * `location.ancestorOrigins` (the widget's origin comes first). Firefox has
 * no `ancestorOrigins`: then the origin the widget's handshake saw is used.
 */
export function ancestorOrigin(list: DOMStringList | undefined): string | undefined {
  if (!list || list.length < 2) return undefined
  return list.item(list.length - 1) ?? undefined
}

export function createBrowserContext(): Context {
  const projectId = new URLSearchParams(location.search).get('projectId') ?? ''
  return {
    api: createApi({ apiUrl, projectId }),
    storage: createStorage(withFallback(createIndexedDbBackend())),
    memory: createMemory(),
    requestApproval,
    ancestorOrigin: () => ancestorOrigin(location.ancestorOrigins),
    pollInterval,
    reload: () => location.reload(),
  }
}
