/**
 * The widget's entry. The handshake listener is up before rendering (the
 * prefetch script started it, else it goes up first thing here) and tells the
 * loader (`ready`), which posts its hello at once. Then Connect renders, with
 * its data when the prefetch script has it, while the loader keeps the iframe
 * hidden, so `open()` only reveals it.
 */
import type { WalletsPage } from '@porthole/protocol/Api'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App, preloadListViews, preloadViews } from './App.js'
import { isChainLoaded, loadChain, namespaceOfRequest } from './lib/chains/index.js'
import { reportError, trackStore } from './lib/data/analytics.js'
import {
  arrivedRecommendedWallets,
  preloadImage,
  recommendedWalletsQuery,
  walletImageUrl,
} from './lib/data/explorer.js'
import { queryClient } from './lib/data/queryClient.js'
import { hasStoredEvmConnection, readRecent, solanaConnectionKey } from './lib/data/recent.js'
import { storage } from './lib/data/storage.js'
import { initialTheme, projectId, siwxSetting, themeSetting } from './lib/env.js'
import { connectHost } from './lib/host/channel.js'
import { hostHandshake } from './lib/host/handshake.js'
import { arrivedProjectConfig, projectConfigQuery } from './lib/host/projectConfig.js'
import { prefetchAllowedOrigins, runVerification } from './lib/host/verification.js'
import { hasEmbeddedSession } from './lib/secure/session.js'
import { earlyAnswers } from './lib/startup.js'
import { raiseAlert, store } from './lib/state/store.js'
import './index.css'

// A ready to the parent, whatever its origin: the loader starts the handshake
// at once, not at the frame's `load`, which waits for every image and chunk.
// Usually the prefetch script has started it already (lib/host/handshake.ts).
const handshake = hostHandshake()

store.setState({
  projectId,
  theme: initialTheme,
  themeVariables: themeSetting.variables,
  siwx:
    siwxSetting === null || siwxSetting === 'invalid'
      ? null
      : { ...siwxSetting, required: siwxSetting.required ?? false },
  verification:
    window.parent === window ? 'no_host' : projectId === null ? 'missing_project' : 'pending',
})

if (siwxSetting === 'invalid')
  raiseAlert({
    code: 'INVALID_CONFIG',
    message:
      'The siwx setting is not valid JSON of { required?: boolean, statement?: string (one line), resources?: URL[], expirationTime?: seconds }: sign-in is off.',
  })

if (themeSetting.refused.length > 0)
  raiseAlert({
    code: 'INVALID_CONFIG',
    message: `Ignored, not valid: ${themeSetting.refused.join('; ')}. The default look stays for those.`,
  })

// The site owner's events (when the project's analytics are on), and the
// widget's own uncaught errors as error reports (5 a minute at most).
trackStore()
addEventListener(
  'error',
  (event) => void reportError('UNCAUGHT_ERROR', event.error ?? event.message),
)
addEventListener(
  'unhandledrejection',
  (event) => void reportError('UNHANDLED_REJECTION', event.reason),
)

void handshake.then(({ port, origin }) => {
  store.setState({
    hostOrigin: origin,
    recent: readRecent(origin),
    // An embedded session to restore: the secure frame is made at once.
    secureFrameWanted: hasEmbeddedSession(origin),
  })
  connectHost({
    port,
    origin,
    chain: (method) => loadChain(namespaceOfRequest(method)),
    chainLoaded: () => isChainLoaded(),
  })
  void runVerification()
})

// Nothing chain-specific loads before it is needed: once the host is
// verified, a stored connection's layer loads to reconnect it (with the views);
// otherwise a wallet choice (`warmUp`) or a host request loads it.
const stopWaiting = store.subscribe(() => {
  if (store.getState().verification !== 'verified') return
  stopWaiting()
  const { hostOrigin } = store.getState()
  if (!hostOrigin) return
  const evm = hasStoredEvmConnection(hostOrigin)
  const solana = storage.getItem(solanaConnectionKey(hostOrigin)) !== null
  if (evm) void loadChain().catch(() => undefined)
  if (solana) void loadChain('solana').catch(() => undefined)
  if (evm || solana) void preloadViews().catch(() => undefined)
})

/** Connect's wallets and the config: from the prefetch script's answers when they are in, else fetched. */
function loadConnectData(projectId: string) {
  const preloadImages = (page: WalletsPage | undefined) => {
    for (const wallet of page?.data ?? [])
      if (wallet.image_id !== null) void preloadImage(walletImageUrl(wallet.image_id))
  }
  const wallets = arrivedRecommendedWallets()
  if (wallets) queryClient.setQueryData(recommendedWalletsQuery.queryKey, wallets)
  // Kept answers paint at once; this fetch revalidates them (staleTime 0).
  else
    void queryClient
      .fetchQuery({ ...recommendedWalletsQuery, staleTime: 0 })
      .then(preloadImages, () => undefined)
  preloadImages(queryClient.getQueryData(recommendedWalletsQuery.queryKey))
  const config = arrivedProjectConfig()
  if (config) queryClient.setQueryData(projectConfigQuery.queryKey, config)
  else void queryClient.prefetchQuery({ ...projectConfigQuery, staleTime: 0 })
}

/**
 * The first render waits for the prefetch script's answers (most have
 * arrived while this JS loaded: their promises only need the main thread),
 * for `firstRenderWait` ms at most. Then Connect's list is rendered before
 * the host's `open` arrives, and opening only reveals it.
 */
const firstRenderWait = 100

// The allowed origins are read at once (checked against the host once the
// handshake gives its origin), beside the wallets and the config.
if (projectId !== null) prefetchAllowedOrigins(projectId)
void earlyAnswers(firstRenderWait).then(() => {
  if (projectId !== null) loadConnectData(projectId)
  const root = document.getElementById('root')
  if (root) {
    // Over the built page's first paint (src/firstPaint.tsx), reusing its
    // elements; shown here when its inline script left it hidden (a site's
    // own look), in the same task: nothing paints in between.
    createRoot(root).render(
      <StrictMode>
        <App />
      </StrictMode>,
    )
    root.hidden = false
  }
  // After Connect's first paint: the views a wallet choice leads to.
  requestAnimationFrame(() => setTimeout(() => void preloadListViews().catch(() => undefined)))
})
