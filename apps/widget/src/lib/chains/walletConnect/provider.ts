/**
 * The widget's one WalletConnect provider, shared by the namespaces its
 * session may hold. `evm/walletConnect.ts` (wagmi's connector) starts the
 * provider and registers it here; `solana/walletConnect.ts` reads the
 * session's Solana accounts and sends requests through the same instance.
 * This folder imports neither namespace folder, so neither depends on the
 * other, and `../index.ts` does not import it.
 */
import type UniversalProvider from '@walletconnect/universal-provider'

export type WalletConnectProvider = InstanceType<typeof UniversalProvider>

/** The Solana methods a pairing proposes (WalletConnect's Solana RPC), as the contract's 2 names them. */
export const solanaWalletConnectMethods = [
  'solana_signMessage',
  'solana_signTransaction',
  'solana_signAndSendTransaction',
] as const

/**
 * The proposal's optional `solana` namespace: the project's Solana networks
 * (CAIP-2 `solana:<genesis prefix>`), in its order. None when it offers none.
 */
export function solanaNamespace(
  networks: readonly string[],
): Record<string, { chains: string[]; methods: string[]; events: string[] }> {
  const chains = networks.filter((network) => network.startsWith('solana:'))
  if (chains.length === 0) return {}
  return { solana: { chains, methods: [...solanaWalletConnectMethods], events: [] } }
}

/** The provider's events after which its session may have changed. */
const sessionEvents = [
  'connect',
  'session_update',
  'session_delete',
  'disconnect',
  'accountsChanged',
  'chainChanged',
] as const

let provider: WalletConnectProvider | undefined
const listeners = new Set<() => void>()

const notify = () => {
  for (const listener of listeners) listener()
}

/** Called by the connector once its provider has started (a second call with it does nothing). */
export function registerWalletConnectProvider(instance: WalletConnectProvider): void {
  if (provider === instance) return
  provider = instance
  for (const event of sessionEvents) instance.on(event, notify)
  notify()
}

/** The started provider, if a pairing started or a stored session was restored. */
export const walletConnectProvider = (): WalletConnectProvider | undefined => provider

/**
 * Ends the session from either namespace's side. The provider itself emits
 * nothing when the dapp disconnects, so its 'disconnect' is emitted here: the
 * other namespace's connection (wagmi's, a Solana one) ends with it.
 */
export async function disconnectWalletConnect(): Promise<void> {
  const instance = provider
  if (!instance?.session) return
  await instance.disconnect().catch(() => undefined)
  instance.events.emit('disconnect', { code: 6000, message: 'User disconnected.' })
}

/** Calls `listener` whenever the session may have changed; returns the unsubscribe. */
export function onWalletConnectSession(listener: () => void): () => void {
  listeners.add(listener)
  return () => {
    listeners.delete(listener)
  }
}
