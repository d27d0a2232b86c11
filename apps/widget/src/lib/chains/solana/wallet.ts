/**
 * What the Solana adapter needs of a connected wallet, whatever it is (a
 * Wallet Standard wallet of the host page, the embedded wallet, a
 * WalletConnect session). Bytes are raw; signatures of sends are base58.
 */
export type SendOptions = {
  preflightCommitment?: string | undefined
  skipPreflight?: boolean | undefined
  maxRetries?: number | undefined
  minContextSlot?: number | undefined
}

export type SolanaWallet = {
  /** The connector id: `standard:<name>`, the embedded wallet's, WalletConnect's. */
  readonly id: string
  readonly name: string
  /** The Solana networks (CAIP-2) the wallet can use, in its order; empty when it does not say. */
  networks(): readonly string[]
  /** Connects (silently: only if the site is authorised already); the account's address, or null. */
  connect(silent: boolean): Promise<string | null>
  disconnect(): Promise<void>
  /** Makes `caipNetworkId` the wallet's network, where a wallet has one (the embedded wallet). */
  switchNetwork?(caipNetworkId: string): Promise<void>
  signMessage(address: string, message: Uint8Array, caipNetworkId: string): Promise<Uint8Array>
  signTransaction(
    address: string,
    transaction: Uint8Array,
    caipNetworkId: string,
  ): Promise<Uint8Array>
  /** Signs and sends; the signature (base58). */
  signAndSendTransaction(
    address: string,
    transaction: Uint8Array,
    caipNetworkId: string,
    options?: SendOptions,
  ): Promise<string>
}
