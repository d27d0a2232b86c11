/**
 * The first script's whole part of the Wallet Standard, kept tiny: it loads
 * the Solana bridge (`loader-solana.js`) at the first sign of a Standard
 * wallet or of an app that looks for one, and nothing else. Wallets
 * registered before it ran answer its `wallet-standard:app-ready` (calling
 * `detail.register`), apps listening already answer its
 * `wallet-standard:register-wallet` (calling `detail`), later ones dispatch
 * either event. The bridge, once loaded, dispatches both again: the
 * standard's wallets and apps answer every time, so it misses none.
 */
const events = ['wallet-standard:register-wallet', 'wallet-standard:app-ready']

/** Calls `load` at each sign (it loads once); returns the function that stops listening. */
export function watchWalletStandard(load: () => unknown): () => void {
  const sign = () => void load()
  // As an app's `{ register }` too.
  sign.register = sign
  for (const type of events) {
    // Before listening, so its own event is not a sign.
    dispatchEvent(new CustomEvent(type, { detail: sign }))
    addEventListener(type, sign)
  }
  return () => {
    for (const type of events) removeEventListener(type, sign)
  }
}
