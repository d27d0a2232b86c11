/**
 * The widget's state, in one small external store (read in React with
 * `useSyncExternalStore`, see `hooks/useStore.ts`). Everything the host can
 * see is derived from it (`lib/host/channel.ts`).
 */
import type { Alert, AlertCode, HostWallet, Session, StandardWallet } from '@porthole/protocol/Host'
import type { ConnectionStatus, Theme, View } from '@porthole/protocol/Views'
import type { ThemeVariables } from '../themeVariables.js'
import type { Toast } from './toast.js'

export type Store<state> = {
  getState(): state
  setState(update: Partial<state> | ((state: state) => Partial<state>)): void
  subscribe(listener: () => void): () => void
}

export function createStore<state extends object>(initial: state): Store<state> {
  let current = initial
  const listeners = new Set<() => void>()
  return {
    getState: () => current,
    setState(update) {
      const patch = typeof update === 'function' ? update(current) : update
      const next = { ...current, ...patch }
      if (
        Object.keys(patch).every((key) =>
          Object.is(next[key as keyof state], current[key as keyof state]),
        )
      )
        return
      current = next
      for (const listener of [...listeners]) listener()
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}

/**
 * Whether the host page may use wallet features (SECURITY.md 4 and 5).
 * `pending` until the allowed origins are known; every other value but
 * `verified` refuses wallet features.
 */
export type Verification =
  | 'pending'
  | 'verified'
  | 'unverified'
  | 'rate_limited'
  | 'server_error'
  /** The API does not know the project id (403 `unknown_project`). */
  | 'unknown_project'
  | 'missing_project'
  | 'no_host'

export type SecureFrameStatus = 'idle' | 'loading' | 'ready' | 'failed'

/** An alert raised by the widget: shown in the modal and sent to the host as an `alert` event. */
export type WidgetAlert = Alert & { code: AlertCode; id: number }

/** The send flow's state (SPEC section 3); its rules are in `send.ts`. */
export type SendToken =
  | { kind: 'native'; symbol: string; decimals: number }
  | { kind: 'token'; address: string; symbol: string; decimals: number }

export type SendState = {
  token: SendToken | null
  sendTokenAmount: string
  receiverAddress: string
  /**
   * The receiver's name and image where the network has a name service (ENS),
   * for `receiverAddress` as it is: cleared when it changes, then set once
   * resolved (`hooks/useReceiverProfile.ts`). `null`: none (yet).
   */
  receiverProfileName: string | null
  /** A data: image URI (the widget's CSP shows no other from a name). */
  receiverProfileImageUrl: string | null
  loading: boolean
  /** When the token balances last failed (a retry waits 30 s after it). */
  lastRetry: number | null
}

export const initialSendState: SendState = {
  token: null,
  sendTokenAmount: '',
  receiverAddress: '',
  receiverProfileName: null,
  receiverProfileImageUrl: null,
  loading: false,
  lastRetry: null,
}

/** The namespaces a wallet connects with (each has a chain adapter in `lib/chains`). */
export type ConnectionNamespace = 'eip155' | 'solana'

/**
 * The connection as its chain adapter reports it (`lib/chains/evm/connection.ts`
 * mirrors wagmi's, `lib/chains/solana/connection.ts` its own) so the entry
 * chunk can render and report it without loading wallet libraries.
 */
export type Connection = {
  status: ConnectionStatus
  /** The adapter that holds the connection (`eip155` while none does). */
  namespace: ConnectionNamespace
  address: string | null
  /** The CAIP-2 reference: the EVM chain id, or a Solana network's genesis hash prefix. */
  chainId: number | string | null
  /** The adapter's connector id: an EIP-6963 rdns for a host wallet, `walletConnect`, `standard:<name>`. */
  connectorId: string | null
  connectorName: string | null
}

export const disconnected: Connection & { chainId: null } = {
  status: 'disconnected',
  namespace: 'eip155',
  address: null,
  chainId: null,
  connectorId: null,
  connectorName: null,
}

/** The connection's network (CAIP-2), or null. */
export const caipNetworkIdOf = (connection: Connection): string | null =>
  connection.chainId === null ? null : `${connection.namespace}:${connection.chainId}`

/** Where a Connecting view's attempt stands. */
export type ConnectingStatus = 'waiting' | 'rejected' | 'error'

/** The wallet a Connecting view works on. */
export type ConnectingWallet = {
  /** wagmi's connector id for a host wallet; `null` for WalletConnect. */
  connectorId: string | null
  name: string
  /** A data URI (host wallet) or an explorer image id. */
  icon: string | null
  imageId: string | null
  /** Explorer links, for ConnectingWalletConnectBasic. */
  links: { mobile: string | null; desktop: string | null; webapp: string | null }
}

export type WidgetState = {
  open: boolean
  /** The view history: the current view is the last one. Never empty. */
  history: readonly View[]
  theme: Theme
  /** The site's accent, radius and font (lib/themeVariables.ts), already checked. */
  themeVariables: ThemeVariables
  /** The host page's origin, from the browser (`event.origin` of the handshake). */
  hostOrigin: string | null
  projectId: string | null
  verification: Verification
  /** For `unverified`: the origin not allowed, the host's or an ancestor's (nested framing). */
  refusedOrigin: string | null
  secureFrame: SecureFrameStatus
  /**
   * Whether an embedded wallet is in play, so the secure frame is made (once
   * the host is verified): the email field used, a social login chosen, or an
   * embedded session of this host's to restore (`lib/secure/frame.ts`).
   */
  secureFrameWanted: boolean
  alerts: readonly WidgetAlert[]
  /** The host page's own wallets, from the loader's bridge. */
  hostWallets: readonly HostWallet[]
  /** The host page's Solana wallets (Wallet Standard), from the loader's bridge. */
  standardWallets: readonly StandardWallet[]
  /** Whether the lazily loaded EVM layer (wagmi) is up. */
  evm: 'idle' | 'loading' | 'ready' | 'failed'
  /** Whether the lazily loaded Solana layer (web3.js) is up. */
  solana: 'idle' | 'loading' | 'ready' | 'failed'
  /** The namespace the host asked to connect with last (`eth_requestAccounts`, `standard:connect`). */
  requestedNamespace: ConnectionNamespace | null
  connection: Connection
  connecting: ConnectingWallet | null
  /** Connector ids of the wallets used last on this host, most recent first (`recent.ts`). */
  recent: readonly string[]
  toast: Toast | null
  send: SendState
  /** The network of another namespace SwitchActiveChain offers (CAIP-2). */
  switchTarget: string | null
  /** The site's sign-in settings; `null` when sign-in is off. */
  siwx: {
    required: boolean
    statement?: string | undefined
    resources?: string[] | undefined
    expirationTime?: number | undefined
  } | null
  /** The sign-in session of the connected account (SIWX), as the host sees it. */
  session: Session | null
  /** The embedded wallet's request waiting for approval in the secure frame (ApproveTransaction). */
  approval: { method: string } | null
  /** The email of an embedded-wallet login in progress (EmailVerifyOtp, EmailVerifyDevice). */
  loginEmail: string | null
  /** An email change in progress: the current address (if any) and the new one (UpdateEmail*). */
  emailUpdate: { current: string | null; next: string } | null
}

export const initialState: WidgetState = {
  open: false,
  history: ['Connect'],
  theme: 'system',
  themeVariables: {},
  hostOrigin: null,
  projectId: null,
  verification: 'pending',
  refusedOrigin: null,
  secureFrame: 'idle',
  secureFrameWanted: false,
  alerts: [],
  hostWallets: [],
  standardWallets: [],
  evm: 'idle',
  solana: 'idle',
  requestedNamespace: null,
  connection: disconnected,
  connecting: null,
  recent: [],
  toast: null,
  send: initialSendState,
  switchTarget: null,
  siwx: null,
  session: null,
  approval: null,
  loginEmail: null,
  emailUpdate: null,
}

export const store: Store<WidgetState> = createStore(initialState)

export const currentView = (state: WidgetState): View => state.history.at(-1) ?? 'Connect'

let nextAlertId = 1
/** The `alert` event's bound on a message (Host.Alert). */
const maxAlertLength = 512

/** Raises an alert, unless one with the same code is already showing. */
export function raiseAlert(
  alert: Alert & { code: AlertCode },
  target: Store<WidgetState> = store,
): void {
  const message =
    alert.message.length <= maxAlertLength
      ? alert.message
      : `${alert.message.slice(0, maxAlertLength - 1)}…`
  target.setState((state) =>
    state.alerts.some((shown) => shown.code === alert.code)
      ? {}
      : { alerts: [...state.alerts, { code: alert.code, message, id: nextAlertId++ }] },
  )
}

export function dismissAlert(id: number, target: Store<WidgetState> = store): void {
  target.setState((state) => ({ alerts: state.alerts.filter((alert) => alert.id !== id) }))
}
