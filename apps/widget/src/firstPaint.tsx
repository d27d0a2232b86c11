/**
 * The first paint, rendered at build time (vite.config.ts `firstPaint`, in
 * Node): the app's own first render of Connect, closed and inert, with the
 * registry's first page that ships with the build. The built page carries it
 * in `#root`, hidden until its one inline script (runtimeConfig.mjs
 * `firstPaintScript`) has set its theme, so a cold frame paints the wallet
 * list as soon as its HTML arrives, before the app's JS. The app then renders over the same
 * elements (Preact reuses them), with the project's own answers, and takes
 * the host's `open`: until then nothing in it can be focused or clicked.
 */
import { WalletsPage } from '@porthole/protocol/Api'
import { renderToStringAsync } from 'preact-render-to-string'
import { App } from './App.js'
import { recommendedWalletsQuery } from './lib/data/explorer.js'
import { queryClient } from './lib/data/queryClient.js'

/** Connect's first render, as HTML, for `page` (the recommended wallets, as `GET /getWallets` answers). */
export async function renderFirstPaint(page: unknown): Promise<string> {
  const wallets = WalletsPage.parse(page)
  // Without logos: their URLs name the project, which only the frame's URL says.
  queryClient.setQueryData(recommendedWalletsQuery.queryKey, {
    ...wallets,
    data: wallets.data.map((wallet) => ({ ...wallet, image_id: null })),
  })
  try {
    return await renderToStringAsync(<App />)
  } finally {
    // Its garbage-collection timers would keep the build's process alive.
    queryClient.clear()
  }
}
