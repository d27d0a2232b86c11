/**
 * The widget as a view's component test renders it: the real App (modal,
 * header, router, query client and store), open on the view under test, on a
 * host whose origin is verified. The tests change only what a host or the
 * API would: the store's host-facing state and the answers to `fetch`.
 */
import { afterEach, vi } from 'vitest'
import { cleanup, render } from 'vitest-browser-react'
import { App } from '../src/App.js'
import '../src/index.css'
import { queryClient } from '../src/lib/data/queryClient.js'
import { initialState, store, type WidgetState } from '../src/lib/state/store.js'

export const hostOrigin = 'http://127.0.0.1:5170'

/**
 * What a chain layer and the host channel mirror into the store, once the
 * layer is loaded: it stays between tests, as wagmi's (or the Solana
 * adapter's) connection lives as long as the page (the test file) and tells
 * the store only of changes.
 */
const mirrored = (): Partial<WidgetState> => {
  const { connection, hostWallets, standardWallets, evm, solana } = store.getState()
  return {
    ...(evm === 'ready' || solana === 'ready' ? { connection, hostWallets, standardWallets } : {}),
    ...(evm === 'ready' ? { evm } : {}),
    ...(solana === 'ready' ? { solana } : {}),
  }
}

/** Renders the widget, open on `history`'s last view (Connect by default), as `main.tsx` does
 * (without StrictMode's second mount, as in a production build). */
export function renderWidget(patch: Partial<WidgetState> = {}) {
  store.setState({
    ...initialState,
    ...mirrored(),
    open: true,
    verification: 'verified',
    hostOrigin,
    ...patch,
  })
  return render(<App />)
}

afterEach(async () => {
  await cleanup()
  queryClient.clear()
  store.setState({ ...initialState, ...mirrored() })
  vi.unstubAllGlobals()
})

/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true
