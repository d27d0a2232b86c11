import type { SecureSpec } from '@porthole/protocol/Secure'
import type { Context } from '../wallet/session.js'

type Params = SecureSpec['requests']['syncDappData']['params']

/**
 * `syncDappData`: keeps the site's metadata in memory for the approval UI,
 * which shows it only as provided by the site (SECURITY.md 8).
 */
export function syncDappData(params: Params, context: Context): undefined {
  context.memory.dappData = params
}
