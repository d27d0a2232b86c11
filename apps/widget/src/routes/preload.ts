/**
 * The lazy view chunks (see App.tsx) and when they load. The chain-agnostic
 * views (`listViews`) follow Connect's first paint; the views needing wagmi
 * and viem (`evmViews`, which bring the EVM layer) wait for a sign that a
 * wallet is about to be chosen (`warmUp`), or a stored connection.
 */
export const listViews = () => import('./listViews.js')
export const evmViews = () => import('./evmViews.js')

let warm = false

/** The pointer over the wallet list, a key in it, a wallet chosen: the EVM layer and its views start loading. */
export function warmUp(): void {
  if (warm) return
  warm = true
  evmViews().catch(() => {
    warm = false
  })
}
