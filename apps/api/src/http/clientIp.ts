/**
 * Who a request comes from, for the per-IP limits (SECURITY.md 21, 22).
 *
 * - By default the client is the socket's peer, and `X-Forwarded-For` is
 *   ignored: any client can write that header.
 * - With `TRUSTED_PROXIES` (addresses and CIDR ranges of the proxies in
 *   front of the API), a request whose peer is one of them is read through
 *   `X-Forwarded-For` from the right: each trusted proxy appended the address
 *   it was called from, so the rightmost entry that is not a trusted proxy is
 *   the client. Entries left of it were written by the client and are never
 *   read, so a spoofed leftmost entry never wins. A malformed entry stops the
 *   walk at the trusted hop that forwarded it.
 * - Limits key an IPv4 client by its address and an IPv6 client by its /64
 *   prefix: one subscriber line or host usually holds a whole /64.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net'
import { InvalidTrustedProxyError } from './errors.js'

/** The parsed `TRUSTED_PROXIES`: the proxies whose `X-Forwarded-For` entries are believed. */
export type TrustedProxies = {
  /** The entries as given, canonical (for logs and tests). */
  readonly entries: readonly string[]
  has(address: string): boolean
}

/** No proxy trusted: `X-Forwarded-For` is ignored. */
export const noTrustedProxies: TrustedProxies = { entries: [], has: () => false }

/** At most this many `X-Forwarded-For` entries are read, from the right. */
export const maxForwardedHops = 32

/**
 * Parses a comma-separated list of IP addresses and CIDR ranges
 * (`10.0.0.0/8, 192.168.1.7, fd00::/8`). Throws an `Error` naming the first
 * bad entry.
 */
export function parseTrustedProxies(value: string): TrustedProxies {
  const list = new BlockList()
  const entries: string[] = []
  for (const raw of value.split(',')) {
    const item = raw.trim()
    if (item === '') continue
    const [address = '', prefix, extra] = item.split('/')
    const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined
    if (family === undefined || extra !== undefined)
      throw new InvalidTrustedProxyError(
        `'${item.slice(0, 64)}' is not an IP address or CIDR range`,
      )
    const bits = family === 'ipv4' ? 32 : 128
    if (prefix === undefined) {
      list.addAddress(address, family)
      entries.push(address)
      continue
    }
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits)
      throw new InvalidTrustedProxyError(
        `'${item.slice(0, 64)}' has a bad prefix length (0 to ${bits})`,
      )
    list.addSubnet(address, Number(prefix), family)
    entries.push(`${address}/${Number(prefix)}`)
  }
  return {
    entries,
    has(address) {
      const plain = normalizeAddress(address)
      if (plain === undefined) return false
      return list.check(plain, isIPv4(plain) ? 'ipv4' : 'ipv6')
    },
  }
}

/**
 * An address as the socket or a proxy gives it, made plain: an IPv4-mapped
 * IPv6 address (`::ffff:1.2.3.4`) becomes IPv4; a zone (`%eth0`), brackets
 * and a port (`1.2.3.4:5678`, `[::1]:80`) are dropped. Undefined when it is
 * no IP address.
 */
export function normalizeAddress(value: string): string | undefined {
  let address = value.trim()
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(address)
  if (bracketed?.[1]) address = bracketed[1]
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d{1,5}$/.test(address)) address = address.replace(/:\d+$/, '')
  address = address.replace(/%[\w.-]+$/, '')
  if (isIPv4(address)) return address
  if (!isIPv6(address)) return undefined
  const groups = expandIPv6(address.toLowerCase())
  if (groups.slice(0, 5).every((group) => group === '0000') && groups[5] === 'ffff') {
    const word = Number.parseInt(`${groups[6]}${groups[7]}`, 16)
    return [24, 16, 8, 0].map((shift) => (word >>> shift) & 0xff).join('.')
  }
  return address.toLowerCase()
}

/**
 * The client's address: the socket peer, or, when the peer is a trusted
 * proxy, the rightmost `X-Forwarded-For` entry that is not. Undefined when
 * the socket gives none (an in-process request).
 */
export function clientAddress({
  peer,
  forwardedFor,
  trusted,
}: {
  peer: string | undefined
  forwardedFor: string | undefined
  trusted: TrustedProxies
}): string | undefined {
  const socket = peer === undefined ? undefined : normalizeAddress(peer)
  if (socket === undefined || !trusted.has(socket) || forwardedFor === undefined) return socket
  const hops = forwardedFor.split(',').slice(-maxForwardedHops).reverse()
  let client = socket
  for (const hop of hops) {
    const address = normalizeAddress(hop)
    // A hop no trusted proxy could have written: keep the proxy that forwarded it.
    if (address === undefined) return client
    client = address
    if (!trusted.has(address)) return address
  }
  return client
}

/**
 * The key of per-IP limits for `address`: an IPv4 address itself, an IPv6
 * address's /64 prefix (`2001:db8:1:2::/64`); `unknown` for none.
 */
export function limitKeyOf(address: string | undefined): string {
  if (address === undefined) return 'unknown'
  const plain = normalizeAddress(address)
  if (plain === undefined) return 'unknown'
  if (isIPv4(plain)) return plain
  const groups = expandIPv6(plain).slice(0, 4)
  return `${groups.map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`
}

/**
 * The key of per-prefix limits for `address`, the bucket after the per-IP
 * one (SECURITY.md 22): an IPv4 address's /24 (`203.0.113.0/24`), an IPv6
 * address's /56 (`2001:db8:1:200::/56`, a typical subscriber allocation);
 * `unknown` for none.
 */
export function prefixKeyOf(address: string | undefined): string {
  if (address === undefined) return 'unknown'
  const plain = normalizeAddress(address)
  if (plain === undefined) return 'unknown'
  if (isIPv4(plain)) return `${plain.split('.').slice(0, 3).join('.')}.0/24`
  const groups = expandIPv6(plain).slice(0, 4)
  groups[3] = `${groups[3]?.slice(0, 2) ?? '00'}00`
  return `${groups.map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/56`
}

/** The 8 groups of an IPv6 address (4 hex digits each), an embedded IPv4 tail included. */
function expandIPv6(address: string): string[] {
  let text = address
  const tail = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text)
  if (tail?.[1]) {
    const bytes = tail[1].split('.').map(Number)
    const hex = (high = 0, low = 0) => ((high << 8) | low).toString(16)
    text = `${text.slice(0, -tail[1].length)}${hex(bytes[0], bytes[1])}:${hex(bytes[2], bytes[3])}`
  }
  const [head = '', rest] = text.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = rest === undefined || rest === '' ? [] : rest.split(':')
  const missing = rest === undefined ? 0 : 8 - left.length - right.length
  return [...left, ...Array.from({ length: missing }, () => '0'), ...right].map((group) =>
    group.padStart(4, '0'),
  )
}
