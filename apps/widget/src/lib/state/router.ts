/**
 * The modal's navigation: a history of views with navigate, back and reset,
 * and opening and closing the modal. `App.tsx` renders the current view.
 */
import { ErrorCode, RpcError } from '@porthole/protocol/Errors'
import type { View } from '@porthole/protocol/Views'
import { currentView, type Store, store, type WidgetState } from './store.js'

/** The views this build implements; the others join in later issues. */
export const implementedViews = [
  'Connect',
  'AllWallets',
  'ConnectingExternal',
  'ConnectingWalletConnect',
  'ConnectingWalletConnectBasic',
  'Account',
  'SwitchNetwork',
  'SwitchActiveChain',
  'UnsupportedChain',
  'WalletSend',
  'WalletSendPreview',
  'SignMessage',
  'Receive',
  'Activity',
  'SIWXSignMessage',
  'ApproveTransaction',
  'EmailVerifyOtp',
  'EmailVerifyDevice',
  'ConnectingSocial',
  'ConnectingFarcaster',
  'UpdateEmailWallet',
  'UpdateEmailPrimaryOtp',
  'UpdateEmailSecondaryOtp',
] as const satisfies readonly View[]
export type ImplementedView = (typeof implementedViews)[number]

/**
 * Views the host may not open by name (`Wallet.open({ view })`): the email
 * change moves the account's strongest factor, so only the visitor starts it,
 * from Account (red team, issue 16).
 */
export const hostClosedViews: readonly View[] = [
  'UpdateEmailWallet',
  'UpdateEmailPrimaryOtp',
  'UpdateEmailSecondaryOtp',
]

export const isImplementedView = (view: View): view is ImplementedView =>
  (implementedViews as readonly View[]).includes(view)

/** The error for a view this build does not have (EIP-1193 4200, unsupported). */
export class UnsupportedViewError extends RpcError {
  override name = 'UnsupportedViewError'
  constructor(view: string) {
    super(
      ErrorCode.unsupportedMethod,
      `The view '${view}' is not available in this version of the widget. Available views: ${implementedViews.join(', ')}.`,
    )
  }
}

/** Where the modal opens and returns to: Account once a wallet is connected, else Connect. */
export const homeView = (state: WidgetState): ImplementedView =>
  state.connection.status === 'connected' ? 'Account' : 'Connect'

/**
 * Whether the user may close the modal: not while the wallet is on a network
 * the project does not offer, nor on the sign-in or approval views while
 * sign-in is required and no session exists (SPEC section 2).
 */
export function canClose(state: WidgetState): boolean {
  const view = currentView(state)
  if (view === 'UnsupportedChain') return false
  if (view === 'SIWXSignMessage' || view === 'ApproveTransaction')
    return !(state.siwx?.required && !state.session)
  return true
}

/** Whether the history is just a home view (Connect or Account), as the modal closes on. */
const atHome = (state: WidgetState) =>
  state.history.length === 1 && (state.history[0] === 'Connect' || state.history[0] === 'Account')

export const canGoBack = (state: WidgetState): boolean => state.history.length > 1

export function createRouter(target: Store<WidgetState> = store) {
  const assertView = (view: View) => {
    if (!isImplementedView(view)) throw new UnsupportedViewError(view)
  }
  const historyAt = (state: WidgetState, view: View) =>
    state.history.length === 1 && state.history[0] === view ? {} : { history: [view] }
  return {
    /** Pushes `view` on the history (a no-op when it is already the current view). */
    navigate(view: View): void {
      assertView(view)
      target.setState((state) =>
        currentView(state) === view ? {} : { history: [...state.history, view] },
      )
    },
    /** Returns to the previous view; does nothing at the root. */
    back(): void {
      target.setState((state) => (canGoBack(state) ? { history: state.history.slice(0, -1) } : {}))
    },
    /** Starts a new history at `view` (the home view by default). */
    reset(view?: View): void {
      if (view !== undefined) assertView(view)
      target.setState((state) => historyAt(state, view ?? homeView(state)))
    },
    /** Opens the modal, on `view` when given (a new history), else where it is. */
    open(view?: View): void {
      if (view !== undefined) assertView(view)
      target.setState((state) => ({
        open: true,
        ...(view === undefined
          ? atHome(state) && !state.open
            ? historyAt(state, homeView(state))
            : {}
          : historyAt(state, view)),
      }))
    },
    /**
     * Closes the modal (Escape, the backdrop, the Close button and the host's
     * `close()` all come here) and resets to Connect, so the next `open()`
     * only reveals an already rendered view.
     */
    close(): void {
      target.setState((state) =>
        canClose(state) ? { open: false, ...historyAt(state, homeView(state)) } : {},
      )
    },
    /** Closes the modal if it still shows one of `views` (a flow that ended, unless another took over). */
    closeFrom(...views: View[]): void {
      if (views.includes(currentView(target.getState()))) this.close()
    },
  }
}

export type Router = ReturnType<typeof createRouter>

export const router: Router = createRouter()
