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
  'Receive',
  // The account's transaction history (the seed's transaction list, from Account).
  'Activity',
  // The embedded wallet's login steps, which the seed does not name as views.
  'EmailVerifyOtp',
  'EmailVerifyDevice',
  'ConnectingSocial',
  // Changing an email wallet's address (the seed's update-email flow).
  'UpdateEmailWallet',
  'UpdateEmailPrimaryOtp',
  'UpdateEmailSecondaryOtp',
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

/** A sign-in session as the host sees it (`State['session']`). */
export type Session = {
  data: Record<string, unknown>
  message: string
  signature: string
  cacao?: unknown
}

/**
 * What the widget tells the host of the modal and the connection (the
 * `state` event). Written out here, beside no schema, so the loader's
 * published types need no zod; Host.ts's schema is checked against it.
 */
export type State = {
  open: boolean
  view: View
  status: ConnectionStatus
  /** CAIP-10: `eip155:1:0x…` or `solana:…:…`. */
  caipAddress: string | null
  address: string | null
  /** CAIP-2, e.g. `eip155:1`. */
  chainId: string | null
  /** The connector's id, e.g. an EIP-6963 rdns. */
  connector: string | null
  session: Session | null
}
