/**
 * The secure frame's Content-Security-Policy (SECURITY.md 4, 5 and 14). The
 * frame may be framed only by the widget under a host on the project's allowed
 * origins: `frame-ancestors` checks every ancestor, the top-level host
 * included, so it names the widget and each allowed host. Entries from the API
 * are re-validated before they reach the header, so no value can inject a
 * directive or widen the policy.
 */
import { devDefaultSources } from '@porthole/protocol/Origin'
import { ConfigError } from '../src/lib/errors.js'

/** The policy of every response that must never render in a frame: error pages and non-HTML files. */
export const deniedCsp =
  "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

/** Longest entry accepted; real origins are far shorter. */
export const maxEntryLength = 300

/** Most allowed origins put in one header. */
export const maxEntries = 100

const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
const exactSource = new RegExp(`^(https?)://(${label}(?:\\.${label})*)(?::(\\d{1,5}|\\*))?$`)
// A wildcard needs a domain of two labels or more (`*.com` never), or is `*.localhost`.
const wildcardSource = new RegExp(
  `^(https?)://\\*\\.(localhost|${label}(?:\\.${label})+)(?::(\\d{1,5}|\\*))?$`,
)

export type ToSourceOptions = {
  /** Allow a `*` port (the dev defaults use it; the API's patterns never do). */
  anyPort?: boolean | undefined
  /** Allow a `*.domain` host; off for the widget and API origins. */
  wildcard?: boolean | undefined
}

/**
 * An allowed-origin entry as a CSP source expression, lower-cased; `undefined`
 * unless it is exactly `http(s)://host[:port]` or `http(s)://*.domain[:port]`
 * (a wildcard needs two labels or more after `*.`, or `*.localhost`). Anything else (a path, a
 * quote, a semicolon, white space, a keyword such as `'self'` or `*`) is dropped.
 */
export function toSource(entry: unknown, options: ToSourceOptions = {}): string | undefined {
  const { anyPort = false, wildcard = true } = options
  if (typeof entry !== 'string' || entry.length === 0 || entry.length > maxEntryLength) return
  const source = entry.toLowerCase()
  const match = exactSource.exec(source) ?? (wildcard ? wildcardSource.exec(source) : null)
  if (!match) return
  const port = match[3]
  if (port === '*') return anyPort ? source : undefined
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535 || port.startsWith('0')))
    return
  return source
}

/**
 * The host sources for `frame-ancestors`: the project's allowed origins, each
 * re-validated (invalid ones dropped, duplicates removed, at most `maxEntries`),
 * or the dev defaults when the project's list is empty: by default
 * `Origin.devDefaultSources`, the hosts the widget's `Origin.isDevDefault`
 * accepts (localhost, 127.0.0.1, *.localhost; http or https; any port), each
 * re-validated too. A non-empty list whose entries are all invalid gives no
 * hosts: it never falls back to the defaults.
 */
export function toHostSources(
  allowedOrigins: readonly unknown[],
  defaults: readonly string[] = devDefaultSources,
): string[] {
  const entries =
    allowedOrigins.length === 0
      ? defaults.map((entry) => toSource(entry, { anyPort: true }))
      : allowedOrigins.map((entry) => toSource(entry))
  const sources = [...new Set(entries.filter((entry) => entry !== undefined))]
  return sources.slice(0, maxEntries)
}

export type CreateCspParameters = {
  /** The widget's exact origin. */
  widgetOrigin: string
  /** The API's origin as the browser sees it: the only `connect-src`. */
  apiOrigin: string
  /** Host sources from `toHostSources`; empty means no host may frame the frame. */
  hosts: readonly string[]
}

/**
 * The frame document's policy. With no allowed host, `frame-ancestors 'none'`:
 * the widget is always framed by a host, so naming it alone would allow nothing
 * useful and only the widget opened top-level.
 */
export function createCsp({ widgetOrigin, apiOrigin, hosts }: CreateCspParameters): string {
  const widget = toSource(widgetOrigin, { wildcard: false })
  const api = toSource(apiOrigin, { wildcard: false })
  if (!widget)
    throw new ConfigError(`The widget origin '${widgetOrigin}' is not scheme://host[:port]`)
  if (!api) throw new ConfigError(`The API origin '${apiOrigin}' is not scheme://host[:port]`)
  const safeHosts = hosts.filter((host) => toSource(host, { anyPort: true }) === host)
  const ancestors =
    safeHosts.length === 0 ? "'none'" : [...new Set([widget, ...safeHosts])].join(' ')
  return [
    `frame-ancestors ${ancestors}`,
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${api}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ')
}
