/**
 * The widget's entry. The handshake listener goes up first, at module top
 * level and before rendering: the loader posts its hello on the iframe's
 * `load` event. Then Connect renders and its data loads while the loader keeps
 * the iframe hidden, so `open()` only reveals it.
 */
import * as Handshake from '@porthole/protocol/Handshake'
import * as Host from '@porthole/protocol/Host'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App.js'
import { initialTheme, projectId } from './lib/env.js'
import { preloadImage, recommendedWalletsQuery, walletImageUrl } from './lib/explorer.js'
import { connectHost } from './lib/hostChannel.js'
import { runVerification } from './lib/hostVerification.js'
import { projectConfigQuery } from './lib/projectConfig.js'
import { queryClient } from './lib/queryClient.js'
import { store } from './lib/store.js'
import './index.css'

const handshake = Handshake.accept({ channel: Host.channel })

store.setState({
  projectId,
  theme: initialTheme,
  verification:
    window.parent === window ? 'no_host' : projectId === null ? 'missing_project' : 'pending',
})

void handshake.then(({ port, origin }) => {
  store.setState({ hostOrigin: origin })
  connectHost({ port, origin })
  void runVerification()
})

if (projectId !== null) {
  void queryClient.fetchQuery(recommendedWalletsQuery).then(
    (page) => {
      for (const wallet of page.data)
        if (wallet.image_id !== null) void preloadImage(walletImageUrl(wallet.image_id))
    },
    () => undefined,
  )
  void queryClient.prefetchQuery(projectConfigQuery)
}

const root = document.getElementById('root')
if (root)
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  )
