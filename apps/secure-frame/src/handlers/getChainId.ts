import type { SecureSpec } from '@porthole/protocol/Secure'
import { type Context, getChainId as read } from '../wallet/session.js'

type Result = SecureSpec['requests']['getChainId']['result']

/** `getChainId`: the network in use (SPEC 9's default, `eip155:1`, until one is chosen). */
export async function getChainId(context: Context): Promise<Result> {
  return { chainId: await read(context) }
}
