import type { SecureSpec } from '@porthole/protocol/Secure'
import { accountOn, type Context, getChainId, requireSession } from '../wallet/session.js'

type Result = SecureSpec['requests']['setPreferredAccount']['result']

/**
 * `setPreferredAccount`: the EOA whatever is asked, since smart accounts come
 * later (SPEC 4: the preferred account type falls back to EOA).
 */
export async function setPreferredAccount(context: Context): Promise<Result> {
  const { user } = await requireSession(context)
  return { type: 'eoa', address: accountOn(user, await getChainId(context)) }
}
