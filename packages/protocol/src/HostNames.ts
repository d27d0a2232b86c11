/**
 * SECURITY.md 25, "only our own names": the `Host` check of Porthole's
 * servers (the API, the secure-frame server, the development static server
 * of the widget and the demo).
 * DNS rebinding points an attacker's name at one of them; the browser then
 * sends `Host: attacker.example`, which no server of ours answers.
 *
 * Pure string work, no I/O: each server builds a `HostRule` from its
 * configured origin and asks `isOwnHost` for each request.
 */

/** A host name and its port, canonical: lower case, no trailing dot, IPv6 in brackets. */
export type HostName = { readonly hostname: string; readonly port: number }

/** The names a server answers to. */
export type HostRule = {
  /** Always answered (the configured origin's host, and any listed). */
  readonly names: readonly HostName[]
  /** The port a Host without one means: the default port of the scheme browsers use (80 or 443). */
  readonly defaultPort: number
  /** Development: the loopback names (`loopbackHostnames`) on the server's own port answer too. */
  readonly loopback: boolean
}

/** The loopback names a development server answers on its own port. */
export const loopbackHostnames = ['127.0.0.1', 'localhost', '[::1]'] as const

/** Whether `hostname` (of a URL) is this machine: 127.0.0.1, localhost, [::1] or `*.localhost`. */
const isLoopbackName = (hostname: string) =>
  (loopbackHostnames as readonly string[]).includes(hostname) || hostname.endsWith('.localhost')

/**
 * Whether a URL a server calls (an RPC upstream, the API from the secure
 * frame's server) may go in production: https, or plain http to this
 * machine or a private network: an RFC 1918 or IPv6 unique-local address, or
 * a one-label name (a container or service name on a private network).
 */
export function isHttpsOrPrivate(url: string): boolean {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (!parsed) return false
  if (parsed.protocol === 'https:') return true
  if (parsed.protocol !== 'http:') return false
  const { hostname } = parsed
  const octets = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(hostname)
  const [a, b] = octets ? [Number(octets[1]), Number(octets[2])] : [-1, -1]
  return (
    isLoopbackName(hostname) ||
    a === 10 ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    /^\[f[cd][0-9a-f]{2}:/.test(hostname) ||
    (!octets && !hostname.startsWith('[') && !hostname.includes('.'))
  )
}

/**
 * Whether a public URL (or origin) is fit for production: https, or http on
 * a loopback name (127.0.0.1, localhost, [::1], *.localhost), which only a
 * test on this machine uses. Anything unparsable is not.
 */
export function isHttpsOrLoopback(url: string): boolean {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (!parsed) return false
  if (parsed.protocol === 'https:') return true
  return parsed.protocol === 'http:' && isLoopbackName(parsed.hostname)
}

/** The longest Host value looked at (a DNS name is at most 253 characters, plus a port). */
const maxHostLength = 300

/** `host[:port]`: a DNS name or IPv4 address, or an IPv6 address in brackets. No userinfo, no path. */
const hostPattern = /^(\[[0-9a-f:.]+\]|[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?)(?::(\d{1,5}))?$/

/** The default port of an http(s) URL's scheme. */
export function defaultPortOf(protocol: string): number {
  return protocol === 'https:' ? 443 : 80
}

/**
 * Parses a `Host` header (or an entry of a configured list) as
 * `host[:port]`; a missing port is `defaultPort`. Case-insensitive; one
 * trailing dot is dropped; IPv6 is canonicalised. `undefined` for anything
 * else: empty, userinfo, a list, an empty or out-of-range port.
 */
export function parseHost(value: string, defaultPort: number): HostName | undefined {
  if (value.length === 0 || value.length > maxHostLength) return undefined
  const match = hostPattern.exec(value.toLowerCase())
  if (!match?.[1]) return undefined
  let hostname = match[1]
  if (hostname.startsWith('[')) {
    try {
      // The WHATWG parser canonicalises IPv6 (`[0:0:0:0:0:0:0:1]` → `[::1]`) and rejects bad ones.
      hostname = new URL(`http://${hostname}/`).hostname
    } catch {
      return undefined
    }
  } else if (hostname.endsWith('.')) {
    hostname = hostname.slice(0, -1)
  }
  const port = match[2] === undefined ? defaultPort : Number(match[2])
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return undefined
  return { hostname, port }
}

/** The host name of an http(s) URL or origin, with its port made explicit. Throws on anything else. */
export function hostNameOfUrl(url: string): HostName {
  const parsed = new URL(url)
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new TypeError(`'${url}' is not an http(s) URL`)
  const port = parsed.port === '' ? defaultPortOf(parsed.protocol) : Number(parsed.port)
  const host = parseHost(`${parsed.hostname}:${port}`, port)
  if (host === undefined) throw new TypeError(`'${url}' has no usable host name`)
  return host
}

/**
 * The rule of a server reached at `origin` (its scheme gives the default
 * port), answering also the `extraHosts` (`host[:port]` entries) and, when
 * `loopback`, the loopback names on its own port. Throws on a bad entry.
 */
export function hostRuleOf({
  origin,
  extraHosts = [],
  loopback,
}: {
  origin: string
  extraHosts?: readonly string[]
  loopback: boolean
}): HostRule {
  const defaultPort = defaultPortOf(new URL(origin).protocol)
  const names = [hostNameOfUrl(origin)]
  for (const entry of extraHosts) {
    const name = parseHost(entry, defaultPort)
    if (name === undefined) throw new TypeError(`'${entry}' is not a host[:port]`)
    names.push(name)
  }
  return { names, defaultPort, loopback }
}

/**
 * Whether `host` (the request's `Host` header) is one of `rule`'s names.
 * `ownPort` is the port the server listens on: the port of a loopback name
 * in development.
 */
export function isOwnHost(rule: HostRule, host: string | undefined, ownPort: number): boolean {
  if (host === undefined) return false
  const name = parseHost(host, rule.defaultPort)
  if (name === undefined) return false
  if (rule.names.some((own) => own.hostname === name.hostname && own.port === name.port))
    return true
  return (
    rule.loopback &&
    name.port === ownPort &&
    (loopbackHostnames as readonly string[]).includes(name.hostname)
  )
}
