/**
 * A Solana test wallet for the e2e suite: a Wallet Standard wallet registered
 * in the top page (`wallet-standard:register-wallet`, and again on each
 * `wallet-standard:app-ready`), whose features are answered in Node with a dev
 * keypair on the local Solana node: `standard:connect`, `standard:disconnect`,
 * `standard:events`, `solana:signMessage`, `solana:signTransaction` and
 * `solana:signAndSendTransaction`. Its behaviour can be switched per test:
 * 'approve' (a user who accepts everything) or 'reject' (every prompt answers
 * 4001, as a wallet's "User rejected the request.").
 *
 * Call `installSolanaTestWallet(page)` before the first `page.goto`. One
 * wallet per page: the binding name is fixed.
 */
import { sign } from 'node:crypto'
import type { Page } from '@playwright/test'
import { RpcError, type RpcErrorShape, UserRejectedError } from '@porthole/protocol/Errors'
import { Connection, type Keypair, VersionedTransaction } from '@solana/web3.js'
import { devSolanaKeypair } from './solanaKeys.ts'
import { solanaUrl } from './stack.ts'
import { invalidParams } from './walletRequests.ts'

export type SolanaTestWalletBehaviour = 'approve' | 'reject'

export type SolanaTestWalletOptions = {
  /** The signer; the dev account 0 of the local node by default. */
  keypair?: Keypair
  /** The node `signAndSendTransaction` sends to; the stack's by default. */
  rpcUrl?: string
  name?: string
  /** The Wallet Standard chains it says it supports. */
  chains?: string[]
}

export type SolanaTestWalletRequest = { feature: string; input: unknown }

export type SolanaTestWallet = {
  readonly address: string
  readonly name: string
  readonly behaviour: SolanaTestWalletBehaviour
  setBehaviour(behaviour: SolanaTestWalletBehaviour): void
  /** Every feature call received from the page, in order (including refused ones). */
  readonly requests: readonly SolanaTestWalletRequest[]
  readonly connected: boolean
  /** As if the user disconnected the site in the wallet: a `change` event with no accounts. */
  disconnect(): Promise<void>
  /** As if the user switched accounts in the wallet: a `change` event with the new one. */
  switchAccount(keypair: Keypair): Promise<void>
}

type Answer = { ok: true; result: unknown } | { ok: false; error: RpcErrorShape }
type Fields = Record<string, unknown>
/** An account as the page builds its `WalletAccount`: bytes in base64. */
type PageAccount = { address: string; publicKey: string }

const BINDING = '__portholeSolanaTestWallet'
const EMITTER = '__portholeSolanaTestWalletEmit'

const ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#9945ff"/><circle cx="16" cy="16" r="7" fill="#fff"/></svg>',
  ).toString('base64')

const bytesOf = (value: unknown): Uint8Array => {
  if (typeof value !== 'string') throw invalidParams('expected base64 bytes')
  return Buffer.from(value, 'base64')
}
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64')

/** An ed25519 signature by `keypair` (web3.js signs transactions only). */
function signBytes(keypair: Keypair, message: Uint8Array): Uint8Array {
  const pkcs8 = Buffer.concat([
    Buffer.from('302e020100300506032b657004220420', 'hex'),
    keypair.secretKey.subarray(0, 32),
  ])
  return sign(null, message, { key: pkcs8, format: 'der', type: 'pkcs8' })
}

export async function installSolanaTestWallet(
  page: Page,
  options: SolanaTestWalletOptions = {},
): Promise<SolanaTestWallet> {
  const {
    rpcUrl = solanaUrl,
    name = 'Porthole Solana Test Wallet',
    chains = ['solana:localnet'],
  } = options
  let keypair = options.keypair ?? devSolanaKeypair(0)
  const connection = new Connection(rpcUrl, 'confirmed')

  let behaviour: SolanaTestWalletBehaviour = 'approve'
  let connected = false
  const requests: SolanaTestWalletRequest[] = []

  const pageAccounts = (): PageAccount[] =>
    connected
      ? [{ address: keypair.publicKey.toBase58(), publicKey: base64(keypair.publicKey.toBytes()) }]
      : []

  const emitChange = async () => {
    if (page.isClosed()) return
    await page
      .evaluate(
        ([emitter, accounts]) => {
          const fn = (window as unknown as Record<string, unknown>)[emitter as string]
          if (typeof fn === 'function') fn(accounts)
        },
        [EMITTER, pageAccounts()] as const,
      )
      // A navigation or a closing page may destroy the context mid-way: nothing to notify then.
      .catch(() => undefined)
  }

  const requireApproval = () => {
    if (behaviour === 'reject') throw new UserRejectedError()
  }
  /** The input's account, which must be the one the wallet has given the page. */
  const requireAccount = (input: Fields) => {
    if (!connected || input.account !== keypair.publicKey.toBase58())
      throw new RpcError(4100, 'The requested account has not been authorized.')
  }
  /** The input's transaction, signed. */
  const signTransaction = (input: Fields) => {
    requireAccount(input)
    let transaction: VersionedTransaction
    try {
      transaction = VersionedTransaction.deserialize(bytesOf(input.transaction))
    } catch {
      throw invalidParams('expected a serialized transaction')
    }
    requireApproval()
    transaction.sign([keypair])
    return transaction
  }

  async function handle(feature: string, input: Fields): Promise<unknown> {
    switch (feature) {
      case 'standard:connect':
        if (!connected) {
          if (input.silent === true) return { accounts: [] }
          requireApproval()
          connected = true
          await emitChange()
        }
        return { accounts: pageAccounts() }

      case 'standard:disconnect':
        connected = false
        return null

      case 'solana:signMessage': {
        requireAccount(input)
        const message = bytesOf(input.message)
        requireApproval()
        return { signedMessage: base64(message), signature: base64(signBytes(keypair, message)) }
      }

      case 'solana:signTransaction':
        return { signedTransaction: base64(signTransaction(input).serialize()) }

      case 'solana:signAndSendTransaction': {
        const transaction = signTransaction(input)
        const options = (input.options ?? {}) as Fields
        const signature = await connection.sendRawTransaction(transaction.serialize(), {
          skipPreflight: options.skipPreflight === true,
          preflightCommitment:
            (options.preflightCommitment as 'confirmed' | undefined) ?? 'confirmed',
          ...(typeof options.maxRetries === 'number' ? { maxRetries: options.maxRetries } : {}),
        })
        await connection.confirmTransaction(signature, 'confirmed')
        return { signature: base64(transaction.signatures[0] as Uint8Array) }
      }

      default:
        throw new RpcError(4200, `The test wallet does not support ${feature}.`)
    }
  }

  await page.exposeBinding(BINDING, async (source, payload: unknown): Promise<Answer> => {
    const { feature, input } = (payload ?? {}) as { feature?: unknown; input?: unknown }
    requests.push({ feature: String(feature), input })
    if (source.frame !== page.mainFrame())
      return { ok: false, error: { code: 4100, message: 'Only the top page may use the wallet.' } }
    try {
      return { ok: true, result: await handle(String(feature), (input ?? {}) as Fields) }
    } catch (error) {
      const rpc =
        error instanceof RpcError
          ? error
          : new RpcError(-32603, error instanceof Error ? error.message : String(error))
      return { ok: false, error: rpc.toJSON() }
    }
  })

  // Run from tsx (the bench), esbuild's keep-names wraps functions in `__name`,
  // which the page does not have; Playwright's own transform does not need it.
  await page.addInitScript({ content: 'globalThis.__name ??= (target) => target' })
  await page.addInitScript(pageWallet, {
    binding: BINDING,
    emitter: EMITTER,
    name,
    icon: ICON,
    chains,
  })

  return {
    address: keypair.publicKey.toBase58(),
    name,
    get behaviour() {
      return behaviour
    },
    setBehaviour(next) {
      behaviour = next
    },
    requests,
    get connected() {
      return connected
    },
    async disconnect() {
      if (!connected) return
      connected = false
      await emitChange()
    },
    async switchAccount(next) {
      keypair = next
      if (connected) await emitChange()
    },
  }
}

/** Runs in the top page before any of its scripts (serialised by Playwright: keep self-contained). */
function pageWallet(args: {
  binding: string
  emitter: string
  name: string
  icon: string
  chains: string[]
}) {
  if (window.top !== window) return
  type Answer = { ok: true; result: unknown } | { ok: false; error: RpcErrorShape }
  type Account = { address: string; publicKey: string }
  type Listener = (properties: { accounts: readonly unknown[] }) => void
  const w = window as unknown as Record<string, unknown>
  const call = w[args.binding] as (payload: unknown) => Promise<Answer>
  const listeners = new Set<Listener>()
  const features = [
    'solana:signMessage',
    'solana:signTransaction',
    'solana:signAndSendTransaction',
  ] as const
  const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes))
  const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0))

  let accounts: readonly unknown[] = []
  const setAccounts = (list: Account[]) => {
    accounts = list.map(({ address, publicKey }) =>
      Object.freeze({
        address,
        publicKey: fromBase64(publicKey),
        chains: args.chains,
        features,
      }),
    )
  }

  async function request(feature: string, input: unknown): Promise<Record<string, unknown>> {
    const answer = await call({ feature, input })
    if (answer.ok) return answer.result as Record<string, unknown>
    const { code, message } = answer.error
    throw Object.assign(new Error(message), { code })
  }
  type Input = {
    account: { address: string }
    message?: Uint8Array
    transaction?: Uint8Array
    chain?: string
    options?: unknown
  }
  /** The page's input with its account by address and its bytes in base64. */
  const toWire = ({ account, message, transaction, chain, options }: Input) => ({
    account: account?.address,
    ...(message ? { message: toBase64(message) } : {}),
    ...(transaction ? { transaction: toBase64(transaction) } : {}),
    ...(chain ? { chain } : {}),
    ...(options ? { options } : {}),
  })
  /** One call per input, in order, as a wallet prompts for each. */
  const each =
    (feature: string, toOutput: (result: Record<string, unknown>) => unknown) =>
    async (...inputs: Input[]) => {
      const outputs = []
      for (const input of inputs) outputs.push(toOutput(await request(feature, toWire(input))))
      return outputs
    }
  const bytes = (result: Record<string, unknown>, key: string) => fromBase64(result[key] as string)
  const transactions = { version: '1.0.0', supportedTransactionVersions: ['legacy', 0] }

  const wallet = Object.freeze({
    version: '1.0.0',
    name: args.name,
    icon: args.icon,
    chains: args.chains,
    get accounts() {
      return accounts
    },
    features: Object.freeze({
      'standard:connect': {
        version: '1.0.0',
        async connect(input?: { silent?: boolean }) {
          const result = await request('standard:connect', { silent: input?.silent === true })
          setAccounts(result.accounts as Account[])
          return { accounts }
        },
      },
      'standard:disconnect': {
        version: '1.0.0',
        async disconnect() {
          await request('standard:disconnect', {})
          setAccounts([])
        },
      },
      'standard:events': {
        version: '1.0.0',
        on(event: string, listener: Listener) {
          if (event !== 'change') return () => {}
          listeners.add(listener)
          return () => {
            listeners.delete(listener)
          }
        },
      },
      'solana:signMessage': {
        version: '1.0.0',
        signMessage: each('solana:signMessage', (result) => ({
          signedMessage: bytes(result, 'signedMessage'),
          signature: bytes(result, 'signature'),
        })),
      },
      'solana:signTransaction': {
        ...transactions,
        signTransaction: each('solana:signTransaction', (result) => ({
          signedTransaction: bytes(result, 'signedTransaction'),
        })),
      },
      'solana:signAndSendTransaction': {
        ...transactions,
        signAndSendTransaction: each('solana:signAndSendTransaction', (result) => ({
          signature: bytes(result, 'signature'),
        })),
      },
    }),
  })

  Object.defineProperty(window, args.emitter, {
    value: (list: Account[]) => {
      setAccounts(list)
      for (const listener of [...listeners]) {
        try {
          listener({ accounts })
        } catch (error) {
          setTimeout(() => {
            throw error
          })
        }
      }
    },
  })

  // As `@wallet-standard/wallet`'s registerWallet: apps listening now, and every later one.
  const callback = ({ register }: { register(wallet: unknown): unknown }) => register(wallet)
  window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: callback }))
  window.addEventListener('wallet-standard:app-ready', (event) =>
    callback((event as CustomEvent<{ register(wallet: unknown): unknown }>).detail),
  )
}
