/**
 * The handlers' context in the browser: the API at `apiUrl` for the project
 * named in the frame's own URL (`?projectId=`), the frame's IndexedDB (memory
 * when blocked) with the session scoped to the host's origin and the project
 * (SECURITY.md 9), the approval UI, and the browser's word on the host origin.
 */

import * as Origin from '@porthole/protocol/Origin'
import { requestApproval } from './approval/index.js'
import { createApi } from './lib/api.js'
import { apiUrl } from './lib/config.js'
import { type Context, createMemory } from './wallet/session.js'
import { createIndexedDbBackend, createStorage, withFallback } from './wallet/storage.js'

/** Milliseconds between two polls of the API while a login waits (device approval, social). */
export const pollInterval = 1_500

/**
 * The requesting host's origin as the browser reports it: the second of
 * `location.ancestorOrigins`, the page that embeds the widget and talks to it
 * (the first is the widget). Not the top-level page: an allowed host framed by
 * another allowed host asks in its own name, so a sign-in check or an approval
 * must name it, not the page around it (SECURITY.md 8). Firefox has no
 * `ancestorOrigins`: then the origin the widget's handshake saw is used.
 */
export function ancestorOrigin(list: DOMStringList | undefined): string | undefined {
  if (!list || list.length < 2) return undefined
  return list.item(1) ?? undefined
}

/**
 * The origin of the page that embeds the widget (the widget's parent), whose
 * session this frame keeps: the second of `location.ancestorOrigins` (the
 * first is the widget). Only the browser's word counts: the host can navigate
 * this frame to a URL of its choosing, so nothing in the URL may name the
 * scope. `undefined` without `ancestorOrigins` (Firefox) or when it is no
 * plain http(s) origin: the session then lives in memory only, for the page's
 * life (SECURITY.md 9).
 */
export function sessionOrigin(list: DOMStringList | undefined): string | undefined {
  const host = ancestorOrigin(list)
  return host !== undefined && Origin.parse(host) ? host : undefined
}

export function createBrowserContext(): Context {
  const query = new URLSearchParams(location.search)
  const projectId = query.get('projectId') ?? ''
  const origin = sessionOrigin(location.ancestorOrigins)
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
