import { getChainId, requireSession, setChainId, toSecureUser } from '../wallet/session.js'
import type { Handler } from './handler.js'
import { assertSupportedChain } from './switchNetwork.js'

/**
 * `getUser`: the logged-in user on the network in use (or on `chainId`,
 * which becomes the network in use), from the cached user; 4100 when nobody
 * is logged in.
 */
export const getUser = (async ({ chainId }, context) => {
  const { user } = await requireSession(context)
  if (chainId !== undefined) {
    assertSupportedChain(chainId)
    await setChainId(context, chainId)
  }
  return toSecureUser(user, chainId ?? (await getChainId(context)))
}) satisfies Handler<'getUser'>
