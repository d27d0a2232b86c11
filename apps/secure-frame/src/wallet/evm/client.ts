/**
 * A viem client for one EVM network of the embedded wallet, over a custom
 * transport that sends every call through the frame's own RPC path (the
 * API's RPC proxy, SECURITY.md 24). viem's actions fill what a transaction
 * needs (nonce, gas, gas price, the latest block) and send it signed; the
 * transport checks each answer they read, so a network that answers
 * nonsense gets the frame's own error, not a guess.
 *
 * No retries: a call the proxy refused or could not forward fails once, with
 * the proxy's code and message (viem's wrappers are taken off by `unwrap`).
 */
import { z } from '@porthole/protocol/zod'
import { type Client, createClient, custom, BaseError as ViemError } from 'viem'
import { UnexpectedAnswerError } from '../../lib/errors.js'

/** One JSON-RPC call through the API's proxy: the node's result, or its error as an `RpcError`. */
export type Rpc = (method: string, params: unknown[]) => Promise<unknown>

export type EvmClient = Client

const quantity = /^0x[0-9a-fA-F]{1,64}$/
/** Highest nonce viem signs as shown (a JavaScript number): 2^52 - 1. */
export const maxNonce = BigInt(Number.MAX_SAFE_INTEGER)

/** The answers viem reads to fill a transaction, and what each must be. */
const checks: Record<string, (answer: unknown) => unknown> = {
  eth_getTransactionCount: (answer) => {
    const nonce = toQuantity(answer, 'nonce')
    if (BigInt(nonce) > maxNonce) throw new UnexpectedAnswerError('nonce')
    return nonce
  },
  eth_estimateGas: (answer) => toQuantity(answer, 'gas estimate'),
  eth_gasPrice: (answer) => toQuantity(answer, 'gas price'),
  eth_maxPriorityFeePerGas: (answer) => toQuantity(answer, 'priority fee'),
  // Only the base fee is read: a block without one (or none) is a network without EIP-1559.
  eth_getBlockByNumber: (answer) => {
    const block = z.object({ baseFeePerGas: z.string().check(z.regex(quantity)) }).safeParse(answer)
    return block.success ? { baseFeePerGas: block.data.baseFeePerGas } : {}
  },
}

function toQuantity(answer: unknown, what: string): string {
  if (typeof answer === 'string' && quantity.test(answer)) return answer
  throw new UnexpectedAnswerError(what)
}

/** A viem client whose every call goes through `rpc`, once. */
export function createEvmClient(rpc: Rpc): EvmClient {
  return createClient({
    transport: custom(
      {
        async request({ method, params }: { method: string; params?: unknown }) {
          const answer = await rpc(method, (params as unknown[] | undefined) ?? [])
          const check = Object.hasOwn(checks, method) ? checks[method] : undefined
          return check ? check(answer) : answer
        },
      },
      { retryCount: 0 },
    ),
  })
}

/**
 * The error behind one viem wraps: what the RPC path or the transport's
 * checks threw (its code and message, as the frame answered before viem),
 * else viem's own.
 */
export function unwrap(error: unknown): unknown {
  if (!(error instanceof ViemError)) return error
  return error.walk((cause) => !(cause instanceof ViemError)) ?? error
}

/** `action`'s result, or the error behind viem's wrappers. */
export async function viaViem<result>(action: Promise<result>): Promise<result> {
  try {
    return await action
  } catch (error) {
    throw unwrap(error)
  }
}
