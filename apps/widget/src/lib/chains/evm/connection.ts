/**
 * The EVM connection, loaded lazily with the adapter (`index.ts`): wagmi's
 * config, the host wallets' bridge, the mirror of wagmi's connection into the
 * widget's store (what the host sees, and its provider's events), and the
 * answers to the host's EIP-1193 requests.
 */

import { getByCaipNetworkId } from '@porthole/chains/Networks'
import { ErrorCode, RpcError, WalletError } from '@porthole/protocol/Errors'
import type { ProviderRequest } from '@porthole/protocol/Host'
import { numberToHex } from 'viem'
import type { Connector } from 'wagmi'
import {
  connect,
  disconnect,
  getConnection,
  getConnectors,
  getPublicClient,
  reconnect,
  signMessage,
  switchChain,
  switchConnection,
  watchConnection,
  watchConnectors,
} from 'wagmi/actions'
import { queryClient } from '../../data/queryClient.js'
import { rememberRecent } from '../../data/recent.js'
import { NoEvmAccountsError, UnverifiedHostError } from '../../errors.js'
import { emitProviderEvent } from '../../host/channel.js'
import { projectConfigQuery } from '../../host/projectConfig.js'
import { followSupport, waitForConnection } from '../../state/connection.js'
import { router } from '../../state/router.js'
import { type Connection, disconnected, store } from '../../state/store.js'
import { showToast } from '../../state/toast.js'
import { announceHostWallets } from './bridge.js'
import { createEvmConfig, type EvmConfig } from './config.js'
import { embeddedConnectorId } from './embedded.js'
import { isReadOnlyMethod } from './methods.js'
import * as Siwx from './siwx.js'
import { followSession } from './siwx.js'

/** 4100: the host asked for something that needs a connected wallet. */
export class NotConnectedError extends RpcError {
  override name = 'NotConnectedError'
  constructor() {
    super(ErrorCode.unauthorized, 'No wallet is connected: call eth_requestAccounts first.')
  }
}

/**
 * 4902 with the seed's copy ('Unsupported chain'): a network the project does
 * not offer. Adding it (`wallet_addEthereumChain`) gets the same answer, never
 * the wallet's: the project, not the wallet, is what lacks it.
 */
export class UnknownChainError extends RpcError {
  override name = 'UnknownChainError'
  constructor(chainId: string) {
    super(
      ErrorCode.unknownChain,
      `Unsupported chain: chain ID ${chainId} is not among this site's networks (its Porthole project does not offer it).`,
    )
  }
}

/** EIP-3326's form: 0x, then hex digits with no leading zero. */
const hexChainId = /^0x[1-9a-f][0-9a-f]{0,12}$/i

/**
 * The `chainId` of `[{ chainId: hex }]` (switch and add), as a number: one
 * parameter, strictly hex, or -32602 (a decimal or padded id would mean
 * another chain to some wallets: red team, issue 15).
 */
function targetChain(params: unknown): { hex: string; id: number } {
  const [parameter, ...more] = (Array.isArray(params) ? params : []) as [{ chainId?: unknown }?]
  const hex = parameter?.chainId
  if (more.length > 0 || typeof hex !== 'string' || !hexChainId.test(hex))
    throw new RpcError(ErrorCode.invalidParams, 'Expected [{ chainId: hex string }].')
  return { hex, id: Number(hex) }
}

function toConnection(config: EvmConfig): Connection & { chainId: number | null } {
  const { status, address, chainId, connector } = getConnection(config)
  if (status === 'disconnected') return disconnected
  return {
    status,
    namespace: 'eip155',
    address: address ?? null,
    chainId: chainId ?? null,
    connectorId: connector?.id ?? null,
    connectorName: connector?.name ?? null,
  }
}

/**
 * The seed's wallet connection status of a connector: `connected` when it is
 * the active connection, `active` when wagmi knows a connection of it (the
 * connection list), else `disconnected`.
 */
export function walletConnectionStatus(
  config: Pick<EvmConfig, 'state'>,
  connectorId: string,
): 'connected' | 'active' | 'disconnected' {
  const { connections, current } = config.state
  if (current && connections.get(current)?.connector.id === connectorId) return 'connected'
  const known = [...connections.values()].some(({ connector }) => connector.id === connectorId)
  return known ? 'active' : 'disconnected'
}

/** Whether the connected wallet is on a network the project offers. */
export const isSupportedChain = (config: EvmConfig, chainId: number | string | null): boolean =>
  chainId !== null && config.chains.some((chain) => chain.id === chainId)

/** Mirrors wagmi's connection into the store and tells the host's provider what changed. */
function mirrorConnection(config: EvmConfig) {
  let previous: ReturnType<typeof toConnection> = disconnected
  const sync = () => {
    const next = toConnection(config)
    // wagmi with no connection leaves another namespace's connection alone.
    if (next.status === 'disconnected' && store.getState().connection.namespace !== 'eip155') {
      previous = next
      return
    }
    store.setState({ connection: next })
    const was = previous.status === 'connected' && previous.address !== null
    const is = next.status === 'connected' && next.address !== null
    if (!was && is) {
      emitProviderEvent({ event: 'connect', data: { chainId: numberToHex(next.chainId ?? 0) } })
      emitProviderEvent({ event: 'accountsChanged', data: [next.address] })
    } else if (was && !is && next.status === 'disconnected') {
      emitProviderEvent({ event: 'accountsChanged', data: [] })
      emitProviderEvent({
        event: 'disconnect',
        data: { code: ErrorCode.disconnected, message: 'The wallet disconnected.' },
      })
    } else if (was && is) {
      if (next.address !== previous.address)
        emitProviderEvent({ event: 'accountsChanged', data: [next.address] })
      if (next.chainId !== previous.chainId)
        emitProviderEvent({ event: 'chainChanged', data: numberToHex(next.chainId ?? 0) })
    }
    previous = next
    followSupport(next, isSupportedChain(config, next.chainId))
    followSession(next, isSupportedChain(config, next.chainId))
  }
  sync()
  return watchConnection(config, { onChange: sync })
}

function findConnector(config: EvmConfig, connectorId: string): Connector {
  const connector = getConnectors(config).find((candidate) => candidate.id === connectorId)
  if (!connector) throw new RpcError(ErrorCode.disconnected, 'That wallet is no longer available.')
  return connector
}

type Eip1193 = { request(args: { method: string; params?: unknown }): Promise<unknown> }

const isUnknownChain = (error: unknown): boolean => {
  const { code, data } = (error ?? {}) as {
    code?: unknown
    data?: { originalError?: { code?: unknown } }
  }
  return code === ErrorCode.unknownChain || data?.originalError?.code === ErrorCode.unknownChain
}

/** EIP-3085's parameter for a chain, with the network's public RPC and explorer (not our proxy). */
export function toAddEthereumChainParameter(chainId: number) {
  const network = getByCaipNetworkId(`eip155:${chainId}`)
  if (network?.chainNamespace !== 'eip155') throw new UnknownChainError(String(chainId))
  return {
    chainId: numberToHex(chainId),
    chainName: network.name,
    nativeCurrency: network.nativeCurrency,
    rpcUrls: [...network.rpcUrls.default.http],
    ...(network.blockExplorers ? { blockExplorerUrls: [network.blockExplorers.default.url] } : {}),
  }
}

/**
 * After a switch the wallet says so with `chainChanged`; a wallet that stays
 * silent is asked (`eth_chainId`), as wagmi does, so the connection follows.
 */
async function settleChain(config: EvmConfig, connector: Connector, chainId: number) {
  const deadline = Date.now() + 2000
  while (getConnection(config).chainId !== chainId && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50))
  if (getConnection(config).chainId === chainId) return
  if ((await connector.getChainId()) === chainId) connector.emitter.emit('change', { chainId })
}

const ready: Promise<EvmConfig> = (async () => {
  const { hostOrigin } = store.getState()
  if (!hostOrigin) throw new UnverifiedHostError()
  const { networks } = await queryClient.fetchQuery(projectConfigQuery)
  // Announce first: wagmi's discovery asks for providers when the config is created.
  announceHostWallets(store)
  const config = createEvmConfig({ hostOrigin, networks })
  mirrorConnection(config)
  // A wallet the bridge reports after start-up may be the one to reconnect.
  watchConnectors(config, {
    onChange() {
      if (getConnection(config).status === 'disconnected') void reconnect(config)
    },
  })
  await reconnect(config)
  return config
})()
// Callers see a failure; this only keeps it from being reported as unhandled.
ready.catch(() => undefined)

export const evmConnection = {
  ready,

  async connect(connectorId: string): Promise<void> {
    const config = await ready
    const connector = findConnector(config, connectorId)
    // A wallet wagmi still holds a connection to only becomes the current one again.
    if (walletConnectionStatus(config, connectorId) === 'active')
      await switchConnection(config, { connector })
    else await connect(config, { connector })
    rememberRecent(connectorId)
  },

  /**
   * Starts a WalletConnect pairing: `onUri` receives its URI. Calling it again
   * replaces the pairing (the old URI stops working); the promise of the
   * attempt that connects resolves, the others never matter to the caller.
   * A wallet that connects Solana accounts only connects too: its session is
   * the Solana adapter's (`solana/walletConnect.ts`), wagmi stays as it was.
   */
  async pairWalletConnect(onUri: (uri: string) => void): Promise<void> {
    const config = await ready
    const connector = findConnector(config, 'walletConnect')
    const onMessage = ({ type, data }: { type: string; data?: unknown }) => {
      if (type === 'display_uri' && typeof data === 'string') onUri(data)
    }
    connector.emitter.on('message', onMessage)
    try {
      await connect(config, { connector }).catch((error: unknown) => {
        if (!(error instanceof NoEvmAccountsError)) throw error
      })
      rememberRecent('walletConnect')
    } finally {
      connector.emitter.off('message', onMessage)
    }
  },

  /**
   * Abandons a connection attempt the user walked away from (a pairing that
   * no wallet scanned): wagmi goes back to what it was, as after a failure.
   */
  async cancelConnecting(): Promise<void> {
    const config = await ready
    config.setState((state) =>
      state.status === 'connecting'
        ? { ...state, status: state.current ? 'connected' : 'disconnected' }
        : state,
    )
  },

  async disconnect(): Promise<void> {
    const config = await ready
    await disconnect(config)
  },

  /** Connects the embedded wallet once the secure frame holds a logged-in, unlocked wallet. */
  async connectEmbedded(): Promise<void> {
    await evmConnection.connect(embeddedConnectorId)
  },

  /** The host's `signIn()`: opens SIWXSignMessage for the connected account. */
  async requestSignIn(): Promise<void> {
    await ready
    if (!store.getState().siwx)
      throw new RpcError(ErrorCode.unsupportedMethod, Siwx.SiwxErrorMessage.notEnabled)
    const { connection } = store.getState()
    if (connection.status !== 'connected' || !connection.address) throw new NotConnectedError()
    router.open('SIWXSignMessage')
  },

  /** SIWXSignMessage's Sign: 'signed' (the modal closes) or 'declined' (the view stays). */
  async signIn(): Promise<Siwx.SignInOutcome> {
    const config = await ready
    try {
      return await Siwx.signIn(config)
    } catch (error) {
      // A failed start disconnects, as the seed says; the view goes with the
      // connection, so Connect says why in a toast.
      if (error instanceof Siwx.SiwxError && error.shortMessage === Siwx.SiwxMessage.initFailed) {
        await disconnect(config).catch(() => undefined)
        showToast(error.shortMessage, 'error')
      }
      throw error
    }
  },

  /** SIWXSignMessage's Cancel: disconnects when sign-in is required, else closes the modal. */
  async cancelSignIn(): Promise<void> {
    const config = await ready
    if (store.getState().siwx?.required) await disconnect(config)
    else router.close()
  },

  async signOut(): Promise<void> {
    await Siwx.signOut(await ready)
  },

  async isSmartAccount(): Promise<boolean> {
    return Siwx.isSmartAccount(await ready)
  },

  /**
   * Switches the wallet's network: `wallet_switchEthereumChain`, and when the
   * wallet lacks the chain (4902), `wallet_addEthereumChain` and the switch
   * again (a wallet that switches on add answers the second one at once).
   * WalletConnect goes through its connector.
   */
  async switchChain(chainId: number): Promise<void> {
    const config = await ready
    if (!isSupportedChain(config, chainId)) throw new UnknownChainError(String(chainId))
    const { connector } = getConnection(config)
    if (!connector) throw new NotConnectedError()
    if (connector.type !== 'injected') {
      await switchChain(config, { chainId })
      return
    }
    const provider = (await connector.getProvider()) as Eip1193
    const hexChainId = numberToHex(chainId)
    const switchTo = () =>
      provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: hexChainId }] })
    try {
      await switchTo()
    } catch (error) {
      if (!isUnknownChain(error)) throw error
      await provider.request({
        method: 'wallet_addEthereumChain',
        params: [toAddEthereumChainParameter(chainId)],
      })
      await switchTo()
    }
    await settleChain(config, connector, chainId)
  },

  async signMessage(message: string): Promise<string> {
    return signMessage(await ready, { message })
  },

  /** Answers a request from the host's EIP-1193 provider. */
  async request({ method, params }: ProviderRequest, signal: AbortSignal): Promise<unknown> {
    const config = await ready
    const connection = store.getState().connection
    const connected =
      connection.status === 'connected' &&
      connection.namespace === 'eip155' &&
      connection.address !== null
    const chainId = connected ? (connection.chainId as number | null) : config.chains[0].id
    switch (method) {
      case 'eth_requestAccounts': {
        if (connected) return [connection.address]
        store.setState({ requestedNamespace: 'eip155' })
        router.open('Connect')
        return [await waitForConnection(signal, 'eip155')]
      }
      case 'eth_accounts':
        return connected ? [connection.address] : []
      case 'eth_chainId':
        return numberToHex(chainId ?? config.chains[0].id)
      case 'net_version':
        return String(chainId)
      // wagmi adds after a 4902: a network the project lacks stays unsupported for the add
      // too (the embedded wallet would answer 'Requested RPC call is not allowed'). An offered
      // one is switched to, and added first if the wallet lacks it, with the widget's own
      // parameters, never the host's (its RPC URL or name would reach the wallet otherwise).
      case 'wallet_switchEthereumChain':
      case 'wallet_addEthereumChain': {
        const target = targetChain(params)
        if (!isSupportedChain(config, target.id)) throw new UnknownChainError(target.hex)
        if (!connected) throw new NotConnectedError()
        await evmConnection.switchChain(target.id).catch((error: unknown) => {
          throw WalletError.from(error)
        })
        return null
      }
    }
    if (!connected) {
      if (!isReadOnlyMethod(method)) throw new NotConnectedError()
      const client = getPublicClient(config)
      if (!client) throw new NotConnectedError()
      return client
        .request({ method, params } as Parameters<typeof client.request>[0])
        .catch((error: unknown) => {
          throw WalletError.from(error)
        })
    }
    const { connector } = getConnection(config)
    if (!connector) throw new NotConnectedError()
    const provider = (await connector.getProvider()) as {
      request(
        args: { method: string; params?: unknown },
        options?: { signal?: AbortSignal },
      ): Promise<unknown>
    }
    // The embedded wallet is ours and takes the host's cancel (SECURITY.md 17);
    // another wallet's provider gets the plain EIP-1193 call.
    const options = connector.id === embeddedConnectorId ? [{ signal }] : []
    return provider
      .request(params === undefined ? { method } : { method, params }, ...options)
      .catch((error: unknown) => {
        throw WalletError.from(error)
      })
  },
}
