import type { SecureSpec } from '@porthole/protocol/Secure'

type Result = SecureSpec['requests']['getSmartAccountEnabledNetworks']['result']

/** `getSmartAccountEnabledNetworks`: none yet. */
export function getSmartAccountEnabledNetworks(): Result {
  return { smartAccountEnabledNetworks: [] }
}
