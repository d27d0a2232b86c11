/**
 * The Solana side of the WalletConnect session: the pairing (started by
 * wagmi's connector, `evm/walletConnect.ts`) proposes the project's Solana
 * networks too, and a wallet that approves them puts `solana:<ref>:<address>`
 * accounts in the session. The Solana adapter reads them here and sends the
 * wallet WalletConnect's Solana RPC through the same provider
 * (`../walletConnect/provider.ts`). The wallet is as untrusted as the host:
 * its answers are checked before anyone uses them.
 */
import { ErrorCode, InvalidParamsError, RpcError, WalletError } from '@porthole/protocol/Errors'
import { base58 as base58Codec, base64 as base64Codec } from '@scure/base'
import {
  disconnectWalletConnect,
  onWalletConnectSession,
  walletConnectProvider,
} from '../walletConnect/provider.js'

export { solanaWalletConnectMethods } from '../walletConnect/provider.js'

/** The session's Solana accounts (CAIP-10 `solana:<ref>:<address>`) and their networks (CAIP-2). */
export type SolanaSession = { accounts: string[]; chains: string[] }

/** WalletConnect's Solana methods, their params and what the adapter gets back. */
export type SolanaRequests = {
  solana_signMessage: {
    /** base58 message bytes, and the signer's address. */
    params: { message: string; pubkey: string }
    result: { signature: string }
  }
  solana_signTransaction: {
    params: { transaction: string }
    /** The signed transaction (base64), or only the signer's signature (base58), or both. */
    result: { transaction?: string; signature?: string }
  }
  solana_signAndSendTransaction: {
    params: {
      transaction: string
      sendOptions?: {
        preflightCommitment?: string
        skipPreflight?: boolean
        maxRetries?: number
        minContextSlot?: number
      }
    }
    /** The transaction's signature (base58), its id on the network. */
    result: { signature: string }
  }
}

export type SolanaMethod = keyof SolanaRequests

const base58 = /^[1-9A-HJ-NP-Za-km-z]+$/
const address = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/
/** An ed25519 signature is 64 bytes: 86 to 88 base58 characters. */
const signature = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
/** A Solana transaction is at most 1232 bytes; its base64, 1644 characters. */
const maxTransactionLength = 1644
const caip10 = /^solana:[1-9A-HJ-NP-Za-km-z]{32}:[1-9A-HJ-NP-Za-km-z]{32,44}$/

const networkOf = (account: string) => account.split(':').slice(0, 2).join(':')

/** The session's Solana accounts, or undefined when there is no session or it holds none. */
export function solanaSession(): SolanaSession | undefined {
  const namespace = walletConnectProvider()?.session?.namespaces.solana
  const accounts = [...new Set((namespace?.accounts ?? []).filter((a) => caip10.test(a)))]
  if (accounts.length === 0) return undefined
  return { accounts, chains: [...new Set(accounts.map(networkOf))] }
}

/** Calls `listener` whenever the session may have changed (connected, updated, ended). */
export const onSolanaSessionChange = (listener: () => void): (() => void) =>
  onWalletConnectSession(listener)

/** Ends the WalletConnect session (an EVM connection through it ends too). */
export const disconnectSolana = (): Promise<void> => disconnectWalletConnect()

const malformed = (method: string) =>
  new RpcError(ErrorCode.internal, `The wallet answered ${method} with a malformed result.`)

const stringField = (result: unknown, key: string): string | undefined => {
  const value = (result as Record<string, unknown> | null)?.[key]
  return typeof value === 'string' ? value : undefined
}

/** The wallet's answer, checked and reduced to the fields the contract names. */
function checkResult<M extends SolanaMethod>(
  method: M,
  result: unknown,
): SolanaRequests[M]['result'] {
  if (typeof result !== 'object' || result === null) throw malformed(method)
  const sig = stringField(result, 'signature')
  if (sig !== undefined && !signature.test(sig)) throw malformed(method)
  if (method !== 'solana_signTransaction') {
    if (sig === undefined) throw malformed(method)
    return { signature: sig }
  }
  const transaction = stringField(result, 'transaction')
  if (
    transaction !== undefined &&
    (transaction.length > maxTransactionLength || !base64.test(transaction))
  )
    throw malformed(method)
  if (transaction === undefined && sig === undefined) throw malformed(method)
  return {
    ...(transaction === undefined ? {} : { transaction }),
    ...(sig === undefined ? {} : { signature: sig }),
  } as SolanaRequests[M]['result']
}

/** The params the adapter passes, checked before they leave for the wallet. */
function checkParams(method: SolanaMethod, params: Record<string, unknown>): void {
  const { message, pubkey, transaction } = params
  const valid =
    method === 'solana_signMessage'
      ? typeof message === 'string' &&
        base58.test(message) &&
        typeof pubkey === 'string' &&
        address.test(pubkey)
      : typeof transaction === 'string' &&
        transaction.length <= maxTransactionLength &&
        base64.test(transaction)
  if (!valid) throw new InvalidParamsError()
}

/**
 * Sends one of WalletConnect's Solana methods to the wallet for a network of
 * the session (`solana:<ref>`). The wallet's refusal comes back as it answered
 * it (4001 for a user's no); a malformed answer is -32603.
 */
export async function requestSolana<M extends SolanaMethod>(
  method: M,
  params: SolanaRequests[M]['params'],
  caipNetworkId: string,
): Promise<SolanaRequests[M]['result']> {
  const provider = walletConnectProvider()
  const session = solanaSession()
  if (!provider || !session)
    throw new RpcError(ErrorCode.unauthorized, 'WalletConnect has no Solana session.')
  if (!session.chains.includes(caipNetworkId))
    throw new RpcError(ErrorCode.unknownChain, `The wallet did not approve ${caipNetworkId}.`)
  checkParams(method, params)
  let result: unknown
  try {
    result = await provider.request({ method, params }, caipNetworkId)
  } catch (error) {
    throw WalletError.from(error)
  }
  return checkResult(method, result)
}

/** Reads Solana's compact-u16 (a short vector's length) at `offset`: its value and its size. */
function compactU16(bytes: Uint8Array, offset: number): [value: number, size: number] {
  let value = 0
  for (let index = 0; index < 3; index++) {
    const byte = bytes[offset + index]
    if (byte === undefined) break
    value |= (byte & 0x7f) << (7 * index)
    if ((byte & 0x80) === 0) return [value, index + 1]
  }
  throw new InvalidParamsError('Not a Solana transaction.')
}

/**
 * The transaction with `signature` in the signer's slot: what a wallet that
 * answers solana_signTransaction with the signature only means. The slot is
 * the account's place among the message's signers (legacy or versioned).
 */
export function withSignature(
  transaction: Uint8Array,
  address: string,
  signature: Uint8Array,
): Uint8Array {
  const [slots, slotsSize] = compactU16(transaction, 0)
  let message = slotsSize + 64 * slots
  // A versioned message starts with its version, 0x80 and up; a legacy one with its header.
  if (((transaction[message] ?? 0) & 0x80) !== 0) message += 1
  const signers = transaction[message] ?? 0
  const [keys, keysSize] = compactU16(transaction, message + 3)
  const key = base58Codec.decode(address)
  const first = message + 3 + keysSize
  for (let index = 0; index < Math.min(signers, keys, slots); index++) {
    const candidate = transaction.subarray(first + 32 * index, first + 32 * (index + 1))
    if (candidate.length === 32 && candidate.every((byte, at) => byte === key[at])) {
      const signed = transaction.slice()
      signed.set(signature.subarray(0, 64), slotsSize + 64 * index)
      return signed
    }
  }
  throw new RpcError(ErrorCode.internal, `The transaction asks no signature of ${address}.`)
}

/** The session's network for an account: the first that holds it, or 4100. */
function networkOfAccount(address: string): string {
  const account = solanaSession()?.accounts.find((candidate) => candidate.endsWith(`:${address}`))
  if (!account) throw new RpcError(ErrorCode.unauthorized, `Unknown account ${address}.`)
  return networkOf(account)
}

type SendOptions = {
  preflightCommitment?: string | undefined
  skipPreflight?: boolean | undefined
  maxRetries?: number | undefined
  minContextSlot?: number | undefined
}

/**
 * The session's Solana account as a wallet of the Solana adapter (the shape of
 * its `wallet.ts`: raw bytes in and out). It never pairs: the Connect view's
 * one pairing does; `connect` answers the session's account, or null.
 */
export const walletConnectSolanaWallet = {
  id: 'walletConnect',
  name: 'WalletConnect',
  networks: (): readonly string[] => solanaSession()?.chains ?? [],

  async connect(_silent?: boolean): Promise<string | null> {
    return solanaSession()?.accounts[0]?.split(':')[2] ?? null
  },

  disconnect: disconnectSolana,

  async signMessage(address: string, message: Uint8Array): Promise<Uint8Array> {
    const { signature } = await requestSolana(
      'solana_signMessage',
      { message: base58Codec.encode(message), pubkey: address },
      networkOfAccount(address),
    )
    return base58Codec.decode(signature)
  },

  async signTransaction(
    address: string,
    transaction: Uint8Array,
    caipNetworkId: string,
  ): Promise<Uint8Array> {
    networkOfAccount(address)
    const result = await requestSolana(
      'solana_signTransaction',
      { transaction: base64Codec.encode(transaction) },
      caipNetworkId,
    )
    if (result.transaction !== undefined) return base64Codec.decode(result.transaction)
    return withSignature(transaction, address, base58Codec.decode(result.signature as string))
  },

  async signAndSendTransaction(
    address: string,
    transaction: Uint8Array,
    caipNetworkId: string,
    options?: SendOptions,
  ): Promise<string> {
    networkOfAccount(address)
    const sendOptions = Object.fromEntries(
      Object.entries(options ?? {}).filter(([, value]) => value !== undefined),
    )
    const { signature } = await requestSolana(
      'solana_signAndSendTransaction',
      {
        transaction: base64Codec.encode(transaction),
        ...(Object.keys(sendOptions).length > 0 ? { sendOptions } : {}),
      },
      caipNetworkId,
    )
    return signature
  },
}
