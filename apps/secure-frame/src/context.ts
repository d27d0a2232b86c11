/**
 * The handlers' context in the browser: the API at `apiUrl` for the project
 * named in the frame's own URL (`?projectId=`), the frame's IndexedDB (memory
 * when blocked) with the session scoped to the host's origin and the project
 * (SECURITY.md 9), the approval UI, and the browser's word on the host origin.
 */

import * as Origin from '@porthole/protocol/Origin'
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

/**
 * The origin of the page that embeds the widget (the widget's parent), whose
 * session this frame keeps: the second of `location.ancestorOrigins` (the
 * first is the widget). Without it (Firefox), the origin the widget's
 * handshake saw, which the widget puts in this frame's URL (`?hostOrigin=`).
 * `undefined` when neither is a plain http(s) origin: the session then lives
 * in memory only.
 */
export function sessionOrigin(
  list: DOMStringList | undefined,
  fromWidget: string | null,
): string | undefined {
  const host = list && list.length >= 2 ? list.item(1) : null
  if (host !== null) return Origin.parse(host) ? host : undefined
  return fromWidget !== null && Origin.parse(fromWidget) ? fromWidget : undefined
}

export function createBrowserContext(): Context {
  const query = new URLSearchParams(location.search)
  const projectId = query.get('projectId') ?? ''
  const origin = sessionOrigin(location.ancestorOrigins, query.get('hostOrigin'))
  return {
    api: createApi({ apiUrl, projectId }),
    storage: createStorage(withFallback(createIndexedDbBackend()), {
      scope: origin === undefined || projectId === '' ? undefined : { origin, projectId },
    }),
    memory: createMemory(),
    requestApproval,
    ancestorOrigin: () => ancestorOrigin(location.ancestorOrigins),
    pollInterval,
    reload: () => location.reload(),
  }
}
