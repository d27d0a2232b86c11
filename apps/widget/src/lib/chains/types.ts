/**
 * What a chain namespace gives the widget: one `ChainAdapter`. Each namespace
 * is a folder beside this file (`evm/` for EIP-155; `solana/` and `bitcoin/`
 * go beside it) whose `index.ts` exports its adapter, with the namespace's
 * wallet libraries behind it. `index.ts` here loads each one lazily and
 * checks it against this type; an adapter does not import this file (its
 * folder would then depend on its parent's).
 *
 * Views that work for any namespace, and the host channel, use only this. A
 * view that exists for one namespace (Account's balances, WalletSend) may
 * import that folder's extras. Networks are CAIP-2 ids (`eip155:1`,
 * `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp`).
 */
import type { ChainNamespace } from '@porthole/chains/Networks'
import type { HostRequests } from '../host/channel.js'
import type { SendToken } from '../state/store.js'

/** A balance in the smallest unit of its currency or token. */
export type Balance = { value: bigint; decimals: number; symbol: string }

/** A token the API lists for the network, with the account's balance of it. */
export type TokenBalance = Balance & { address: string; name: string }

/** What SIWXSignMessage's Sign ends in: the modal closes, or the view stays. */
export type SignInOutcome = 'signed' | 'declined'

export type SendParameters = {
  token: SendToken
  /** In the token's smallest unit. */
  amount: bigint
  receiver: string
  caipNetworkId: string
}

export type ChainAdapter = HostRequests & {
  readonly namespace: ChainNamespace
  /** Settles once the adapter has started: its networks, wallets and any stored connection. */
  readonly ready: Promise<unknown>

  // Connectors.
  /** Connects the wallet of a Connect entry (its connector id), or makes it current again. */
  connect(connectorId: string): Promise<void>
  /** A WalletConnect pairing: `onUri` gets each URI; resolves once a wallet connects. */
  pairWalletConnect(onUri: (uri: string) => void): Promise<void>
  /** Abandons a connection attempt nobody finished. */
  cancelConnecting(): Promise<void>
  /** Connects the embedded wallet once the secure frame holds a logged-in one. */
  connectEmbedded(): Promise<void>

  // The account.
  getBalance(address: string, caipNetworkId: string): Promise<Balance>
  /** The balances of the tokens the API lists for the network (0-decimal tokens dropped). */
  getTokenBalances(address: string, caipNetworkId: string): Promise<TokenBalance[]>
  /** Asks the wallet to send; resolves with the transaction's id once it is sent. */
  send(parameters: SendParameters): Promise<string>
  /** Waits for a sent transaction: at most the seed's confirmation timeout. */
  waitForSend(id: string, caipNetworkId: string): Promise<'success' | 'reverted'>
  signMessage(message: string): Promise<string>
  /** Switches the connected wallet to another of the project's networks of this namespace. */
  switchNetwork(caipNetworkId: string): Promise<void>

  // Sign-in with X (SIWX, CAIP-122).
  signIn(): Promise<SignInOutcome>
  /** SIWXSignMessage's Cancel: disconnects when sign-in is required, else closes the modal. */
  cancelSignIn(): Promise<void>
  /** Whether the account is a contract (its sign-in needs the wallet's own check). */
  isSmartAccount(): Promise<boolean>
}
