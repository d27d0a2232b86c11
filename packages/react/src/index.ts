export {
  ConnectButton,
  type ConnectButtonProps,
  defaultNetworkName,
} from './ConnectButton.js'
export { type UseWalletResult, useWallet } from './useWallet.js'
