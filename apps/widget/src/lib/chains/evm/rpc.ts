/** The EVM networks' JSON-RPC: the API's proxy, as every read of the widget goes. */
import { apiUrl, projectId } from '../../env.js'

/** The API's JSON-RPC proxy for a chain (`/v1/?chainId=&projectId=`). */
export function rpcUrl(chainId: number): string {
  const params = new URLSearchParams({ chainId: `eip155:${chainId}`, projectId: projectId ?? '' })
  return `${apiUrl}/v1/?${params}`
}
