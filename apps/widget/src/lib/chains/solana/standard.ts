/**
 * The host page's Wallet Standard wallets (the store's `standardWallets`,
 * from the loader's bridge) as `SolanaWallet`s: each call is a
 * `standardWalletRequest` the loader runs on the wallet (bytes in base64,
 * accounts by address). The loader's answers come from the host page: each
 * is parsed here and bounded before use.
 */
import * as Solana from '@porthole/chains/Solana'
import { ErrorCode, RpcError } from '@porthole/protocol/Errors'
import type { StandardWallet } from '@porthole/protocol/Host'
import { base58, base64 } from '@scure/base'
import { standardConnectorIdOf } from '../../data/connectList.js'
import { requestStandardWallet } from '../../host/channel.js'
import { store } from '../../state/store.js'
import type { SendOptions, SolanaWallet } from './wallet.js'

export const standardConnectorPrefix = 'standard:'

/** The wallet's Standard chain of a network (`solana:localnet`), or undefined. */
export const standardChainOf = (caipNetworkId: string): string | undefined =>
  Object.hasOwn(Solana.walletStandardChains, caipNetworkId)
    ? (Solana.walletStandardChains as Record<string, string>)[caipNetworkId]
    : undefined

/** The networks (CAIP-2) of a wallet's Standard chains, in its order; unknown chains are skipped. */
export function networksOf(chains: readonly string[]): string[] {
  const byChain = new Map<string, string>(
    Object.entries(Solana.walletStandardChains).map(([caip, chain]) => [chain, caip]),
  )
  return chains.flatMap((chain) => byChain.get(chain) ?? [])
}

/** An answer of the host page that is not what the feature returns. */
export class BadWalletAnswerError extends RpcError {
  override name = 'BadWalletAnswerError'
  constructor(feature: string) {
    super(ErrorCode.internal, `The wallet's answer to ${feature} is malformed.`)
  }
}

const solanaAddress = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/
/** Bounds on the bytes a wallet sends back (a transaction is at most 1232 bytes). */
const maxBase64Length = 4096

function field(value: unknown, key: string, feature: string): unknown {
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key))
    throw new BadWalletAnswerError(feature)
  return (value as Record<string, unknown>)[key]
}

function bytesField(value: unknown, key: string, feature: string, length?: number): Uint8Array {
  const text = field(value, key, feature)
  if (typeof text !== 'string' || text.length > maxBase64Length)
    throw new BadWalletAnswerError(feature)
  let bytes: Uint8Array
  try {
    bytes = base64.decode(text)
  } catch {
    throw new BadWalletAnswerError(feature)
  }
  if (length !== undefined && bytes.length !== length) throw new BadWalletAnswerError(feature)
  return bytes
}

/** The addresses of `standard:connect`'s answer (at most 16, each a Solana address). */
export function accountsOf(answer: unknown): string[] {
  const accounts = field(answer, 'accounts', 'standard:connect')
  if (
    !Array.isArray(accounts) ||
    accounts.length > 16 ||
    !accounts.every((account) => typeof account === 'string' && solanaAddress.test(account))
  )
    throw new BadWalletAnswerError('standard:connect')
  return accounts
}

const signatureLength = 64

/** A Standard wallet of the host page, found by its name in the store's list at each call. */
export function standardWallet(name: string): SolanaWallet {
  const current = (): StandardWallet => {
    const wallet = store.getState().standardWallets.find((candidate) => candidate.name === name)
    if (!wallet) throw new RpcError(ErrorCode.disconnected, 'That wallet is no longer available.')
    return wallet
  }
  const request = (
    feature: Parameters<typeof requestStandardWallet>[0]['feature'],
    input: object,
  ) => requestStandardWallet({ id: current().id, feature, input: { ...input } })

  return {
    id: standardConnectorIdOf({ name }),
    name,
    networks: () => networksOf(current().chains),

    async connect(silent) {
      const [address] = accountsOf(await request('standard:connect', silent ? { silent } : {}))
      return address ?? null
    },

    async disconnect() {
      if (current().features.includes('standard:disconnect'))
        await request('standard:disconnect', {})
    },

    async signMessage(address, message) {
      const answer = await request('solana:signMessage', {
        account: address,
        message: base64.encode(message),
      })
      return bytesField(answer, 'signature', 'solana:signMessage', signatureLength)
    },

    async signTransaction(address, transaction, caipNetworkId) {
      const chain = standardChainOf(caipNetworkId)
      const answer = await request('solana:signTransaction', {
        account: address,
        ...(chain ? { chain } : {}),
        transaction: base64.encode(transaction),
      })
      return bytesField(answer, 'signedTransaction', 'solana:signTransaction')
    },

    async signAndSendTransaction(address, transaction, caipNetworkId, options?: SendOptions) {
      const chain = standardChainOf(caipNetworkId)
      if (!chain) throw new RpcError(ErrorCode.unknownChain, `Unknown network ${caipNetworkId}.`)
      const answer = await request('solana:signAndSendTransaction', {
        account: address,
        chain,
        transaction: base64.encode(transaction),
        ...(options ? { options } : {}),
      })
      return base58.encode(
        bytesField(answer, 'signature', 'solana:signAndSendTransaction', signatureLength),
      )
    },
  }
}
