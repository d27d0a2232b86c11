/**
 * A WalletConnect wallet for tests, built on the real `@reown/walletkit`: it
 * pairs with a dapp through a relay (relay.ts in tests), approves or
 * rejects the session proposal, and answers session requests with a viem
 * local account on anvil, and its Solana requests with the dev Solana key
 * (`devSolanaKeypair(0)`) on the local Solana node (walletKitSolana.ts). It
 * approves the namespaces it is given (both by default) among those proposed.
 * Its behaviour can be switched per test: 'approve'
 * (a user who accepts everything) or 'reject' (proposals are rejected with
 * USER_REJECTED, approvals answer 4001).
 *
 * Offline: the storage is in memory, telemetry is off and Verify is not asked
 * (see below). WalletKit still posts one INIT event to pulse.walletconnect.org
 * when it starts; without a network that fails at once and it carries on.
 */

import * as Solana from '@porthole/chains/Solana'
import { ErrorCode, RpcError, WalletError } from '@porthole/protocol/Errors'
import { WalletKit, type WalletKitTypes } from '@reown/walletkit'
import type { Keypair } from '@solana/web3.js'
import { Core } from '@walletconnect/core'
import type { CoreTypes, SessionTypes } from '@walletconnect/types'
import { buildApprovedNamespaces, getSdkError } from '@walletconnect/utils'
import { type Hex, numberToHex } from 'viem'
import { createAnvilClients } from './anvil.ts'
import { devSolanaKeypair } from './solanaKeys.ts'
import { ports } from './stack.ts'
import { createSolanaAnswerer } from './walletKitSolana.ts'
import {
  parseChainRequest,
  parsePersonalSign,
  parseTransaction,
  parseTypedDataV4,
  toParamList,
  userRejected,
} from './walletRequests.ts'

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
  /** The namespaces the wallet approves (those proposed among them); both by default. */
  namespaces?: readonly ('eip155' | 'solana')[]
  /** The Solana key; `devSolanaKeypair(0)` by default. */
  solanaKeypair?: Keypair
  /** The local Solana node Solana transactions are sent to (the stack's by default). */
  solanaRpcUrl?: string
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
  /** The Solana account (base58), on every Solana network the session approves. */
  readonly solanaAddress: string
  readonly behaviour: TestWalletKitBehaviour
  setBehaviour(behaviour: TestWalletKitBehaviour): void
  /** Every session proposal received, in order: what the dapp asked for. */
  readonly proposals: readonly WalletKitTypes.SessionProposal['params'][]
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
const SOLANA_METHODS = [
  'solana_signMessage',
  'solana_signTransaction',
  'solana_signAndSendTransaction',
]
/** The Solana networks the wallet knows: the public ones and the local node's. */
const SOLANA_CHAINS = Solana.all.map(({ caipNetworkId }) => caipNetworkId)

export async function createTestWalletKit(options: TestWalletKitOptions): Promise<TestWalletKit> {
  const {
    relayUrl,
    privateKey = WALLETKIT_DEV_KEY,
    rpcUrl = 'http://127.0.0.1:8545',
    chainId: nodeChainId = 31337,
    namespaces: approvedNamespaces = ['eip155', 'solana'],
    solanaKeypair = devSolanaKeypair(0),
    solanaRpcUrl = `http://127.0.0.1:${ports.solana}`,
  } = options
  let behaviour = options.behaviour ?? 'approve'

  const { account, walletClient } = createAnvilClients({
    rpcUrl,
    privateKey,
    chainId: nodeChainId,
  })

  const solana = createSolanaAnswerer({
    keypair: solanaKeypair,
    rpcUrl: solanaRpcUrl,
    nodeChainId: Solana.localnet.caipNetworkId,
  })

  /** Chains the wallet knows: the node's, mainnet, and those added with wallet_addEthereumChain. */
  const knownChains = new Set([nodeChainId, 1])
  const proposals: WalletKitTypes.SessionProposal['params'][] = []
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
    proposals.push(params)
    if (behaviour === 'reject') {
      await walletKit.rejectSession({ id, reason: getSdkError('USER_REJECTED') })
      return
    }
    const chains = [...knownChains]
    const supported = {
      eip155: {
        chains: chains.map((id) => `eip155:${id}`),
        methods: METHODS,
        events: EVENTS,
        accounts: accountsFor(chains),
      },
      solana: {
        chains: SOLANA_CHAINS,
        methods: SOLANA_METHODS,
        events: [],
        accounts: SOLANA_CHAINS.map((chain) => `${chain}:${solana.address}`),
      },
    }
    const namespaces = buildApprovedNamespaces({
      proposal: params,
      supportedNamespaces: Object.fromEntries(
        approvedNamespaces.map((namespace) => [namespace, supported[namespace]]),
      ),
    })
    await walletKit.approveSession({ id, namespaces })
  }

  const requireApproval = () => {
    if (behaviour === 'reject') throw userRejected()
  }

  /** Adds a chain (and the account on it) to the session when it is not there yet. */
  const addChainToSession = async (topic: string, id: number) => {
    const session = walletKit.getActiveSessions()[topic]
    const eip155 = session?.namespaces.eip155
    if (!session || !eip155) throw new RpcError(ErrorCode.unauthorized, 'No such session.')
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
    if (method.startsWith('solana_'))
      return solana.answer(method, params, requestChainId, requireApproval)
    const list = toParamList(params)

    switch (method) {
      case 'eth_accounts':
        return [account.address]

      case 'eth_chainId':
        return numberToHex(Number(requestChainId.split(':')[1]))

      case 'personal_sign': {
        const message = parsePersonalSign(account, list)
        requireApproval()
        return account.signMessage({ message })
      }

      case 'eth_signTypedData_v4': {
        const typedData = parseTypedDataV4(account, list)
        requireApproval()
        return account.signTypedData(typedData)
      }

      case 'eth_sendTransaction': {
        // The wallet sets the nonce and the fees itself, whatever the dapp asked.
        const { to, data, value, gas } = parseTransaction(account, list)
        requireApproval()
        if (requestChainId !== `eip155:${nodeChainId}`)
          throw new RpcError(
            ErrorCode.chainDisconnected,
            `The test wallet sends only on eip155:${nodeChainId}.`,
          )
        return walletClient.sendTransaction({ to, data, value, gas })
      }

      case 'wallet_switchEthereumChain': {
        const { chainId: id } = parseChainRequest(list)
        if (!knownChains.has(id))
          throw new RpcError(ErrorCode.unknownChain, `Unrecognized chain ID "${numberToHex(id)}".`)
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
        const { chainId: id } = parseChainRequest(list)
        requireApproval()
        knownChains.add(id)
        return null
      }

      default:
        throw new RpcError(
          ErrorCode.unsupportedMethod,
          `The test wallet does not support ${method}.`,
        )
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
      // As a wallet answers: its own errors as they are, viem's by their code (or their cause's).
      const { code, shortMessage: message } = WalletError.from(error)
      response = { id, jsonrpc: '2.0', error: { code, message } }
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
    solanaAddress: solana.address,
    get behaviour() {
      return behaviour
    },
    setBehaviour(next) {
      behaviour = next
    },
    proposals,
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
