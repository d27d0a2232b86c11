import { QueryClientProvider } from '@tanstack/react-query'
import { type ComponentType, lazy, Suspense } from 'react'
import { Modal } from './components/Modal.js'
import { WalletRowsSkeleton } from './components/Skeleton.js'
import { useStore } from './hooks/useStore.js'
import { queryClient } from './lib/data/queryClient.js'
import { type ImplementedView, isImplementedView } from './lib/state/router.js'
import { currentView } from './lib/state/store.js'
import { Connect } from './routes/Connect.js'
import { evmViews, listViews } from './routes/preload.js'

/**
 * Only Connect is in the start-up JS. The views after it are lazy chunks:
 * the chain-agnostic ones (`listViews`) are fetched once Connect has painted
 * (`preloadListViews`), those needing wagmi and viem (lib/chains) on a sign
 * that a wallet is about to be chosen (`routes/preload.ts`).
 */
export const preloadListViews = (): Promise<unknown> => listViews()
export const preloadViews = (): Promise<unknown> => evmViews()

const lazyListView = (name: keyof Awaited<ReturnType<typeof listViews>>) =>
  lazy(() => listViews().then((views) => ({ default: views[name] })))
const lazyView = (name: keyof Awaited<ReturnType<typeof evmViews>>) =>
  lazy(() => evmViews().then((views) => ({ default: views[name] })))

/** Each view's component; the store's history (lib/state/router.ts) decides which one shows. */
const views: Record<ImplementedView, ComponentType> = {
  Connect,
  AllWallets: lazyListView('AllWallets'),
  ConnectingExternal: lazyListView('ConnectingExternal'),
  Receive: lazyListView('Receive'),
  Activity: lazyListView('Activity'),
  UpdateEmailWallet: lazyListView('UpdateEmailWallet'),
  UpdateEmailPrimaryOtp: lazyListView('UpdateEmailPrimaryOtp'),
  UpdateEmailSecondaryOtp: lazyListView('UpdateEmailSecondaryOtp'),
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

/** The store's current view (lib/state/router.ts keeps the history) inside the modal. */
export function App() {
  const view = useStore(currentView)
  // The router lets only implemented views in (`isImplementedView`).
  const View = isImplementedView(view) ? views[view] : null
  return (
    <QueryClientProvider client={queryClient}>
      <Modal>
        <Suspense key={view} fallback={<WalletRowsSkeleton rows={3} />}>
          {View ? <View /> : null}
        </Suspense>
      </Modal>
    </QueryClientProvider>
  )
}
