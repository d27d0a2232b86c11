/**
 * The EIP-1193 requests both test wallets answer with a viem local account
 * (the injected one in testWallet.ts, the WalletConnect one in walletKit.ts):
 * their params checked and read, and the errors a wallet answers with.
 *
 * Each wallet parses a request here, then asks its user (the test's
 * behaviour) and signs or sends itself: that order, params before approval,
 * is what a dapp sees in the error codes.
 */
import {
  ErrorCode,
  InvalidParamsError,
  RpcError,
  UserRejectedError,
} from '@porthole/protocol/Errors'
import {
  type Address,
  type Hex,
  hexToBigInt,
  hexToNumber,
  isAddress,
  isAddressEqual,
  isHex,
  type SignableMessage,
  type TypedDataDefinition,
} from 'viem'

// The errors a test wallet answers with are protocol's: what an `RpcError` carries crosses as it is.
export const userRejected = () => new UserRejectedError()
export const invalidParams = (why: string) => new InvalidParamsError(`Invalid params: ${why}`)

type Owner = { address: Address }

/** A request's params as a list; absent params are an empty one. */
export function toParamList(params: unknown): readonly unknown[] {
  const list = params === undefined ? [] : params
  if (!Array.isArray(list)) throw invalidParams('params must be an array')
  return list
}

/** Throws unless `value` is the address of `account`. */
function assertOwnAddress(account: Owner, value: unknown): asserts value is Address {
  if (typeof value !== 'string' || !isAddress(value, { strict: false }))
    throw invalidParams('expected an address')
  if (!isAddressEqual(value, account.address))
    throw new RpcError(ErrorCode.unauthorized, `Unknown account ${value}.`)
}

/** A chain id as the wallet_ methods carry it: a non-zero hex string. */
export function parseChainId(value: unknown): number {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value) || /^0x0+$/.test(value))
    throw invalidParams('chainId must be a non-zero hex string')
  return hexToNumber(value as Hex)
}

/** The params of wallet_switchEthereumChain and wallet_addEthereumChain: one object with a chainId. */
export function parseChainRequest(params: readonly unknown[]): {
  chainId: number
  request: Record<string, unknown>
} {
  const [request] = params
  if (typeof request !== 'object' || request === null) throw invalidParams('expected object')
  const fields = request as Record<string, unknown>
  return { chainId: parseChainId(fields.chainId), request: fields }
}

/** personal_sign's `[message, address]`: the message to sign, hex as raw bytes. */
export function parsePersonalSign(account: Owner, params: readonly unknown[]): SignableMessage {
  const [message, address] = params
  if (typeof message !== 'string') throw invalidParams('expected a message')
  assertOwnAddress(account, address)
  return isHex(message) ? { raw: message } : message
}

/** eth_signTypedData_v4's `[address, typedData]`, the typed data as JSON or as an object. */
export function parseTypedDataV4(account: Owner, params: readonly unknown[]): TypedDataDefinition {
  const [address, json] = params
  assertOwnAddress(account, address)
  let typed: unknown
  try {
    typed = typeof json === 'string' ? JSON.parse(json) : json
  } catch {
    throw invalidParams('typed data is not JSON')
  }
  if (typeof typed !== 'object' || typed === null || !('types' in typed))
    throw invalidParams('expected typed data')
  return typed as TypedDataDefinition
}

export type TransactionRequest = {
  to: Address | null
  data: Hex | undefined
  value: bigint | undefined
  gas: bigint | undefined
  nonce: number | undefined
} & (
  | { gasPrice?: bigint }
  | { maxFeePerGas: bigint | undefined; maxPriorityFeePerGas: bigint | undefined }
)

/**
 * eth_sendTransaction's `[transaction]`, sent from `account`: quantities as
 * hex, `input` read as `data`, and either a legacy or an EIP-1559 fee (none
 * when the dapp leaves the fee to the wallet).
 */
export function parseTransaction(account: Owner, params: readonly unknown[]): TransactionRequest {
  const [transaction] = params
  if (typeof transaction !== 'object' || transaction === null)
    throw invalidParams('expected a transaction')
  const fields = transaction as Record<string, unknown>
  assertOwnAddress(account, fields.from)
  const hexField = (key: string): Hex | undefined => {
    const value = fields[key]
    if (value === undefined || value === null) return undefined
    if (typeof value !== 'string' || !isHex(value)) throw invalidParams(`${key} must be hex`)
    return value
  }
  const bigField = (key: string) => {
    const value = hexField(key)
    return value === undefined ? undefined : hexToBigInt(value)
  }
  const to = hexField('to')
  if (to !== undefined && !isAddress(to, { strict: false }))
    throw invalidParams('to must be an address')
  const data = hexField('data') ?? hexField('input')
  const value = bigField('value')
  const gas = bigField('gas')
  const nonce = hexField('nonce')
  const gasPrice = bigField('gasPrice')
  const maxFeePerGas = bigField('maxFeePerGas')
  const maxPriorityFeePerGas = bigField('maxPriorityFeePerGas')
  const fees =
    gasPrice !== undefined
      ? { gasPrice }
      : maxFeePerGas !== undefined || maxPriorityFeePerGas !== undefined
        ? { maxFeePerGas, maxPriorityFeePerGas }
        : {}
  return {
    to: to ?? null,
    data,
    value,
    gas,
    nonce: nonce === undefined ? undefined : hexToNumber(nonce),
    ...fees,
  }
}
