import type { Handler } from './handler.js'

/** `getSmartAccountEnabledNetworks`: none yet. */
export const getSmartAccountEnabledNetworks = (() => {
  return { smartAccountEnabledNetworks: [] }
}) satisfies Handler<'getSmartAccountEnabledNetworks'>
