/**
 * The Solana networks' JSON-RPC, through the API's proxy (`/v1/?chainId=&projectId=`,
 * as the EVM transports): one web3.js `Connection` per network. Its fetch
 * sends only `Content-Type` (web3.js's own `solana-client` header would need
 * a CORS preflight the API does not allow), and is looked up at each call.
 */
import { Connection } from '@solana/web3.js'
import { apiUrl, projectId } from '../../env.js'

/** The API's JSON-RPC proxy for a Solana network (CAIP-2). */
export function rpcUrl(caipNetworkId: string): string {
  const params = new URLSearchParams({ chainId: caipNetworkId, projectId: projectId ?? '' })
  return `${apiUrl}/v1/?${params}`
}

const connections = new Map<string, Connection>()

export function connectionFor(caipNetworkId: string): Connection {
  const known = connections.get(caipNetworkId)
  if (known) return known
  const connection = new Connection(rpcUrl(caipNetworkId), {
    commitment: 'confirmed',
    disableRetryOnRateLimit: true,
    fetch: (input, init) =>
      globalThis.fetch(input, {
        method: 'POST',
        body: init?.body ?? null,
        headers: { 'Content-Type': 'application/json' },
      }),
  })
  connections.set(caipNetworkId, connection)
  return connection
}
