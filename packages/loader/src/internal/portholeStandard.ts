/**
 * Porthole as a Wallet Standard wallet on the host page, so a stock Solana
 * site (`@wallet-standard/app`, `@solana/wallet-adapter`) finds it as EVM
 * sites find the EIP-6963 provider. Each feature is a `providerRequest` to
 * the widget through the `Wallet` API (`solana_signMessage` and the others),
 * which routes it to the connected Solana wallet and its approvals.
 */
import * as Solana from '@porthole/chains/Solana'
import { RpcError } from '@porthole/protocol/Errors'
import type { State } from '@porthole/protocol/Host'
import { base58, base64 } from '@scure/base'
import type { Wallet, WalletAccount, WalletIcon } from '@wallet-standard/base'
import { icon as eip6963Icon } from './eip6963.js'

/** What Porthole's Standard wallet uses of the `Wallet` API (`createWallet`). */
export type Porthole = {
  open(): Promise<void>
  disconnect(): Promise<void>
  getState(): State
  subscribe(listener: (state: State) => void): () => void
  readonly provider: { request(args: { method: string; params?: object }): Promise<unknown> }
}

const version = '1.0.0'
const solanaFeatures = [
  'solana:signMessage',
  'solana:signTransaction',
  'solana:signAndSendTransaction',
] as const
/** The Standard's chain names of the networks Porthole knows, by CAIP-2 id. */
const chains: Record<string, `solana:${string}`> = Solana.walletStandardChains

/** The EIP-6963 announcement's icon, base64-encoded as the Wallet Standard's `WalletIcon` is. */
export const icon = `data:image/svg+xml;base64,${base64.encode(
  new TextEncoder().encode(decodeURIComponent(eip6963Icon.slice(eip6963Icon.indexOf(',') + 1))),
)}` as WalletIcon

type SignMessageInput = { account: WalletAccount; message: Uint8Array }
type SignTransactionInput = {
  account: WalletAccount
  transaction: Uint8Array
  chain?: string
  options?: {
    preflightCommitment?: string
    skipPreflight?: boolean
    maxRetries?: number
    minContextSlot?: number
  }
}

/** The connected Solana account of a state (`solana:<ref>:<address>`), with its Standard chain. */
function solanaAccountOf(state: State): { address: string; chain: string | undefined } | undefined {
  const [namespace, reference, address] = state.caipAddress?.split(':') ?? []
  if (namespace !== 'solana' || !address) return
  return { address, chain: chains[`solana:${reference}`] }
}

const invalidResult = () => new RpcError(-32603, 'The widget answered with an invalid result.')

/** A string field of the widget's answer. */
function answer(result: unknown, key: string): string {
  const value = (result as Record<string, unknown> | null)?.[key]
  if (typeof value !== 'string') throw invalidResult()
  return value
}

export type PortholeStandard = {
  readonly wallet: Wallet
  stop(): void
}

export function createPortholeStandard(porthole: Porthole): PortholeStandard {
  const listeners = new Set<(properties: { accounts: readonly WalletAccount[] }) => void>()
  let account: WalletAccount | undefined

  /** The Standard account of the connection, the same object while it lasts (apps compare them). */
  const accounts = (): WalletAccount[] => {
    const current = solanaAccountOf(porthole.getState())
    if (!current) {
      account = undefined
      return []
    }
    const { address, chain } = current
    if (account?.address !== address || account.chains[0] !== chain)
      account = Object.freeze({
        address,
        publicKey: base58.decode(address),
        chains: chain ? [chain as `solana:${string}`] : [],
        features: solanaFeatures,
      })
    return [account]
  }

  let last = accounts()[0]
  const unsubscribe = porthole.subscribe(() => {
    const next = accounts()[0]
    if (next === last) return
    last = next
    for (const listener of [...listeners]) listener({ accounts: next ? [next] : [] })
  })

  /** The connected account `input.account` names; the Standard's 4100 for any other. */
  const signer = ({ account: given }: { account: WalletAccount }) => {
    const current = accounts()[0]
    if (!current || given?.address !== current.address)
      throw new RpcError(4100, 'Porthole is not connected with that account.')
    return current
  }

  const request = (method: string, params: object) => porthole.provider.request({ method, params })

  /**
   * The widget's own `standard:connect`: it asks the visitor for a Solana
   * wallet (or connects the logged-in email wallet's Solana account) and
   * answers once one is connected, 4001 when the modal closes without one.
   * Resolves once the state has the account too.
   */
  const connect = async ({ silent = false } = {}) => {
    if (accounts().length || silent) return { accounts: accounts() }
    await request('standard:connect', {})
    return new Promise<{ accounts: WalletAccount[] }>((resolve) => {
      const check = () => {
        if (!accounts().length) return
        stop()
        resolve({ accounts: accounts() })
      }
      const stop = porthole.subscribe(check)
      check()
    })
  }

  const signMessage = async (...inputs: SignMessageInput[]) => {
    const outputs = []
    for (const input of inputs) {
      const { address } = signer(input)
      const result = await request('solana_signMessage', {
        message: base58.encode(input.message),
        pubkey: address,
      })
      const signature = base58.decode(answer(result, 'signature'))
      outputs.push({ signedMessage: input.message, signature })
    }
    return outputs
  }

  const signTransaction = async (...inputs: SignTransactionInput[]) => {
    const outputs = []
    for (const input of inputs) {
      signer(input)
      const result = await request('solana_signTransaction', {
        transaction: base64.encode(input.transaction),
      })
      outputs.push({ signedTransaction: base64.decode(answer(result, 'transaction')) })
    }
    return outputs
  }

  const signAndSendTransaction = async (...inputs: SignTransactionInput[]) => {
    const outputs = []
    for (const input of inputs) {
      const { chains } = signer(input)
      // It is sent on the network Porthole is on: refuse one for another.
      if (input.chain !== undefined && input.chain !== chains[0])
        throw new RpcError(4901, `Porthole is not on ${String(input.chain).slice(0, 64)}.`)
      const { preflightCommitment, skipPreflight, maxRetries, minContextSlot } = input.options ?? {}
      const sendOptions = JSON.parse(
        JSON.stringify({ preflightCommitment, skipPreflight, maxRetries, minContextSlot }),
      )
      const result = await request('solana_signAndSendTransaction', {
        transaction: base64.encode(input.transaction),
        ...(Object.keys(sendOptions).length ? { sendOptions } : {}),
      })
      outputs.push({ signature: base58.decode(answer(result, 'signature')) })
    }
    return outputs
  }

  const transactions = { version, supportedTransactionVersions: ['legacy', 0] as const }
  const wallet: Wallet = Object.freeze({
    version,
    name: 'Porthole',
    icon,
    chains: Object.values(chains),
    get accounts() {
      return accounts()
    },
    features: Object.freeze({
      'standard:connect': { version, connect },
      'standard:disconnect': {
        version,
        disconnect: async () => {
          if (accounts().length) await porthole.disconnect()
        },
      },
      'standard:events': {
        version,
        on(event: string, listener: (properties: { accounts: readonly WalletAccount[] }) => void) {
          if (event !== 'change') return () => {}
          listeners.add(listener)
          return () => {
            listeners.delete(listener)
          }
        },
      },
      'solana:signMessage': { version, signMessage },
      'solana:signTransaction': { ...transactions, signTransaction },
      'solana:signAndSendTransaction': { ...transactions, signAndSendTransaction },
    }),
  })

  return {
    wallet,
    stop() {
      unsubscribe()
      listeners.clear()
    },
  }
}
