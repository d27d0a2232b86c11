/**
 * The deployment's settings and the project id from the iframe's URL. The API
 * and secure-frame URLs come from the served page itself (runtimeConfig.ts),
 * else the build: nothing the host sends can change where the widget calls.
 */
import { isTheme, type Theme } from '@porthole/protocol/Views'
import { z } from '@porthole/protocol/zod'
import {
  defaultWalletConnectProjectId,
  parseUrlSetting,
  parseWebSocketUrlSetting,
} from './defaults.js'
import { runtimeConfig } from './runtimeConfig.js'
import { readProjectId } from './startup.js'
import { parseThemeVariables } from './themeVariables.js'

export { readProjectId }

// The served page's settings (runtimeConfig.ts) first: one build serves any
// deployment. Else the build's (vite.config.ts always sets them, to the dev
// origins when unset).
export const apiUrl = parseUrlSetting(
  'VITE_API_URL',
  runtimeConfig.apiUrl ?? import.meta.env.VITE_API_URL,
)

export const secureFrameUrl = parseUrlSetting(
  'VITE_SECURE_FRAME_URL',
  runtimeConfig.secureFrameUrl ?? import.meta.env.VITE_SECURE_FRAME_URL,
)

export const secureFrameOrigin = new URL(secureFrameUrl).origin

/** The WalletConnect relay and Cloud project id. */
export const walletConnectRelayUrl = parseWebSocketUrlSetting(
  'VITE_WALLETCONNECT_RELAY_URL',
  runtimeConfig.walletConnectRelayUrl ?? import.meta.env.VITE_WALLETCONNECT_RELAY_URL,
)
export const walletConnectProjectId =
  runtimeConfig.walletConnectProjectId?.trim() ||
  import.meta.env.VITE_WALLETCONNECT_PROJECT_ID?.trim() ||
  defaultWalletConnectProjectId

export const projectId: string | null =
  typeof location === 'undefined' ? null : readProjectId(location.search)

/** The theme the site configured (`theme` query parameter, set by the loader); `system` otherwise. */
export function readTheme(search: string): Theme {
  const value = new URLSearchParams(search).get('theme')
  return isTheme(value) ? value : 'system'
}

export const initialTheme: Theme =
  typeof location === 'undefined' ? 'system' : readTheme(location.search)

/** The site's accent, radius and font (`themeAccent`, `themeRadius`, `themeFont`), and what was refused. */
export const themeSetting = parseThemeVariables(
  typeof location === 'undefined' ? '' : location.search,
)

/**
 * The site's sign-in settings (`siwx` query parameter, set by the loader from
 * `createWallet({ siwx })` or the tag's `data-siwx`). `null` when sign-in is
 * off; `invalid` when the value does not parse, which turns sign-in off and
 * raises an alert for the site's developer.
 */
export const SiwxConfig = z.strictObject({
  required: z.optional(z.boolean()),
  // As CAIP-122 and the API allow: one line of printable ASCII, and ASCII URIs.
  statement: z.optional(
    z.string().check(z.regex(/^[\x20-\x7e]{1,1024}$/, 'one line of printable ASCII')),
  ),
  resources: z.optional(
    z
      .array(z.url().check(z.maxLength(512), z.regex(/^[\x21-\x7e]+$/, 'an ASCII URI')))
      .check(z.maxLength(16)),
  ),
  /** Seconds a session lasts. */
  expirationTime: z.optional(z.number().check(z.int(), z.positive(), z.maximum(31_536_000))),
})
export type SiwxConfig = z.infer<typeof SiwxConfig>

export function readSiwx(search: string): SiwxConfig | null | 'invalid' {
  const value = new URLSearchParams(search).get('siwx')
  if (value === null || value === '') return null
  try {
    return SiwxConfig.parse(JSON.parse(value))
  } catch {
    return 'invalid'
  }
}

export const siwxSetting: SiwxConfig | null | 'invalid' =
  typeof location === 'undefined' ? null : readSiwx(location.search)
