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
import { base58 as base58Codec } from '@scure/base'
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

const decodeBase58 = (text: string) => base58Codec.decode(text)

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
  // 64 base58 characters can be fewer than 64 bytes: the decoded length decides.
  if (sig !== undefined && (!signature.test(sig) || decodeBase58(sig).length !== 64))
    throw malformed(method)
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
