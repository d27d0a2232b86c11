/**
 * The Solana connection, loaded lazily with the adapter (`index.ts`): the
 * connected wallet (`wallet.ts`: a Standard wallet of the host page, …), its
 * account and the network the widget uses it on, mirrored into the widget's
 * store (what the host sees), kept for a reconnect on reload, and the
 * answers to the host's Solana requests (Porthole's own Standard wallet on
 * the host page calls them, contract section 2).
 */
import { getByCaipNetworkId } from '@porthole/chains/Networks'
import { invalidCommitmentMessage, preflightCommitments } from '@porthole/protocol/EmbeddedRpc'
import {
  ErrorCode,
  InvalidParamsError,
  RpcError,
  UnsupportedMethodError,
  WalletError,
} from '@porthole/protocol/Errors'
import type { ProviderRequest } from '@porthole/protocol/Host'
import * as Siwx from '@porthole/protocol/Siwx'
import { z } from '@porthole/protocol/zod'
import { base58, base64 } from '@scure/base'
import { standardConnectorIdOf, walletConnectId } from '../../data/connectList.js'
import { queryClient } from '../../data/queryClient.js'
import { rememberRecent, solanaConnectionKey } from '../../data/recent.js'
import { storage } from '../../data/storage.js'
import { UnverifiedHostError } from '../../errors.js'
import { projectConfigQuery } from '../../host/projectConfig.js'
import {
  expirationOf,
  followSession,
  type SignInOutcome,
  SiwxError,
  SiwxErrorMessage,
  SiwxMessage,
  signInWith,
  signOutOf,
} from '../../host/siwx.js'
import { embeddedConnectorId } from '../../secure/approval.js'
import { followSupport, waitForConnection } from '../../state/connection.js'
import { router } from '../../state/router.js'
import { type Connection, disconnected, store } from '../../state/store.js'
import { embeddedWallet } from './embeddedWallet.js'
import { standardConnectorPrefix, standardWallet } from './standard.js'
import { signatureOf } from './verify.js'
import type { SolanaWallet } from './wallet.js'
import { onSolanaSessionChange, solanaSession } from './walletConnect.js'
import { walletConnectWallet } from './walletConnectWallet.js'

/** 4100: the host asked for something that needs a connected Solana wallet. */
export class NotConnectedError extends RpcError {
  override name = 'NotConnectedError'
  constructor() {
    super(ErrorCode.unauthorized, 'No Solana wallet is connected: call standard:connect first.')
  }
}

/** 4902: a network the project does not offer, or the wallet cannot use. */
export class UnknownNetworkError extends RpcError {
  override name = 'UnknownNetworkError'
  constructor(caipNetworkId: string, why = 'the project does not offer it') {
    super(ErrorCode.unknownChain, `Unrecognized network ${caipNetworkId}: ${why}.`)
  }
}

type Current = { wallet: SolanaWallet; address: string; caipNetworkId: string }

let current: Current | null = null
/** The project's Solana networks, in its order (the first is the default). */
let networks: string[] = []

/** The connector id of the last connection on this host, for a reconnect on reload. */
const storedKey = () => solanaConnectionKey(store.getState().hostOrigin ?? '')

export const isSupportedNetwork = (caipNetworkId: string): boolean =>
  networks.includes(caipNetworkId)

export const projectSolanaNetworks = (): readonly string[] => networks

/** The connected wallet and account, or 4100. */
export function connected(): Current {
  if (!current) throw new NotConnectedError()
  return current
}

/** Mirrors the connection into the store; the UnsupportedChain lock follows it. */
function publish(): void {
  if (!current) {
    if (store.getState().connection.namespace !== 'solana') return
    store.setState({ connection: disconnected })
    followSupport(disconnected, true)
    followSession(disconnected, false)
    return
  }
  const { wallet, address, caipNetworkId } = current
  const connection: Connection = {
    status: 'connected',
    namespace: 'solana',
    address,
    chainId: caipNetworkId.slice('solana:'.length),
    connectorId: wallet.id,
    connectorName: wallet.name,
  }
  store.setState({ connection })
  followSupport(connection, isSupportedNetwork(caipNetworkId))
  followSession(connection, isSupportedNetwork(caipNetworkId))
}

/**
 * The network a wallet starts on: the one SwitchActiveChain picked, else the
 * project's first that the wallet can use. A wallet that can use none of
 * them is on its own first (and gets UnsupportedChain).
 */
function startingNetwork(wallet: SolanaWallet): string {
  const own = wallet.networks()
  const usable = own.length === 0 ? networks : networks.filter((id) => own.includes(id))
  const { switchTarget } = store.getState()
  if (switchTarget && usable.includes(switchTarget)) return switchTarget
  const network = usable[0] ?? own[0]
  if (!network) throw new UnknownNetworkError('solana', 'the project offers no Solana network')
  return network
}

export function walletOf(connectorId: string): SolanaWallet {
  if (connectorId.startsWith(standardConnectorPrefix))
    return standardWallet(connectorId.slice(standardConnectorPrefix.length))
  if (connectorId === walletConnectId) return walletConnectWallet()
  if (connectorId === embeddedConnectorId) return embeddedWallet(() => networks[0])
  throw new RpcError(ErrorCode.disconnected, 'That wallet is no longer available.')
}

/** Connects `wallet` (silently: only if it has authorised the site); whether it connected. */
async function attach(wallet: SolanaWallet, silent: boolean): Promise<boolean> {
  const address = await wallet.connect(silent)
  if (!address) return false
  current = { wallet, address, caipNetworkId: startingNetwork(wallet) }
  storage.setItem(storedKey(), wallet.id)
  publish()
  return true
}

/** Ends the connection here (the wallet already ended it, or is gone). */
function detach(): void {
  current = null
  storage.removeItem(storedKey())
  publish()
}

/**
 * Follows the connected Standard wallet in the loader's list: gone, or no
 * account authorised any more, disconnects; another first account while the
 * connected one is no longer authorised becomes the account.
 */
function followStandardWallets(): void {
  let accounts: readonly string[] | undefined
  store.subscribe(() => {
    if (!current?.wallet.id.startsWith(standardConnectorPrefix)) {
      accounts = undefined
      return
    }
    const name = current.wallet.name
    const listing = store.getState().standardWallets.find((wallet) => wallet.name === name)
    if (!listing) return detach()
    if (listing.accounts === accounts) return
    const before = accounts
    accounts = listing.accounts
    // Only a change the wallet reported counts (its list may lag its connect answer).
    if (before === undefined || current.address === undefined) return
    if (listing.accounts.length === 0) return detach()
    const [first] = listing.accounts
    if (first && !listing.accounts.includes(current.address)) {
      current = { ...current, address: first }
      publish()
    }
  })
}

/** A WalletConnect session that ends (or loses its Solana accounts) ends its connection. */
function followWalletConnect(): void {
  onSolanaSessionChange(() => {
    if (current?.wallet.id === walletConnectId && !solanaSession()) detach()
  })
}

/**
 * Reconnects the wallet of the last connection on this host, silently: a
 * Standard wallet once the loader lists it, WalletConnect once its session is
 * restored, the embedded wallet if the frame is still logged in.
 */
function reconnect(): void {
  const connectorId = storage.getItem(storedKey())
  if (!connectorId) return
  const tryAttach = () => {
    void attach(walletOf(connectorId), true).catch(() => undefined)
  }
  const available = () =>
    connectorId === embeddedConnectorId ||
    (connectorId === walletConnectId
      ? solanaSession() !== undefined
      : store
          .getState()
          .standardWallets.some((wallet) => standardConnectorIdOf(wallet) === connectorId))
  if (available()) {
    tryAttach()
    return
  }
  const stop = () => {
    stopStore()
    stopSession()
  }
  const check = () => {
    if (current) return stop()
    if (!available()) return
    stop()
    tryAttach()
  }
  const stopStore = store.subscribe(check)
  const stopSession = onSolanaSessionChange(check)
}

export const ready: Promise<void> = (async () => {
  const { hostOrigin } = store.getState()
  if (!hostOrigin) throw new UnverifiedHostError()
  const config = await queryClient.fetchQuery(projectConfigQuery)
  networks = config.networks.filter((id) => getByCaipNetworkId(id)?.chainNamespace === 'solana')
  followStandardWallets()
  followWalletConnect()
  reconnect()
})()
// Callers see a failure; this only keeps it from being reported as unhandled.
ready.catch(() => undefined)

/** A wallet's error as the host and the views see it: its code kept, a decline 4001. */
const fromWallet = (error: unknown): never => {
  throw WalletError.from(error)
}

const maxMessageLength = 8192
/** A transaction is at most 1232 bytes: 1644 base64 characters. */
const maxTransactionLength = 2048
const address = z.string().check(z.regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/))
const base64Text = z
  .string()
  .check(z.maxLength(maxTransactionLength), z.regex(/^[A-Za-z0-9+/]*={0,2}$/))

// Strict (SECURITY.md 18): a key the wallet would never see is refused, not dropped.
const SignMessageParams = z.strictObject({
  message: z
    .string()
    .check(z.minLength(1), z.maxLength(maxMessageLength), z.regex(/^[1-9A-HJ-NP-Za-km-z]+$/)),
  pubkey: address,
})
const SignTransactionParams = z.strictObject({ transaction: base64Text })
const SignAndSendParams = z.strictObject({
  transaction: base64Text,
  sendOptions: z.optional(
    z.strictObject({
      preflightCommitment: z.optional(z.enum(preflightCommitments)),
      skipPreflight: z.optional(z.boolean()),
      maxRetries: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(100))),
      minContextSlot: z.optional(z.number().check(z.int(), z.minimum(0))),
    }),
  ),
})

function decodeBase64(text: string): Uint8Array {
  try {
    return base64.decode(text)
  } catch {
    throw new InvalidParamsError('Expected base64 (standard alphabet, padded).')
  }
}

function parse<output>(schema: z.ZodMiniType<output>, params: unknown, shape: string): output {
  const result = schema.safeParse(params)
  if (!result.success) throw new InvalidParamsError(`Expected ${shape}.`)
  return result.data
}

export const solanaConnection = {
  ready,

  async connect(connectorId: string): Promise<void> {
    await ready
    if (!(await attach(walletOf(connectorId), false)))
      throw new RpcError(ErrorCode.disconnected, 'The wallet connected no Solana account.')
    rememberRecent(connectorId)
  },

  /** Connects the embedded wallet's Solana account once the secure frame holds a logged-in wallet. */
  async connectEmbedded(): Promise<void> {
    await solanaConnection.connect(embeddedConnectorId)
  },

  async disconnect(): Promise<void> {
    await ready
    const wallet = current?.wallet
    detach()
    await wallet?.disconnect().catch(() => undefined)
  },

  async switchNetwork(caipNetworkId: string): Promise<void> {
    await ready
    if (!isSupportedNetwork(caipNetworkId)) throw new UnknownNetworkError(caipNetworkId)
    const { wallet } = connected()
    const own = wallet.networks()
    if (own.length > 0 && !own.includes(caipNetworkId))
      throw new UnknownNetworkError(caipNetworkId, 'the wallet does not support it')
    await wallet.switchNetwork?.(caipNetworkId)
    if (current?.wallet === wallet) current = { ...current, caipNetworkId }
    publish()
  },

  /** Signs a UTF-8 message; the signature in base58. */
  async signMessage(message: string): Promise<string> {
    await ready
    const { wallet, address, caipNetworkId } = connected()
    const signature = await wallet
      .signMessage(address, new TextEncoder().encode(message), caipNetworkId)
      .catch(fromWallet)
    return base58.encode(signature)
  },

  /** The host's `signIn()`: opens SIWXSignMessage for the connected account. */
  async requestSignIn(): Promise<void> {
    await ready
    if (!store.getState().siwx)
      throw new RpcError(ErrorCode.unsupportedMethod, SiwxErrorMessage.notEnabled)
    connected()
    router.open('SIWXSignMessage')
  },

  /** SIWXSignMessage's Sign: CAIP-122's generic message, signed by the wallet (ed25519, base58). */
  async signIn(): Promise<SignInOutcome> {
    await ready
    const { wallet, address, caipNetworkId } = connected()
    try {
      return await signInWith({
        address,
        caipNetworkId: isSupportedNetwork(caipNetworkId) ? caipNetworkId : undefined,
        hasClient: true,
        createMessage: ({ nonce, issuedAt, hostOrigin, siwx }) => {
          const host = new URL(hostOrigin)
          const expirationTime = expirationOf(issuedAt, siwx.expirationTime)
          return Siwx.create({
            scheme: host.protocol.slice(0, -1),
            domain: host.host,
            uri: hostOrigin,
            address,
            chainId: caipNetworkId,
            nonce,
            issuedAt,
            requestId: crypto.randomUUID(),
            ...(siwx.statement ? { statement: siwx.statement } : {}),
            ...(siwx.resources?.length ? { resources: siwx.resources } : {}),
            ...(expirationTime ? { expirationTime } : {}),
          })
        },
        sign: async (message) =>
          base58.encode(
            await wallet.signMessage(address, new TextEncoder().encode(message), caipNetworkId),
          ),
      })
    } catch (error) {
      // A failed start disconnects, as the seed says.
      if (error instanceof SiwxError && error.shortMessage === SiwxMessage.initFailed)
        await solanaConnection.disconnect()
      throw error
    }
  },

  /** SIWXSignMessage's Cancel: disconnects when sign-in is required, else closes the modal. */
  async cancelSignIn(): Promise<void> {
    if (store.getState().siwx?.required) await solanaConnection.disconnect()
    else router.close()
  },

  async signOut(): Promise<void> {
    await signOutOf(current ? `${current.caipNetworkId}:${current.address}` : null)
  },

  /** Solana accounts are keys, never contracts. */
  isSmartAccount: async (): Promise<boolean> => false,

  /** Answers a Solana request of the host (Porthole's Standard wallet on its page). */
  async request({ method, params }: ProviderRequest, signal: AbortSignal): Promise<unknown> {
    await ready
    switch (method) {
      case 'standard:connect': {
        if (current) return { accounts: [current.address] }
        // The embedded wallet, connected on EVM, holds a Solana account too:
        // the same login connects it, with no wallet to pick.
        const { connection } = store.getState()
        if (connection.status === 'connected' && connection.connectorId === embeddedConnectorId) {
          await solanaConnection.connect(embeddedConnectorId)
          return { accounts: [connected().address] }
        }
        const { silent } = (params ?? {}) as { silent?: unknown }
        if (silent === true) return { accounts: [] }
        store.setState({ requestedNamespace: 'solana' })
        router.open('Connect')
        return { accounts: [await waitForConnection(signal, 'solana')] }
      }
      case 'standard:disconnect':
        await solanaConnection.disconnect()
        return null
      case 'solana_signMessage': {
        const { message, pubkey } = parse(
          SignMessageParams,
          params,
          '{ message: base58, pubkey: address }',
        )
        const { wallet, address, caipNetworkId } = connected()
        if (pubkey !== address)
          throw new RpcError(ErrorCode.unauthorized, 'That account is not the connected one.')
        const bytes = base58.decode(message)
        const signature = await wallet.signMessage(address, bytes, caipNetworkId).catch(fromWallet)
        // The wallet is untrusted: the host gets only the account's signature of these bytes.
        return { signature: base58.encode(signatureOf(address, bytes, signature)) }
      }
      case 'solana_signTransaction': {
        const { transaction } = parse(SignTransactionParams, params, '{ transaction: base64 }')
        const { wallet, address, caipNetworkId } = connected()
        const signed = await wallet
          .signTransaction(address, decodeBase64(transaction), caipNetworkId)
          .catch(fromWallet)
        return { transaction: base64.encode(signed) }
      }
      case 'solana_signAndSendTransaction': {
        const commitment = (params as { sendOptions?: { preflightCommitment?: unknown } } | null)
          ?.sendOptions?.preflightCommitment
        if (
          commitment !== undefined &&
          !(preflightCommitments as readonly unknown[]).includes(commitment)
        )
          throw new InvalidParamsError(invalidCommitmentMessage)
        const { transaction, sendOptions } = parse(
          SignAndSendParams,
          params,
          '{ transaction: base64, sendOptions?: { preflightCommitment?, skipPreflight?, maxRetries?, minContextSlot? } }',
        )
        const { wallet, address, caipNetworkId } = connected()
        const signature = await wallet
          .signAndSendTransaction(address, decodeBase64(transaction), caipNetworkId, sendOptions)
          .catch(fromWallet)
        return { signature }
      }
      default:
        throw new UnsupportedMethodError(method)
    }
  },
}
