/**
 * Bounds on the parameters of the Solana methods the proxy forwards
 * (SECURITY.md 24): a validator's own limits (Agave's `rpc.rs`), checked here
 * so that no upstream, a lax one or the local node included, is asked for
 * more than a validator answers. A host page can send anything: the proxy
 * refuses with -32602 what a validator would, before it reaches the node.
 *
 * - params are positional: an array of at most {@link maxSolanaParams};
 * - `getMultipleAccounts` at most 100 accounts, `getSignatureStatuses` 256
 *   signatures, `getRecentPrioritizationFees` 128 accounts,
 *   `getSignaturesForAddress` a `limit` of 1000;
 * - `sendTransaction` and `simulateTransaction` one transaction and
 *   `getFeeForMessage` one message, at most a packet (1232 bytes): 1644
 *   base64 or 1683 base58 characters.
 *
 * Config objects pass as they are: a validator reads their keys exactly
 * (serde, camelCase), so no other spelling of a key reaches it.
 */
import type { RpcRequest } from './routes.js'

/** The most positional params of any forwarded Solana method (`getTokenAccountsByOwner`'s owner, filter, config). */
export const maxSolanaParams = 3

/** A validator's limits on the lists a method takes (Agave's `rpc.rs`). */
export const solanaListLimits = {
  getMultipleAccounts: { max: 100, what: 'accounts' },
  getSignatureStatuses: { max: 256, what: 'signatures' },
  getRecentPrioritizationFees: { max: 128, what: 'accounts' },
} as const

/** `getSignaturesForAddress`'s largest `limit` (MAX_GET_CONFIRMED_SIGNATURES_FOR_ADDRESS2_LIMIT). */
export const maxSignaturesForAddress = 1000

/** A packet's worth of transaction, encoded (Agave's MAX_BASE64_SIZE and MAX_BASE58_SIZE). */
export const maxEncodedTransaction = { base64: 1644, base58: 1683 } as const

/** The methods whose first param is a serialized transaction (base58 unless the config says base64). */
const transactionMethods: ReadonlySet<string> = new Set(['sendTransaction', 'simulateTransaction'])

type Verdict = { kind: 'request'; request: RpcRequest } | { kind: 'refused'; message: string }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The request as it is, or why a validator would refuse it. */
export function boundSolanaParams(request: RpcRequest): Verdict {
  const { method, params } = request
  const refused = (message: string): Verdict => ({ kind: 'refused', message })
  if (params === undefined) return { kind: 'request', request }
  if (!Array.isArray(params) || params.length > maxSolanaParams) {
    return refused(
      `The params of ${method} must be an array of at most ${maxSolanaParams} positional entries`,
    )
  }
  const [first, second] = params
  const list = Object.hasOwn(solanaListLimits, method)
    ? solanaListLimits[method as keyof typeof solanaListLimits]
    : undefined
  if (list && Array.isArray(first) && first.length > list.max) {
    return refused(`${method} takes at most ${list.max} ${list.what}`)
  }
  if (method === 'getSignaturesForAddress' && isRecord(second) && second.limit !== undefined) {
    const { limit } = second
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
      return refused('The limit of getSignaturesForAddress must be a whole number')
    }
    if (limit > maxSignaturesForAddress) {
      return refused(`getSignaturesForAddress takes a limit of at most ${maxSignaturesForAddress}`)
    }
  }
  const encoding = transactionMethods.has(method)
    ? isRecord(second) && second.encoding === 'base64'
      ? 'base64'
      : 'base58'
    : method === 'getFeeForMessage'
      ? 'base64'
      : undefined
  if (encoding && typeof first === 'string' && first.length > maxEncodedTransaction[encoding]) {
    return refused(
      `${method} takes one transaction of at most 1232 bytes (${maxEncodedTransaction[encoding]} ${encoding} characters)`,
    )
  }
  return { kind: 'request', request }
}
