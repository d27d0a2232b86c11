/**
 * A request that needs the visitor's approval, once checked and normalised
 * (SECURITY.md 20): what each namespace's `prepare` (wallet/evm/prepare.ts,
 * wallet/solana/prepare.ts) hands the method policy (rpc/policy.ts) to show,
 * and how it is then signed from that very object.
 */
import { InvalidParamsError } from '@porthole/protocol/Errors'
import type * as Secure from '@porthole/protocol/Secure'
import type { z } from '@porthole/protocol/zod'
import type { Token } from '../approval/request.js'
import { NotLoggedInError } from '../lib/errors.js'
import type { Context } from './session.js'
import type { CachedUser } from './storage.js'

/** Longest message a signature request may carry, in characters. */
export const maxMessageLength = 262_144

export type Prepared = {
  /** The network and account that will sign. */
  chainId: string
  account: string
  /**
   * The normalised params, deep-frozen: what the approval shows and hashes,
   * and what `sign` then signs, read from this very object.
   */
  params: unknown
  /** The ERC-20s the request calls, as read from the chain. */
  tokens?: Token[] | undefined
  /** Signs `params`, once approved; a transaction is not sent once `signal` aborts. */
  sign: (signal: AbortSignal) => Promise<unknown>
}

/** What a namespace's `prepare` is given: the request, its signer and where it comes from. */
export type PrepareParameters<method extends string> = {
  context: Context
  request: Secure.RpcRequest & { method: method }
  user: CachedUser
  /** The network in use (CAIP-2). */
  current: string
  /** The host's origin, as shown. */
  origin: string
}

/** `params` parsed by `schema`; -32602 'Invalid parameters for {method}.' when they do not parse. */
export function parseParams<schema extends z.ZodMiniType>(
  schema: schema,
  params: unknown,
  method: string,
): z.output<schema> {
  const parsed = schema.safeParse(params)
  if (!parsed.success) throw new InvalidParamsError(`Invalid parameters for ${method}.`)
  return parsed.data
}

/** 4100 when the request names an account that is not this wallet's. */
export function assertAccount(matches: boolean): void {
  if (!matches) throw new NotLoggedInError('The address is not this wallet’s account')
}
