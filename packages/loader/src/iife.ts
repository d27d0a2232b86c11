/**
 * The script-tag entry (`dist/loader.js`):
 *
 *   <script async src="https://WIDGET_ORIGIN/loader.js" data-project-id="PROJECT_ID"></script>
 *
 * Creates the wallet from the tag's `data-*` attributes, with the widget served
 * from the script's own origin, sets `window.Wallet` (replaying calls queued on
 * a stub there), then fires `porthole:ready` on `window`.
 */
import { type CreateWalletParameters, createWallet } from './createWallet.js'
import { replay } from './internal/queue.js'

// Only set while this script runs its top level (async or not).
const script = document.currentScript as HTMLScriptElement | null
const scope = window as { Wallet?: unknown }
const existing = scope.Wallet as { getState?: unknown } | undefined
const projectId = script?.dataset.projectId

// Loaded twice: keep the first wallet and its frame.
if (typeof existing?.getState !== 'function') {
  if (!script?.src || !projectId) {
    // biome-ignore lint/suspicious/noConsole: the site's developer must learn that the tag is incomplete.
    console.error('[Porthole] loader.js needs a data-project-id attribute.')
  } else {
    // data-theme, data-siwx, data-theme-accent, -radius, -font: the widget checks each and
    // falls back (the system theme; no sign-in, the default look, and an alert).
    // data-project-id is there too (checked above).
    const wallet = createWallet({
      ...(script.dataset as Omit<CreateWalletParameters, 'widgetUrl'>),
      widgetUrl: new URL(script.src).origin,
    })
    scope.Wallet = wallet
    replay(existing, wallet)
    dispatchEvent(new CustomEvent('porthole:ready', { detail: wallet }))
  }
}
