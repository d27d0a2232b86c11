/** The state `getState()` returns before the widget has said anything (frozen). */
export { initialState } from '@porthole/protocol/HostGuards'
export type { Session } from '@porthole/protocol/Views'
export type {
  CreateWalletParameters,
  OpenOptions,
  SiwxConfig,
  State,
  Theme,
  View,
  Wallet,
} from './createWallet.js'
export { createWallet } from './createWallet.js'
export type { ProviderDetail, ProviderInfo } from './internal/eip6963.js'
export type {
  Provider,
  ProviderEvents,
  ProviderRpcError,
  RequestArguments,
} from './internal/provider.js'
