import { hostReadMethods } from '@porthole/protocol/EmbeddedRpc'

/**
 * The JSON-RPC methods the host's provider may call with no wallet connected:
 * reads, answered through the API's RPC proxy for the default network.
 */
export const readOnlyMethods: ReadonlySet<string> = new Set(hostReadMethods)

export const isReadOnlyMethod = (method: string): boolean => readOnlyMethods.has(method)
