import type { SecureSpec } from '@porthole/protocol/Secure'
import {
  type Context,
  getChainId,
  requireSession,
  setChainId,
  toSecureUser,
} from '../wallet/session.js'
import { assertSupportedChain } from './switchNetwork.js'

type Params = SecureSpec['requests']['getUser']['params']
type Result = SecureSpec['requests']['getUser']['result']

/**
 * `getUser`: the logged-in user on the network in use (or on `chainId`,
 * which becomes the network in use), from the cached user; 4100 when nobody
 * is logged in.
 */
export async function getUser({ chainId }: Params, context: Context): Promise<Result> {
  const { user } = await requireSession(context)
  if (chainId !== undefined) {
    assertSupportedChain(chainId)
    await setChainId(context, chainId)
  }
  return toSecureUser(user, chainId ?? (await getChainId(context)))
}
