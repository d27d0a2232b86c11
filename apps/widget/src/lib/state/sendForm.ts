/**
 * The send flow's state and rules (SPEC sections 3, 5 and 8): a token, an
 * amount and a receiver address; EVM needs a token; only EVM and Solana can
 * send. Messages are the seed's, word for word.
 */
import { validate as validateAddress } from '@porthole/chains/Address'
import { tokenBalanceRetry } from '@porthole/protocol/Constants'
import type { SendState } from './store.js'

export type { SendState, SendToken } from './store.js'
export { initialSendState } from './store.js'

export const SendError = {
  required: 'An amount and receiver address are required',
  tokenRequired: 'A token is required',
  unsupportedChain: 'Unsupported chain',
} as const

const sendingNamespaces = ['eip155', 'solana']

/** The seed's send checks, in its order: the first that fails, else `null`. */
export function checkSend(state: SendState, namespace: string): string | null {
  if (!state.sendTokenAmount.trim() || !state.receiverAddress.trim()) return SendError.required
  if (!sendingNamespaces.includes(namespace)) return SendError.unsupportedChain
  if (namespace === 'eip155' && !state.token) return SendError.tokenRequired
  return null
}

/**
 * A decimal amount (`1`, `1.5`, `.5`, `1.`) in the token's smallest unit:
 * greater than zero, with at most `decimals` significant fraction digits
 * (trailing zeros don't count). `null` for anything else.
 */
export function parseAmount(amount: string, decimals: number): bigint | null {
  const match = /^(\d*)(?:\.(\d*))?$/.exec(amount.trim())
  if (!match) return null
  const integer = match[1] || '0'
  const fraction = (match[2] ?? '').replace(/0+$/, '')
  if (!match[1] && !match[2]) return null
  if (fraction.length > decimals) return null
  const value = BigInt(integer + fraction.padEnd(decimals, '0'))
  return value > 0n ? value : null
}

export const isValidReceiver = (address: string, namespace: string): boolean =>
  validateAddress(address.trim(), namespace)

/**
 * The send state's change for a new receiver address: the profile resolved
 * for the old one goes with it (unless only surrounding spaces changed), so a
 * name is never shown beside an address it was not resolved for.
 */
export const receiverPatch = (state: SendState, receiverAddress: string): Partial<SendState> =>
  receiverAddress.trim() === state.receiverAddress.trim()
    ? { receiverAddress }
    : { receiverAddress, receiverProfileName: null, receiverProfileImageUrl: null }

/** Whether a failed token balance fetch may be tried again: only 30 s after the last failure. */
export const mayRetryTokens = (lastRetry: number | null, now: number = Date.now()): boolean =>
  lastRetry === null || now - lastRetry >= tokenBalanceRetry
