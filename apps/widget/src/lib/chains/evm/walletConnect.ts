/**
 * A wagmi connector for WalletConnect over `@walletconnect/universal-provider`
 * (wagmi's own connector needs `@walletconnect/ethereum-provider`, which is
 * 426 MB with its dependencies). The provider is loaded and started only when
 * a pairing starts or a stored session must be restored, so a visit that
 * never uses WalletConnect never opens the relay's socket. The pairing also
 * offers the project's Solana networks (optional, as EIP-155's, so a wallet
 * of either namespace pairs); the provider is registered in
 * `../walletConnect/provider.ts`, where `solana/walletConnect.ts` finds it.
 */
import type UniversalProvider from '@walletconnect/universal-provider'
import { type Address, getAddress, isAddress, numberToHex, UserRejectedRequestError } from 'viem'
import { createConnector } from 'wagmi'
import { ChainNotConfiguredError, NoEvmAccountsError, NoSessionError } from '../../errors.js'
import {
  disconnectWalletConnect,
  registerWalletConnectProvider,
  solanaNamespace,
} from '../walletConnect/provider.js'

export type WalletConnectParameters = {
  /** The WalletConnect Cloud project id. */
  projectId: string
  /** The relay's WebSocket URL (`wss://relay.walletconnect.org` in production). */
  relayUrl: string
  metadata: { name: string; description: string; url: string; icons: string[] }
  /** The project's networks, all namespaces: its Solana ones are offered beside EIP-155's. */
  networks: readonly string[]
}

/** The EIP-1193 methods and events a WalletConnect session asks the wallet for. */
export const walletConnectMethods = [
  'eth_sendTransaction',
  'personal_sign',
  'eth_signTypedData_v4',
  'wallet_switchEthereumChain',
  'wallet_addEthereumChain',
  'wallet_getCapabilities',
  'wallet_sendCalls',
  'wallet_getCallsStatus',
] as const
export const walletConnectEvents = ['chainChanged', 'accountsChanged'] as const

/** Set while a session exists, so a reload knows whether to start the provider at all. */
const connectedKey = 'walletConnect.connected'

type Provider = InstanceType<typeof UniversalProvider>

const toAddresses = (accounts: readonly string[]): Address[] => [
  ...new Set(accounts.map((account) => getAddress(account.split(':').at(-1) as string))),
]

/**
 * The EVM addresses among an `accountsChanged`'s: the provider relays every
 * namespace's events with the namespace cut off, so the Solana accounts it
 * emits when the Solana network changes (its `setDefaultChain`) come through
 * here too and are not ours.
 */
export const evmAccounts = (accounts: readonly string[]): string[] =>
  accounts.filter((account) => isAddress(account.split(':').at(-1) as string, { strict: false }))

/** An EIP-155 chain id from a `chainChanged`; a Solana network's (base58) is none. */
export const evmChainId = (chainId: string | number): number | undefined => {
  const id = Number(chainId)
  return Number.isSafeInteger(id) && id > 0 ? id : undefined
}

const userRejected = (error: unknown) =>
  /user rejected|rejected|connection request reset/i.test(
    error instanceof Error ? error.message : String(error),
  )

/**
 * WalletConnect's Verify registers each request by framing
 * verify.walletconnect.org in the page. The widget's CSP frames the secure
 * origin only (SECURITY.md 14), so that frame never loads and the SDK would
 * wait 5 s before every pairing and request. Registering nothing is what the
 * SDK does when Verify is unreachable: wallets then show the dapp as unverified.
 */
function skipVerify(instance: Provider) {
  const verify = (instance.client.core as { verify?: { register?: unknown } }).verify
  if (verify && typeof verify.register === 'function') verify.register = async () => ''
}

export function walletConnect(parameters: WalletConnectParameters) {
  let provider: Provider | undefined
  let starting: Promise<Provider> | undefined
  let onAccountsChanged: ((accounts: string[]) => void) | undefined
  let onChainChanged: ((chainId: string | number) => void) | undefined
  let onDisconnect: (() => void) | undefined
  let onDisplayUri: ((uri: string) => void) | undefined

  return createConnector<Provider>((config) => {
    const rpcMap = Object.fromEntries(
      config.chains.map((chain) => [chain.id, chain.rpcUrls.default.http[0] as string]),
    )
    const caipChains = config.chains.map((chain) => `eip155:${chain.id}`)

    /** wagmi's 'change' for an `accountsChanged`: none is a disconnect, another namespace's is not ours. */
    const accountsChanged = (accounts: string[]) => {
      const evm = evmAccounts(accounts)
      if (accounts.length === 0) void disconnected()
      else if (evm.length > 0) config.emitter.emit('change', { accounts: toAddresses(evm) })
    }

    const chainChanged = (chain: string | number) => {
      const chainId = evmChainId(chain)
      if (chainId !== undefined) config.emitter.emit('change', { chainId })
    }

    const currentChainId = (instance: Provider): number => {
      const accounts = instance.session?.namespaces.eip155?.accounts ?? []
      const fromDefault = Number(
        (instance as unknown as { rpcProviders: Record<string, { chainId?: number }> }).rpcProviders
          .eip155?.chainId,
      )
      if (Number.isSafeInteger(fromDefault) && fromDefault > 0) return fromDefault
      return Number(accounts[0]?.split(':')[1] ?? config.chains[0].id)
    }

    const listen = (instance: Provider) => {
      if (onDisplayUri) return
      onAccountsChanged = accountsChanged
      onChainChanged = chainChanged
      onDisconnect = () => void disconnected()
      onDisplayUri = (uri) => config.emitter.emit('message', { type: 'display_uri', data: uri })
      instance.on('accountsChanged', onAccountsChanged)
      instance.on('chainChanged', onChainChanged)
      instance.on('session_delete', onDisconnect)
      instance.on('disconnect', onDisconnect)
      instance.on('display_uri', onDisplayUri)
    }

    const unlisten = (instance: Provider) => {
      if (!onDisplayUri) return
      instance.removeListener('accountsChanged', onAccountsChanged)
      instance.removeListener('chainChanged', onChainChanged)
      instance.removeListener('session_delete', onDisconnect)
      instance.removeListener('disconnect', onDisconnect)
      instance.removeListener('display_uri', onDisplayUri)
      onDisplayUri = undefined
    }

    const disconnected = async () => {
      await config.storage?.removeItem(connectedKey)
      if (provider) unlisten(provider)
      config.emitter.emit('disconnect')
    }

    /** Loads and starts the universal provider once. */
    const start = (): Promise<Provider> => {
      if (provider) return Promise.resolve(provider)
      starting ??= import('@walletconnect/universal-provider').then(
        async ({ UniversalProvider }) => {
          const instance = await UniversalProvider.init({
            projectId: parameters.projectId,
            relayUrl: parameters.relayUrl,
            metadata: parameters.metadata,
            logger: 'error',
            // No usage reports to WalletConnect's servers, and no test call on each RPC URL.
            telemetryEnabled: false,
            disableProviderPing: true,
          })
          skipVerify(instance)
          provider = instance
          registerWalletConnectProvider(instance)
          return instance
        },
        (error: unknown) => {
          starting = undefined
          throw error
        },
      )
      return starting
    }

    return {
      id: 'walletConnect',
      name: 'WalletConnect',
      type: 'walletConnect',

      /**
       * wagmi asks every connector for its provider on reconnect: answer only
       * when a session may exist, so a visit that never used WalletConnect
       * never loads it nor opens the relay's socket.
       */
      async getProvider() {
        if (provider) return provider
        if (!(await config.storage?.getItem(connectedKey))) return undefined as unknown as Provider
        return start()
      },

      async connect({ chainId, isReconnecting } = {}) {
        const instance = await start()
        listen(instance)
        try {
          if (!instance.session || !isReconnecting) {
            if (instance.session) await disconnectWalletConnect()
            await instance.connect({
              optionalNamespaces: {
                eip155: {
                  chains: caipChains,
                  methods: [...walletConnectMethods],
                  events: [...walletConnectEvents],
                  rpcMap,
                },
                ...solanaNamespace(parameters.networks),
              },
            })
          }
          const session = instance.session
          if (!session) throw new NoSessionError()
          await config.storage?.setItem(connectedKey, true)
          const accounts = toAddresses(session.namespaces.eip155?.accounts ?? [])
          // A Solana wallet's session stays open for the Solana adapter; wagmi gets no connection.
          if (accounts.length === 0) throw new NoEvmAccountsError()
          let current = currentChainId(instance)
          if (chainId && chainId !== current) {
            await this.switchChain?.({ chainId }).catch(() => undefined)
            current = currentChainId(instance)
          }
          // biome-ignore lint/suspicious/noExplicitAny: wagmi types the result by `withCapabilities`.
          return { accounts, chainId: current } as any
        } catch (error) {
          if (userRejected(error)) throw new UserRejectedRequestError(error as Error)
          throw error
        }
      },

      async disconnect() {
        await config.storage?.removeItem(connectedKey)
        if (!provider) return
        unlisten(provider)
        await disconnectWalletConnect()
      },

      async getAccounts() {
        return toAddresses(provider?.session?.namespaces.eip155?.accounts ?? [])
      },

      async getChainId() {
        return provider ? currentChainId(provider) : config.chains[0].id
      },

      async isAuthorized() {
        if (!(await config.storage?.getItem(connectedKey))) return false
        try {
          const instance = await this.getProvider()
          return (instance.session?.namespaces.eip155?.accounts.length ?? 0) > 0
        } catch {
          return false
        }
      },

      async switchChain({ chainId }) {
        const instance = await start()
        const chain = config.chains.find((candidate) => candidate.id === chainId)
        if (!chain) throw new ChainNotConfiguredError(chainId)
        const from = currentChainId(instance)
        try {
          await instance.request(
            { method: 'wallet_switchEthereumChain', params: [{ chainId: numberToHex(chainId) }] },
            `eip155:${from}`,
          )
        } catch (error) {
          if (userRejected(error)) throw new UserRejectedRequestError(error as Error)
          throw error
        }
        instance.setDefaultChain(`eip155:${chainId}`)
        config.emitter.emit('change', { chainId })
        return chain
      },

      onAccountsChanged: accountsChanged,

      onChainChanged: chainChanged,

      onDisconnect: disconnected,

      onConnect() {},
    }
  })
}
