/**
 * Allowed-origin patterns of a project (SECURITY.md 5), checked when a project
 * is created or its origins are changed. Two forms are stored, both canonical:
 *
 * - an exact origin `scheme://host[:port]` (http or https, no path), stored as
 *   the browser writes `event.origin` (lowercase, default port dropped);
 * - a wildcard `https://*.domain[:port]`, matching subdomains of `domain`,
 *   allowed only when `domain` is not a public suffix per the Public Suffix
 *   List (ICANN and private sections), so `*.vercel.app`, `*.pages.dev`,
 *   `*.ngrok-free.app`, `*.com` or `*.co.uk` are refused: each would allow
 *   every site under a shared suffix.
 *
 * Matching is done by `@porthole/protocol` (`Origin.matches`), which reads
 * these same two forms. Stored lists are checked again when read
 * (`readStoredPatterns`): a row written any other way (raw SQL, a migration)
 * never serves a pattern that could not have been saved.
 */
import { maxAllowedOrigins, maxOriginLength } from '@porthole/protocol/Api'
import { isAllowed } from '@porthole/protocol/Origin'
import { parse as parseDomain } from 'tldts'
import { InvalidOriginError, StoredOriginsError } from './errors.js'
import type { Project } from './schemas.js'

/** Longest pattern accepted (`Api.OriginsResponse` bounds each entry); real origins are far shorter. */
export const maxPatternLength = maxOriginLength

/** Most patterns one project may list (`Api.OriginsResponse` bounds the list). */
export const maxPatterns = maxAllowedOrigins

const example = 'e.g. https://app.example.com or https://*.example.com'

/** Parses an exact origin `scheme://host[:port]` and returns its canonical form; throws `InvalidOriginError`. */
export function parseExactOrigin(input: string): string {
  const url = parseUrl(input)
  if (url.hostname.includes('*')) {
    throw new InvalidOriginError(
      `'${input}' is not an origin: a wildcard may only open the host, as in https://*.example.com`,
    )
  }
  return bounded(url.origin, input)
}

/** Parses an allowed-origin pattern (exact origin or `https://*.domain`) and returns its canonical form; throws `InvalidOriginError`. */
export function parsePattern(input: string): string {
  const wildcard = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/\*\.(.*)$/.exec(input)
  if (!wildcard) return parseExactOrigin(input)
  const [, scheme = '', rest = ''] = wildcard
  if (scheme.toLowerCase() !== 'https') {
    throw new InvalidOriginError(
      `'${input}' is refused: a wildcard origin must use https (https://*.example.com)`,
    )
  }
  const url = parseUrl(`https://${rest}`, input)
  const host = url.hostname
  if (host.includes('*')) {
    throw new InvalidOriginError(
      `'${input}' is refused: only one wildcard is allowed, as the first label (https://*.example.com)`,
    )
  }
  const domain = parseDomain(host, { allowPrivateDomains: true, extractHostname: false })
  if (domain.isIp || host.startsWith('[')) {
    throw new InvalidOriginError(
      `'${input}' is refused: a wildcard needs a domain name, not an IP address`,
    )
  }
  if (domain.domain === null || domain.publicSuffix === host) {
    throw new InvalidOriginError(
      `'${input}' is refused: ${host} is a public suffix (shared by many unrelated sites, per the Public Suffix List), so the wildcard would allow all of them. List each origin exactly, or use a wildcard under a domain you own (https://*.example.com)`,
    )
  }
  return bounded(`https://*.${url.host}`, input)
}

/** Whether `input` is an allowed-origin pattern that may be stored. */
export function isValidPattern(input: string): boolean {
  try {
    parsePattern(input)
    return true
  } catch {
    return false
  }
}

/**
 * A stored list as it may be served (SECURITY.md 5, at read time). Lists are
 * validated when saved, but a row written any other way (raw SQL, a migration)
 * is not, so each entry is parsed again: `allowed` keeps those `parsePattern`
 * accepts, canonical, without duplicates, at most `maxPatterns`; `refused`
 * lists the others (a public-suffix wildcard, a path, a non-string), which are
 * never served. Dropping only ever allows fewer hosts.
 */
export function readStoredPatterns(stored: readonly unknown[]): {
  allowed: string[]
  refused: string[]
} {
  const allowed = new Set<string>()
  const refused: string[] = []
  for (const entry of stored) {
    if (typeof entry !== 'string') {
      refused.push(String(JSON.stringify(entry)).slice(0, maxPatternLength))
      continue
    }
    try {
      const pattern = parsePattern(entry)
      if (allowed.size < maxPatterns) allowed.add(pattern)
      else if (!allowed.has(pattern)) refused.push(entry)
    } catch {
      refused.push(entry)
    }
  }
  return { allowed: [...allowed], refused }
}

/**
 * The patterns a project's hosts are matched against, as
 * `/projects/v1/origins` serves them. A stored list whose every entry is
 * refused throws `StoredOriginsError` (a 500) rather than give `[]`, which
 * means "the dev defaults" (SECURITY.md 5).
 */
export function servedOrigins(project: Project): string[] {
  if (project.allowedOrigins.length === 0 && project.refusedOrigins.length > 0) {
    throw new StoredOriginsError(
      `Project '${project.id}' lists only allowed origins that may not be stored`,
      {
        details: `Set its origins again (npm run project -- set-origins). Refused: ${project.refusedOrigins.join(', ')}`,
      },
    )
  }
  return project.allowedOrigins
}

/**
 * Whether the host `origin` (canonical, as a browser writes `event.origin`)
 * may use `project`: the same matching as the widget and the secure frame
 * (`Origin.isAllowed`: exact origins, `https://*.domain` wildcards, the dev
 * defaults for an empty list). Throws `StoredOriginsError` like `servedOrigins`.
 */
export function isHostAllowed(project: Project, origin: string): boolean {
  return isAllowed(origin, servedOrigins(project))
}

/** Parses a project's list of patterns: each one canonical, duplicates dropped, order kept. */
export function parsePatterns(inputs: readonly string[]): string[] {
  if (inputs.length > maxPatterns) {
    throw new InvalidOriginError(
      `A project may list at most ${maxPatterns} allowed origins (got ${inputs.length})`,
    )
  }
  return [...new Set(inputs.map(parsePattern))]
}

/** The canonical form is bounded too: an internationalized host grows when encoded. */
function bounded(pattern: string, input: string): string {
  if (pattern.length > maxPatternLength) {
    throw new InvalidOriginError(
      `'${input}' is refused: an origin may be at most ${maxPatternLength} characters long, written as punycode`,
    )
  }
  return pattern
}

function parseUrl(input: string, shown: string = input): URL {
  if (input.length === 0) throw new InvalidOriginError(`An origin may not be empty (${example})`)
  if (shown.length > maxPatternLength) {
    throw new InvalidOriginError(`An origin may be at most ${maxPatternLength} characters long`)
  }
  if (/\s/.test(input)) {
    throw new InvalidOriginError(
      `'${shown}' is not an origin: it contains white space (${example})`,
    )
  }
  const shape = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)(.*)$/.exec(input)
  if (!shape) {
    throw new InvalidOriginError(
      `'${shown}' is not an origin: expected scheme://host[:port] (${example})`,
    )
  }
  const [, scheme = '', authority = '', rest = ''] = shape
  if (scheme.toLowerCase() !== 'http' && scheme.toLowerCase() !== 'https') {
    throw new InvalidOriginError(
      `'${shown}' is refused: only http and https origins can be allowed`,
    )
  }
  if (authority.includes('@')) {
    throw new InvalidOriginError(`'${shown}' is not an origin: it must not contain a user name`)
  }
  if (rest !== '' && rest !== '/') {
    throw new InvalidOriginError(
      `'${shown}' is not an origin: remove the path, query or fragment (an origin is scheme://host[:port])`,
    )
  }
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw new InvalidOriginError(`'${shown}' is not a valid origin (${example})`)
  }
  if (url.hostname === '') {
    throw new InvalidOriginError(`'${shown}' is not an origin: the host is missing (${example})`)
  }
  return url
}
