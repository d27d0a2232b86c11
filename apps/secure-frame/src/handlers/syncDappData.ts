import type { Handler } from './handler.js'

/**
 * `syncDappData`: keeps the site's metadata in memory for the approval UI,
 * which shows it only as provided by the site (SECURITY.md 8).
 */
export const syncDappData = ((params, context): undefined => {
  context.memory.dappData = params
}) satisfies Handler<'syncDappData'>
