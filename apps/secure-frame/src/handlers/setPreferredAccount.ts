import { accountOn, getChainId, requireSession } from '../wallet/session.js'
import type { Handler } from './handler.js'

/**
 * `setPreferredAccount`: the EOA whatever is asked, since smart accounts come
 * later (SPEC 4: the preferred account type falls back to EOA).
 */
export const setPreferredAccount = (async (_, context) => {
  const { user } = await requireSession(context)
  return { type: 'eoa', address: accountOn(user, await getChainId(context)) }
}) satisfies Handler<'setPreferredAccount'>
