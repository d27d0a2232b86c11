/**
 * The widget's entry. The handshake listener goes up first, at module top
 * level and before rendering: the loader posts its hello on the iframe's
 * `load` event. Then Connect renders and its data loads while the loader keeps
 * the iframe hidden, so `open()` only reveals it.
 */
import type { WalletsPage } from '@porthole/protocol/Api'
import * as Handshake from '@porthole/protocol/Handshake'
import * as Host from '@porthole/protocol/Host'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App, preloadListViews, preloadViews } from './App.js'
import { isChainLoaded, loadChain, namespaceOfRequest } from './lib/chains/index.js'
import { preloadImage, recommendedWalletsQuery, walletImageUrl } from './lib/data/explorer.js'
import { queryClient } from './lib/data/queryClient.js'
import { hasStoredEvmConnection, readRecent, solanaConnectionKey } from './lib/data/recent.js'
import { storage } from './lib/data/storage.js'
import { initialTheme, projectId, siwxSetting } from './lib/env.js'
import { connectHost } from './lib/host/channel.js'
import { projectConfigQuery } from './lib/host/projectConfig.js'
import { prefetchAllowedOrigins, runVerification } from './lib/host/verification.js'
import { hasEmbeddedSession } from './lib/secure/session.js'
import { raiseAlert, store } from './lib/state/store.js'
import './index.css'

const handshake = Handshake.accept({ channel: Host.channel })

store.setState({
  projectId,
  theme: initialTheme,
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

// What Connect needs, all at once: the allowed origins (checked against the
// host once the handshake gives its origin), the wallets and the config.
if (projectId !== null) {
  prefetchAllowedOrigins(projectId)
  const preloadImages = (page: WalletsPage | undefined) => {
    for (const wallet of page?.data ?? [])
      if (wallet.image_id !== null) void preloadImage(walletImageUrl(wallet.image_id))
  }
  // Kept answers paint at once; these fetches revalidate them (staleTime 0).
  preloadImages(queryClient.getQueryData(recommendedWalletsQuery.queryKey))
  void queryClient
    .fetchQuery({ ...recommendedWalletsQuery, staleTime: 0 })
    .then(preloadImages, () => undefined)
  void queryClient.prefetchQuery({ ...projectConfigQuery, staleTime: 0 })
}

const root = document.getElementById('root')
if (root)
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  )
// After Connect's first paint: the views a wallet choice leads to.
requestAnimationFrame(() => setTimeout(() => void preloadListViews().catch(() => undefined)))
