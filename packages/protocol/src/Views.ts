/** The modal's views (shared/SPEC.md section 2): one route each in the widget. */
export const views = [
  'Connect',
  'Account',
  'AllWallets',
  'ConnectingExternal',
  'ConnectingWalletConnect',
  'ConnectingWalletConnectBasic',
  'ConnectingFarcaster',
  'SIWXSignMessage',
  'ApproveTransaction',
  'SwitchNetwork',
  'SwitchActiveChain',
  'UnsupportedChain',
  'RegisterAccountName',
  'RegisterAccountNameSuccess',
  // Not named by the seed, which says only that the send flow and signing exist.
  'WalletSend',
  'WalletSendPreview',
  'SignMessage',
  // The embedded wallet's login steps, which the seed does not name as views.
  'EmailVerifyOtp',
  'EmailVerifyDevice',
  'ConnectingSocial',
] as const
export type View = (typeof views)[number]

export const isView = (value: unknown): value is View =>
  typeof value === 'string' && (views as readonly string[]).includes(value)

export const themes = ['light', 'dark', 'system'] as const
export type Theme = (typeof themes)[number]
export const isTheme = (value: unknown): value is Theme =>
  typeof value === 'string' && (themes as readonly string[]).includes(value)

export const connectionStatuses = [
  'disconnected',
  'connecting',
  'connected',
  'reconnecting',
] as const
export type ConnectionStatus = (typeof connectionStatuses)[number]
