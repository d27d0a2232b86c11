import { QueryClientProvider } from '@tanstack/react-query'
import { type ComponentType, lazy, Suspense, useLayoutEffect } from 'react'
import { MemoryRouter, Route, Routes, useLocation, useNavigate } from 'react-router-dom'
import { Modal } from './components/Modal.js'
import { WalletRowsSkeleton } from './components/Skeleton.js'
import { useStore } from './hooks/useStore.js'
import { queryClient } from './lib/data/queryClient.js'
import type { ImplementedView } from './lib/state/router.js'
import { currentView, store } from './lib/state/store.js'
import { AllWallets } from './routes/AllWallets.js'
import { Connect } from './routes/Connect.js'
import { ConnectingExternal } from './routes/ConnectingExternal.js'

/**
 * The views that need wagmi and viem (lib/chains) are lazy chunks, so Connect
 * paints without them; `preloadViews` fetches them once the host is verified.
 */
const evmViews = () => import('./routes/evmViews.js')

export const preloadViews = (): Promise<unknown> => evmViews()

const lazyView = (name: keyof Awaited<ReturnType<typeof evmViews>>) =>
  lazy(() => evmViews().then((views) => ({ default: views[name] })))

/** One route per view; the store's history (lib/state/router.ts) decides which one shows. */
const views: Record<ImplementedView, ComponentType> = {
  Connect,
  AllWallets,
  ConnectingExternal,
  ConnectingWalletConnect: lazyView('ConnectingWalletConnect'),
  ConnectingWalletConnectBasic: lazyView('ConnectingWalletConnectBasic'),
  Account: lazyView('Account'),
  SwitchNetwork: lazyView('SwitchNetwork'),
  SwitchActiveChain: lazyView('SwitchActiveChain'),
  UnsupportedChain: lazyView('UnsupportedChain'),
  WalletSend: lazyView('WalletSend'),
  WalletSendPreview: lazyView('WalletSendPreview'),
  SignMessage: lazyView('SignMessage'),
  SIWXSignMessage: lazyView('SiwxSignMessage'),
  ApproveTransaction: lazyView('ApproveTransaction'),
  EmailVerifyOtp: lazyView('EmailVerifyOtp'),
  EmailVerifyDevice: lazyView('EmailVerifyDevice'),
  ConnectingSocial: lazyView('ConnectingSocial'),
  ConnectingFarcaster: lazyView('ConnectingFarcaster'),
}

const pathOf = (view: string) => `/${view}`

/** Keeps the memory router on the store's current view. */
function FollowHistory() {
  const view = useStore(currentView)
  const { pathname } = useLocation()
  const navigate = useNavigate()
  useLayoutEffect(() => {
    if (pathname !== pathOf(view)) void navigate(pathOf(view), { replace: true })
  }, [view, pathname, navigate])
  return null
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[pathOf(currentView(store.getState()))]}>
        <FollowHistory />
        <Routes>
          <Route element={<Modal />}>
            {Object.entries(views).map(([view, View]) => (
              <Route
                key={view}
                path={pathOf(view)}
                element={
                  <Suspense fallback={<WalletRowsSkeleton rows={3} />}>
                    <View />
                  </Suspense>
                }
              />
            ))}
          </Route>
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>
  )
}
