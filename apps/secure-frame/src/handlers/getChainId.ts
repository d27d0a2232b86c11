import { getChainId as read } from '../wallet/session.js'
import type { Handler } from './handler.js'

/** `getChainId`: the network in use (SPEC 9's default, `eip155:1`, until one is chosen). */
export const getChainId = (async (_, context) => {
  return { chainId: await read(context) }
}) satisfies Handler<'getChainId'>
