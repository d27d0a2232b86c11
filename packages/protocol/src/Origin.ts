/**
 * Host origin checks (SECURITY.md 4 and 5). Patterns are validated when a
 * project is saved (the API refuses public-suffix wildcards); here they are
 * only matched. Origins match exactly on scheme, host and port.
 */

/** Parses an origin string; `undefined` for anything that is not a plain http(s) origin. */
export function parse(
  origin: string,
): { protocol: string; hostname: string; port: string } | undefined {
  if (typeof origin !== 'string' || origin.length > 2048) return undefined
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  // Only the canonical form counts: what browsers put in `event.origin`.
  if (url.origin !== origin) return undefined
  return { protocol: url.protocol, hostname: url.hostname, port: url.port }
}

/**
 * The dev defaults as CSP source expressions, for the secure frame's
 * `frame-ancestors` (SECURITY.md 5): the same hosts `isDevDefault` accepts.
 * Never a shared-hosting suffix.
 */
export const devDefaultSources: readonly string[] = [
  'http://localhost:*',
  'http://127.0.0.1:*',
  'http://*.localhost:*',
  'https://localhost:*',
  'https://127.0.0.1:*',
  'https://*.localhost:*',
]

/** The dev defaults, allowed only when a project's list is empty: localhost, 127.0.0.1, *.localhost, http or https. */
export function isDevDefault(origin: string): boolean {
  const parsed = parse(origin)
  if (!parsed) return false
  const { hostname } = parsed
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname.endsWith('.localhost')
}

/** Whether `origin` matches one pattern: an exact origin, or `scheme://*.domain[:port]` for subdomains of domain. */
export function matches(origin: string, pattern: string): boolean {
  const parsed = parse(origin)
  if (!parsed) return false
  const wildcard = /^(https?):\/\/\*\.([^/:]+)(?::(\d+))?$/.exec(pattern)
  if (!wildcard) {
    const exact = parse(pattern)
    return (
      !!exact &&
      exact.protocol === parsed.protocol &&
      exact.hostname === parsed.hostname &&
      exact.port === parsed.port
    )
  }
  const [, scheme, domain = '', port = ''] = wildcard
  const defaultPort = (scheme === 'https' && port === '443') || (scheme === 'http' && port === '80')
  return (
    parsed.protocol === `${scheme}:` &&
    parsed.port === (defaultPort ? '' : port) &&
    parsed.hostname.endsWith(`.${domain.toLowerCase()}`)
  )
}

/** Fail closed: an empty list allows only the dev defaults; otherwise only what the list names. */
export function isAllowed(origin: string, allowList: readonly string[]): boolean {
  if (allowList.length === 0) return isDevDefault(origin)
  return allowList.some((pattern) => matches(origin, pattern))
}
