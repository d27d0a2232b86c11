/**
 * A WalletConnect wallet for tests, built on the real `@reown/walletkit`: it
 * pairs with a dapp through a relay (scripts/relay.ts in tests), approves or
 * rejects the session proposal, and answers session requests with a viem
 * local account on anvil. Its behaviour can be switched per test: 'approve'
 * (a user who accepts everything) or 'reject' (proposals are rejected with
 * USER_REJECTED, approvals answer 4001).
 *
 * Offline: the storage is in memory, telemetry is off and Verify is not asked
 * (see below). WalletKit still posts one INIT event to pulse.walletconnect.org
 * when it starts; without a network that fails at once and it carries on.
 */
import { WalletKit, type WalletKitTypes } from '@reown/walletkit'
import { Core } from '@walletconnect/core'
import type { CoreTypes, SessionTypes } from '@walletconnect/types'
import { buildApprovedNamespaces, getSdkError } from '@walletconnect/utils'
import {
  createWalletClient,
  defineChain,
  type Hex,
  hexToBigInt,
  hexToNumber,
  http,
  isAddress,
  isAddressEqual,
  isHex,
  numberToHex,
  type TypedDataDefinition,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

/** Anvil's second default dev account (10 000 ETH on a fresh node). */
export const WALLETKIT_DEV_KEY: Hex =
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'

export type TestWalletKitBehaviour = 'approve' | 'reject'

export type TestWalletKitOptions = {
  /** The relay's WebSocket URL, e.g. `ws://127.0.0.1:5174`. */
  relayUrl: string
  privateKey?: Hex
  /** The anvil node transactions are sent to. */
  rpcUrl?: string
  /** The anvil node's chain id; the wallet supports it and mainnet (1). */
  chainId?: number
  behaviour?: TestWalletKitBehaviour
}

export type TestWalletKitRequest = {
  id: number
  topic: string
  /** CAIP-2, as the dapp sent it. */
  chainId: string
  method: string
  params: unknown
}

export type TestWalletKit = {
  readonly address: Hex
  readonly behaviour: TestWalletKitBehaviour
  setBehaviour(behaviour: TestWalletKitBehaviour): void
  /** Every session request received, in order (including refused ones). */
  readonly requests: readonly TestWalletKitRequest[]
  /** Failures while handling a proposal or a request (a test that hangs can read why here). */
  readonly errors: readonly unknown[]
  /** Pairs with a dapp from its `wc:` URI; the proposal is then handled per the behaviour. */
  pair(uri: string): Promise<void>
  /** The active sessions. */
  sessions(): SessionTypes.Struct[]
  /** As if the user disconnected every site in the wallet. */
  disconnect(): Promise<void>
  /** Stops the client: its heartbeat and its relay connection. */
  close(): Promise<void>
}

type Storage = NonNullable<CoreTypes.Options['storage']>

/**
 * A key-value storage in memory for the WalletConnect clients (Node's default
 * writes files, the browser's uses IndexedDB). Values are copied in and out,
 * as a serializing storage would.
 */
export function createMemoryStorage(): Storage {
  const entries = new Map<string, unknown>()
  return {
    getKeys: async () => [...entries.keys()],
    getEntries: async <T>() =>
      [...entries].map(([key, value]): [string, T] => [key, structuredClone(value) as T]),
    getItem: async <T>(key: string) =>
      entries.has(key) ? (structuredClone(entries.get(key)) as T) : undefined,
    setItem: async <T>(key: string, value: T) => {
      entries.set(key, structuredClone(value))
    },
    removeItem: async (key: string) => {
      entries.delete(key)
    },
  }
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}

const userRejected = () => new RpcError(4001, 'User rejected the request.')
const invalidParams = (why: string) => new RpcError(-32602, `Invalid params: ${why}`)

const METHODS = [
  'personal_sign',
  'eth_sendTransaction',
  'eth_signTypedData_v4',
  'wallet_switchEthereumChain',
  'wallet_addEthereumChain',
  'eth_chainId',
  'eth_accounts',
]
const EVENTS = ['accountsChanged', 'chainChanged']

export async function createTestWalletKit(options: TestWalletKitOptions): Promise<TestWalletKit> {
  const {
    relayUrl,
    privateKey = WALLETKIT_DEV_KEY,
    rpcUrl = 'http://127.0.0.1:8545',
    chainId: nodeChainId = 31337,
  } = options
  let behaviour = options.behaviour ?? 'approve'

  const account = privateKeyToAccount(privateKey)
  const chain = defineChain({
    id: nodeChainId,
    name: 'Anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
  const walletClient = createWalletClient({
    account,
    chain,
    transport: http(rpcUrl, { retryCount: 0 }),
  })

  /** Chains the wallet knows: the node's, mainnet, and those added with wallet_addEthereumChain. */
  const knownChains = new Set([nodeChainId, 1])
  const requests: TestWalletKitRequest[] = []
  const errors: unknown[] = []

  const core = new Core({
    projectId: 'porthole-test',
    relayUrl,
    storage: createMemoryStorage(),
    // One core per wallet: the SDK shares a core per storage prefix in a process.
    customStoragePrefix: `porthole-test-wallet-${crypto.randomUUID()}`,
    telemetryEnabled: false,
  })
  // Verify (verify.walletconnect.org) cannot be reached offline, and when a dapp's
  // message carries a JWT attestation the 2.25 SDK then waits forever for Verify's
  // public key, so the proposal is never answered. Offline every dapp is
  // unverified ('UNKNOWN'), which is what the SDK reports when Verify is silent.
  Object.assign(core.verify, { resolve: async () => undefined })
  const walletKit = await WalletKit.init({
    core,
    metadata: {
      name: 'Porthole Test Wallet',
      description: 'A WalletConnect wallet for the Porthole tests',
      url: 'http://127.0.0.1',
      icons: [],
    },
  })

  const accountsFor = (chains: readonly number[]) =>
    chains.map((id) => `eip155:${id}:${account.address}`)

  const onProposal = async ({ id, params }: WalletKitTypes.SessionProposal) => {
    if (behaviour === 'reject') {
      await walletKit.rejectSession({ id, reason: getSdkError('USER_REJECTED') })
      return
    }
    const chains = [...knownChains]
    const namespaces = buildApprovedNamespaces({
      proposal: params,
      supportedNamespaces: {
        eip155: {
          chains: chains.map((id) => `eip155:${id}`),
          methods: METHODS,
          events: EVENTS,
          accounts: accountsFor(chains),
        },
      },
    })
    await walletKit.approveSession({ id, namespaces })
  }

  const requireApproval = () => {
    if (behaviour === 'reject') throw userRejected()
  }
  const requireOwnAddress = (value: unknown) => {
    if (typeof value !== 'string' || !isAddress(value, { strict: false }))
      throw invalidParams('expected an address')
    if (!isAddressEqual(value, account.address))
      throw new RpcError(4100, `Unknown account ${value}.`)
  }
  const parseChainId = (value: unknown): number => {
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value) || /^0x0+$/.test(value))
      throw invalidParams('chainId must be a non-zero hex string')
    return hexToNumber(value as Hex)
  }
  const hexField = (tx: Record<string, unknown>, key: string): Hex | undefined => {
    const value = tx[key]
    if (value === undefined || value === null) return undefined
    if (typeof value !== 'string' || !isHex(value)) throw invalidParams(`${key} must be hex`)
    return value
  }

  /** Adds a chain (and the account on it) to the session when it is not there yet. */
  const addChainToSession = async (topic: string, id: number) => {
    const session = walletKit.getActiveSessions()[topic]
    const eip155 = session?.namespaces.eip155
    if (!session || !eip155) throw new RpcError(4100, 'No such session.')
    const caip2 = `eip155:${id}`
    if (eip155.chains?.includes(caip2)) return
    const { acknowledged } = await walletKit.updateSession({
      topic,
      namespaces: {
        ...session.namespaces,
        eip155: {
          ...eip155,
          chains: [...(eip155.chains ?? []), caip2],
          accounts: [...eip155.accounts, ...accountsFor([id])],
        },
      },
    })
    await acknowledged()
  }

  async function answer(
    topic: string,
    requestChainId: string,
    method: string,
    params: unknown,
  ): Promise<unknown> {
    const list = params === undefined ? [] : params
    if (!Array.isArray(list)) throw invalidParams('params must be an array')

    switch (method) {
      case 'eth_accounts':
        return [account.address]

      case 'eth_chainId':
        return numberToHex(Number(requestChainId.split(':')[1]))

      case 'personal_sign': {
        const [message, address] = list
        if (typeof message !== 'string') throw invalidParams('expected a message')
        requireOwnAddress(address)
        requireApproval()
        return account.signMessage({ message: isHex(message) ? { raw: message } : message })
      }

      case 'eth_signTypedData_v4': {
        const [address, json] = list
        requireOwnAddress(address)
        let typed: unknown
        try {
          typed = typeof json === 'string' ? JSON.parse(json) : json
        } catch {
          throw invalidParams('typed data is not JSON')
        }
        if (typeof typed !== 'object' || typed === null || !('types' in typed))
          throw invalidParams('expected typed data')
        requireApproval()
        return account.signTypedData(typed as TypedDataDefinition)
      }

      case 'eth_sendTransaction': {
        const [tx] = list
        if (typeof tx !== 'object' || tx === null) throw invalidParams('expected a transaction')
        const fields = tx as Record<string, unknown>
        requireOwnAddress(fields.from)
        const to = hexField(fields, 'to')
        if (to !== undefined && !isAddress(to, { strict: false }))
          throw invalidParams('to must be an address')
        const value = hexField(fields, 'value')
        const gas = hexField(fields, 'gas')
        requireApproval()
        if (requestChainId !== `eip155:${nodeChainId}`)
          throw new RpcError(4901, `The test wallet sends only on eip155:${nodeChainId}.`)
        return walletClient.sendTransaction({
          to: to ?? null,
          data: hexField(fields, 'data') ?? hexField(fields, 'input'),
          value: value === undefined ? undefined : hexToBigInt(value),
          gas: gas === undefined ? undefined : hexToBigInt(gas),
        })
      }

      case 'wallet_switchEthereumChain': {
        const [request] = list
        if (typeof request !== 'object' || request === null) throw invalidParams('expected object')
        const id = parseChainId((request as { chainId?: unknown }).chainId)
        if (!knownChains.has(id))
          throw new RpcError(4902, `Unrecognized chain ID "${numberToHex(id)}".`)
        requireApproval()
        await addChainToSession(topic, id)
        await walletKit.emitSessionEvent({
          topic,
          event: { name: 'chainChanged', data: id },
          chainId: `eip155:${id}`,
        })
        return null
      }

      case 'wallet_addEthereumChain': {
        const [request] = list
        if (typeof request !== 'object' || request === null) throw invalidParams('expected object')
        const id = parseChainId((request as { chainId?: unknown }).chainId)
        requireApproval()
        knownChains.add(id)
        return null
      }

      default:
        throw new RpcError(4200, `The test wallet does not support ${method}.`)
    }
  }

  const onRequest = async ({ id, topic, params }: WalletKitTypes.SessionRequest) => {
    const { request, chainId } = params
    requests.push({ id, topic, chainId, method: request.method, params: request.params })
    let response: { id: number; jsonrpc: '2.0' } & (
      | { result: unknown }
      | { error: { code: number; message: string } }
    )
    try {
      const result = await answer(topic, chainId, request.method, request.params)
      response = { id, jsonrpc: '2.0', result }
    } catch (error) {
      response = {
        id,
        jsonrpc: '2.0',
        error:
          error instanceof RpcError
            ? { code: error.code, message: error.message }
            : { code: -32603, message: error instanceof Error ? error.message : String(error) },
      }
    }
    await walletKit.respondSessionRequest({ topic, response })
  }

  const onProposalEvent = (event: WalletKitTypes.SessionProposal) => {
    onProposal(event).catch((error: unknown) => errors.push(error))
  }
  const onRequestEvent = (event: WalletKitTypes.SessionRequest) => {
    onRequest(event).catch((error: unknown) => errors.push(error))
  }
  walletKit.on('session_proposal', onProposalEvent)
  walletKit.on('session_request', onRequestEvent)

  const sessions = () => Object.values(walletKit.getActiveSessions())

  return {
    address: account.address,
    get behaviour() {
      return behaviour
    },
    setBehaviour(next) {
      behaviour = next
    },
    requests,
    errors,
    async pair(uri) {
      await walletKit.pair({ uri })
    },
    sessions,
    async disconnect() {
      await Promise.all(
        sessions().map(({ topic }) =>
          walletKit.disconnectSession({ topic, reason: getSdkError('USER_DISCONNECTED') }),
        ),
      )
    },
    async close() {
      walletKit.off('session_proposal', onProposalEvent)
      walletKit.off('session_request', onRequestEvent)
      core.heartbeat.stop()
      await core.relayer.transportClose()
    },
  }
}
