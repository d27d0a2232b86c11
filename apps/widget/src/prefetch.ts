/**
 * The prefetch script, bundled on its own (vite.config.ts puts its tag first,
 * `async`): as soon as the page starts, while the app's JS still downloads
 * and compiles, it sends the start-up GETs (lib/startup.ts) and starts the
 * handshake with the host (lib/host/handshake.ts). The app takes the answers
 * and the port. Nothing here may import zod or the app.
 */

import { parseUrlSetting } from './lib/defaults.js'
import { hostHandshake } from './lib/host/handshake.js'
import { runtimeConfig } from './lib/runtimeConfig.js'
import { readProjectId, sendEarly, startupGets } from './lib/startup.js'

const projectId = readProjectId(location.search)
if (projectId !== null && window.parent !== window) {
  void hostHandshake()
  const base = parseUrlSetting('VITE_API_URL', runtimeConfig.apiUrl ?? import.meta.env.VITE_API_URL)
  for (const get of startupGets(projectId)) sendEarly(base, get)
}
