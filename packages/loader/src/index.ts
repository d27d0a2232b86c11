export type {
  CreateWalletParameters,
  OpenOptions,
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
