/**
 * The modal's navigation: a history of views with navigate, back and reset,
 * and opening and closing the modal. `App.tsx` renders the current view
 * through a react-router memory router that follows this history.
 */
import { ErrorCode, RpcError } from '@porthole/protocol/Errors'
import type { View } from '@porthole/protocol/Views'
import { currentView, type Store, store, type WidgetState } from './store.js'

/** The views this build implements; the others join in later issues. */
export const implementedViews = ['Connect', 'AllWallets'] as const satisfies readonly View[]
export type ImplementedView = (typeof implementedViews)[number]

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

export const homeView: ImplementedView = 'Connect'

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
    /** Starts a new history at `view` (Connect by default). */
    reset(view: View = homeView): void {
      assertView(view)
      target.setState((state) => historyAt(state, view))
    },
    /** Opens the modal, on `view` when given (a new history), else where it is. */
    open(view?: View): void {
      if (view !== undefined) assertView(view)
      target.setState((state) => ({
        open: true,
        ...(view === undefined ? {} : historyAt(state, view)),
      }))
    },
    /**
     * Closes the modal (Escape, the backdrop, the Close button and the host's
     * `close()` all come here) and resets to Connect, so the next `open()`
     * only reveals an already rendered view.
     */
    close(): void {
      target.setState((state) => ({ open: false, ...historyAt(state, homeView) }))
    },
  }
}

export type Router = ReturnType<typeof createRouter>

export const router: Router = createRouter()
