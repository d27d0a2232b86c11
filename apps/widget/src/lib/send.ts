/**
 * The send flow's state and rules (SPEC sections 3, 5 and 8): a token, an
 * amount and a receiver address; EVM needs a token; only EVM and Solana can
 * send. Messages are the seed's, word for word.
 */
import { validate as validateAddress } from '@porthole/chains/Address'

export type SendToken =
  | { kind: 'native'; symbol: string; decimals: number }
  | { kind: 'erc20'; address: string; symbol: string; decimals: number }

export type SendState = {
  token: SendToken | null
  sendTokenAmount: string
  receiverAddress: string
  loading: boolean
  /** When the token balances last failed (a retry waits 30 s after it). */
  lastRetry: number | null
}

export const initialSendState: SendState = {
  token: null,
  sendTokenAmount: '',
  receiverAddress: '',
  loading: false,
  lastRetry: null,
}

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

/** A decimal amount with at most `decimals` fraction digits, greater than zero. */
export function parseAmount(amount: string, decimals: number): bigint | null {
  const match = /^(\d+)(?:\.(\d*))?$/.exec(amount.trim())
  if (!match) return null
  const [, integer = '0', fraction = ''] = match
  if (fraction.length > decimals) return null
  const value = BigInt(integer + fraction.padEnd(decimals, '0'))
  return value > 0n ? value : null
}

export const isValidReceiver = (address: string, namespace: string): boolean =>
  validateAddress(address.trim(), namespace)
