import { maxMessageBytes } from '@porthole/protocol/Constants'
import { InvalidParamsError } from '@porthole/protocol/Errors'
import type { ProviderRequest } from '@porthole/protocol/Host'

/** The longest method name the widget accepts (`Host.ProviderRequest`). */
export const maxMethodLength = 128
/** Room left for the envelope of the message that carries the params. */
export const maxParamsLength = maxMessageBytes - 1024

// One message for every refusal: the loader's bytes are scarce, and it names the whole contract.
const invalid = () =>
  new InvalidParamsError('Invalid request arguments: expected { method, params? }.')

/**
 * Checks the argument of an EIP-1193 `request` and returns what is sent to the
 * widget: the method, and the params as plain JSON (what any JSON-RPC
 * transport would send), so they always clone and stay under the size bound.
 * Throws an `InvalidParamsError` (-32602) on anything else.
 */
export function toProviderRequest(args: unknown): ProviderRequest {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw invalid()
  const { method, params } = args as { method?: unknown; params?: unknown }
  if (typeof method !== 'string' || !method || method.length > maxMethodLength) throw invalid()
  if (params === undefined) return { method }
  let json: string | undefined
  let value: unknown
  try {
    json = JSON.stringify(params)
    value = JSON.parse(json)
  } catch {}
  if (typeof value !== 'object' || value === null) throw invalid()
  if ((json as string).length > maxParamsLength) throw invalid()
  return { method, params: value as ProviderRequest['params'] }
}
