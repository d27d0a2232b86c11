/**
 * A test wallet for the e2e suite: an EIP-1193 provider injected into the top
 * page and announced with EIP-6963, whose requests are answered in Node by a
 * viem local account on anvil. Its behaviour can be switched per test:
 * 'approve' (a user who accepts everything), 'reject' (every approval answers
 * 4001) and 'unknownChain' (every chain switch answers 4902 until the chain is
 * added with wallet_addEthereumChain).
 *
 * Call `installTestWallet(page)` before the first `page.goto`. One wallet per
 * page: the binding name is fixed.
 */
import type { Page } from '@playwright/test'
import { ErrorCode, RpcError, type RpcErrorShape, WalletError } from '@porthole/protocol/Errors'
import { type Hex, isAddress, numberToHex } from 'viem'
import { createAnvilClients } from './anvil.ts'
import {
  invalidParams,
  parseChainRequest,
  parsePersonalSign,
  parseTransaction,
  parseTypedDataV4,
  toParamList,
  userRejected,
} from './walletRequests.ts'

/** Anvil's first default dev account (10 000 ETH on a fresh node). */
export const ANVIL_DEV_KEY: Hex =
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'

export type TestWalletBehaviour = 'approve' | 'reject' | 'unknownChain'

export type TestWalletOptions = {
  privateKey?: Hex
  rpcUrl?: string
  chainId?: number
  info?: { name?: string; rdns?: string }
  /**
   * An EIP-1271 smart account the key owns: the wallet reports this address
   * and signs messages for it with the owner key (the contract checks them).
   */
  smartAccount?: Hex
}

export type TestWalletRequest = { method: string; params: unknown }

export type TestWallet = {
  readonly address: Hex
  /** The EIP-6963 uuid announced for this wallet. */
  readonly uuid: string
  readonly behaviour: TestWalletBehaviour
  setBehaviour(behaviour: TestWalletBehaviour): void
  /** Every request received from the page, in order (including refused ones). */
  readonly requests: readonly TestWalletRequest[]
  /** The chain the wallet is currently on. */
  readonly chainId: number
  readonly connected: boolean
  /** As if the user disconnected the site in the wallet: emits `accountsChanged` with []. */
  disconnect(): Promise<void>
  /** Dispatches a provider event in the page (e.g. 'disconnect'). */
  emit(event: TestWalletEvent, data: unknown): Promise<void>
}

export type TestWalletEvent = 'accountsChanged' | 'chainChanged' | 'connect' | 'disconnect'

type BindingAnswer = { ok: true; result: unknown } | { ok: false; error: RpcErrorShape }

const BINDING = '__portholeTestWallet'
const EMITTER = '__portholeTestWalletEmit'

const ICON =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#3b82f6"/><circle cx="16" cy="16" r="7" fill="#fff"/></svg>',
  )

/** Read-only methods passed through to the node as they are. */
const FORWARDED = new Set([
  'eth_blockNumber',
  'eth_getBalance',
  'eth_call',
  'eth_estimateGas',
  'eth_getTransactionReceipt',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getLogs',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
  'eth_blobBaseFee',
  'eth_syncing',
  'web3_clientVersion',
])

export async function installTestWallet(
  page: Page,
  options: TestWalletOptions = {},
): Promise<TestWallet> {
  const {
    privateKey = ANVIL_DEV_KEY,
    rpcUrl = 'http://127.0.0.1:8545',
    chainId: nodeChainId = 31337,
  } = options
  const name = options.info?.name ?? 'Porthole Test Wallet'
  const rdns = options.info?.rdns ?? 'dev.porthole.testwallet'
  const uuid = crypto.randomUUID()

  const { account, publicClient, walletClient } = createAnvilClients({
    rpcUrl,
    privateKey,
    chainId: nodeChainId,
  })
  // The address the wallet reports: its own, or the smart account it signs for.
  const reported = { address: options.smartAccount ?? account.address }

  let behaviour: TestWalletBehaviour = 'approve'
  let connected = false
  let currentChain = nodeChainId
  const addedChains = new Set<number>()
  const requests: TestWalletRequest[] = []

  const emit = async (event: TestWalletEvent, data: unknown) => {
    if (page.isClosed()) return
    await page
      .evaluate(
        ([emitter, event, data]) => {
          const fn = (window as unknown as Record<string, unknown>)[emitter as string]
          if (typeof fn === 'function') fn(event, data)
        },
        [EMITTER, event, data] as const,
      )
      // A navigation or a closing page may destroy the context mid-way: nothing to notify then.
      .catch(() => undefined)
  }

  const requireApproval = () => {
    if (behaviour === 'reject') throw userRejected()
  }
  const requireConnected = () => {
    if (!connected)
      throw new RpcError(ErrorCode.unauthorized, 'The requested account has not been authorized.')
  }
  const isKnownChain = (id: number) =>
    addedChains.has(id) || (behaviour !== 'unknownChain' && id === nodeChainId)

  const connect = async () => {
    requireApproval()
    if (!connected) {
      connected = true
      await emit('accountsChanged', [reported.address])
    }
    return [reported.address]
  }

  async function handle(method: string, params: unknown): Promise<unknown> {
    const list = toParamList(params)

    switch (method) {
      case 'eth_requestAccounts':
        return connect()

      case 'eth_accounts':
        return connected ? [reported.address] : []

      case 'eth_chainId':
        return numberToHex(currentChain)

      case 'net_version':
        return String(currentChain)

      case 'wallet_requestPermissions': {
        const [request] = list
        if (typeof request !== 'object' || request === null || !('eth_accounts' in request))
          throw invalidParams('only eth_accounts can be requested')
        await connect()
        return [{ parentCapability: 'eth_accounts', caveats: [] }]
      }

      case 'wallet_getPermissions':
        return connected ? [{ parentCapability: 'eth_accounts', caveats: [] }] : []

      case 'wallet_revokePermissions':
        if (connected) {
          connected = false
          await emit('accountsChanged', [])
        }
        return null

      case 'wallet_getCapabilities':
        return {}

      case 'personal_sign': {
        const [first, second] = list
        // Some dapps swap the two; accept either order as wallets do.
        const message = parsePersonalSign(
          reported,
          typeof second === 'string' && isAddress(second, { strict: false })
            ? [first, second]
            : [second, first],
        )
        requireConnected()
        requireApproval()
        return account.signMessage({ message })
      }

      case 'eth_signTypedData_v4': {
        const typedData = parseTypedDataV4(account, list)
        requireConnected()
        requireApproval()
        try {
          return await account.signTypedData(typedData)
        } catch (error) {
          throw invalidParams(error instanceof Error ? error.message : String(error))
        }
      }

      case 'eth_sendTransaction': {
        const transaction = parseTransaction(account, list)
        requireConnected()
        requireApproval()
        if (currentChain !== nodeChainId)
          throw new RpcError(
            ErrorCode.chainDisconnected,
            `The test wallet sends only on chain ${nodeChainId}.`,
          )
        return walletClient.sendTransaction(transaction)
      }

      case 'wallet_switchEthereumChain': {
        const { chainId: id } = parseChainRequest(list)
        if (!isKnownChain(id))
          throw new RpcError(ErrorCode.unknownChain, `Unrecognized chain ID "${numberToHex(id)}".`)
        requireApproval()
        if (id !== currentChain) {
          currentChain = id
          await emit('chainChanged', numberToHex(id))
        }
        return null
      }

      case 'wallet_addEthereumChain': {
        const { chainId: id, request: r } = parseChainRequest(list)
        if (typeof r.chainName !== 'string' || !Array.isArray(r.rpcUrls) || r.rpcUrls.length === 0)
          throw invalidParams('chainName and rpcUrls are required')
        requireApproval()
        addedChains.add(id)
        return null
      }

      default:
        if (FORWARDED.has(method)) {
          const request = publicClient.request as (args: {
            method: string
            params: readonly unknown[]
          }) => Promise<unknown>
          return request({ method, params: list })
        }
        throw new RpcError(
          ErrorCode.unsupportedMethod,
          `The test wallet does not support ${method}.`,
        )
    }
  }

  await page.exposeBinding(BINDING, async (source, payload: unknown): Promise<BindingAnswer> => {
    const { method, params } = (payload ?? {}) as { method?: unknown; params?: unknown }
    requests.push({ method: String(method), params })
    if (source.frame !== page.mainFrame())
      return { ok: false, error: { code: 4100, message: 'Only the top page may use the wallet.' } }
    if (typeof method !== 'string' || method === '')
      return { ok: false, error: { code: -32600, message: 'Invalid request: method is required.' } }
    try {
      return { ok: true, result: await handle(method, params) }
    } catch (error) {
      // As a wallet answers: its own errors as they are, viem's by their code (or their cause's).
      return { ok: false, error: WalletError.from(error).toJSON() }
    }
  })

  // Run from tsx (the bench), esbuild's keep-names wraps functions in `__name`,
  // which the page does not have; Playwright's own transform does not need it.
  await page.addInitScript({ content: 'globalThis.__name ??= (target) => target' })
  await page.addInitScript(pageProvider, {
    binding: BINDING,
    emitter: EMITTER,
    info: { uuid, name, icon: ICON, rdns },
  })

  return {
    address: reported.address,
    uuid,
    get behaviour() {
      return behaviour
    },
    setBehaviour(next) {
      behaviour = next
    },
    requests,
    get chainId() {
      return currentChain
    },
    get connected() {
      return connected
    },
    async disconnect() {
      if (!connected) return
      connected = false
      await emit('accountsChanged', [])
    },
    emit,
  }
}

/** Runs in the top page before any of its scripts (serialised by Playwright: keep self-contained). */
function pageProvider(args: {
  binding: string
  emitter: string
  info: { uuid: string; name: string; icon: string; rdns: string }
}) {
  if (window.top !== window) return
  type Listener = (...values: unknown[]) => void
  type Answer = { ok: true; result: unknown } | { ok: false; error: RpcErrorShape }
  const w = window as unknown as Record<string, unknown>
  const call = w[args.binding] as (payload: unknown) => Promise<Answer>
  const listeners = new Map<string, Set<Listener>>()

  const provider = {
    isPortholeTestWallet: true,
    async request(request: { method: string; params?: unknown }): Promise<unknown> {
      if (typeof request !== 'object' || request === null || typeof request.method !== 'string') {
        throw Object.assign(new Error('Invalid request: method is required.'), { code: -32600 })
      }
      const answer = await call({ method: request.method, params: request.params })
      if (answer.ok) return answer.result
      const { code, message, data } = answer.error
      const error = new Error(message) as Error & { code: number; data?: unknown }
      error.code = code
      if (data !== undefined) error.data = data
      throw error
    },
    on(event: string, listener: Listener) {
      const set = listeners.get(event) ?? new Set<Listener>()
      listeners.set(event, set)
      set.add(listener)
      return provider
    },
    removeListener(event: string, listener: Listener) {
      listeners.get(event)?.delete(listener)
      return provider
    },
  }

  Object.defineProperty(window, args.emitter, {
    value: (event: string, data: unknown) => {
      for (const listener of [...(listeners.get(event) ?? [])]) {
        try {
          listener(data)
        } catch (error) {
          setTimeout(() => {
            throw error
          })
        }
      }
    },
  })

  const detail = Object.freeze({ info: Object.freeze({ ...args.info }), provider })
  const announce = () =>
    window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }))
  window.addEventListener('eip6963:requestProvider', announce)
  announce()
}
