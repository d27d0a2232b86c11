/**
 * The globals `loader.js` (the script tag) defines, for pages that use it
 * with TypeScript: `import type {} from '@porthole/loader/global'` once, or
 * `"types": ["@porthole/loader/global"]` in tsconfig.json.
 */
import type { Session, Wallet } from './index.js'

declare global {
  interface Window {
    /**
     * The wallet, once `loader.js` has run (then `porthole:ready` fires).
     * Before that, `undefined` or the queue stub of the README.
     */
    Wallet?: Wallet
  }
  interface WindowEventMap {
    /** `loader.js` has set `window.Wallet`; `detail` is the wallet. */
    'porthole:ready': CustomEvent<Wallet>
    /** A sign-in or a sign-out: the session, or `null`. */
    'porthole:session': CustomEvent<Session | null>
  }
}
