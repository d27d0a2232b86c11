/**
 * Answers kept in the process for a short time (the project's origins and
 * config, the wallet list's pages), and the HTTP side of them: a strong
 * `ETag` (a hash of the body), `If-None-Match` → 304, `Cache-Control`.
 */
import { createHash } from 'node:crypto'
import type { Context } from 'hono'

/** A JSON answer as sent, with its strong entity tag. */
export type CachedBody = { readonly body: string; readonly etag: string }

/** `value` as JSON, tagged with the hash of exactly those bytes. */
export function toCachedBody(value: unknown): CachedBody {
  const body = JSON.stringify(value)
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27)
  return { body, etag: `"${hash}"` }
}

/**
 * Whether an `If-None-Match` header names `etag` (or is `*`). The weak
 * comparison of RFC 9110 13.1.2: `W/"x"` matches `"x"`.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  return header.split(',').some((tag) => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag
  })
}

/**
 * Sends `cached` as a 200 with its `ETag` and `cacheControl`, or a 304
 * without a body when the request's `If-None-Match` names it. Both carry the
 * same headers, so the CORS middleware treats them alike.
 */
export function sendCached(c: Context, cached: CachedBody, cacheControl: string): Response {
  c.header('Cache-Control', cacheControl)
  c.header('ETag', cached.etag)
  if (matchesIfNoneMatch(c.req.header('if-none-match'), cached.etag)) return c.body(null, 304)
  c.header('Content-Type', 'application/json')
  return c.body(cached.body)
}

export type TtlCacheOptions = {
  /** How long a value is served from memory after it was loaded. */
  ttlMs: number
  /** Most keys kept; the least recently used goes first. */
  maxEntries: number
  /** Milliseconds, for the expiry; `performance.now` by default. Tests move it. */
  now?: (() => number) | undefined
}

/**
 * A bounded map of values loaded on demand and kept `ttlMs`. Concurrent
 * misses of one key share one load. A value read past half its TTL is
 * loaded again in the background, so a key in use never makes a request
 * wait; none is served past `ttlMs`. A load that resolves `undefined` is
 * not kept (an unknown project is asked again next time), and neither is one
 * that `delete` or `clear` overtook: a value read before a change is never
 * stored after it.
 */
export type TtlCache<V> = {
  get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined>
  delete(key: string): void
  clear(): void
  readonly size: number
}

export function createTtlCache<V>({
  ttlMs,
  maxEntries,
  now = () => performance.now(),
}: TtlCacheOptions): TtlCache<V> {
  const entries = new Map<string, { value: V; refreshAt: number; expires: number }>()
  const loading = new Map<string, Promise<V | undefined>>()
  const start = (key: string, load: () => Promise<V | undefined>) => {
    const started = load().then(
      (value) => {
        if (loading.get(key) !== started) return value
        loading.delete(key)
        entries.delete(key)
        if (value === undefined) return value
        const at = now()
        entries.set(key, { value, refreshAt: at + ttlMs / 2, expires: at + ttlMs })
        for (const oldest of entries.keys()) {
          if (entries.size <= maxEntries) break
          entries.delete(oldest)
        }
        return value
      },
      (error: unknown) => {
        if (loading.get(key) === started) loading.delete(key)
        throw error
      },
    )
    loading.set(key, started)
    return started
  }
  return {
    async get(key, load) {
      const entry = entries.get(key)
      const at = now()
      if (entry !== undefined && entry.expires > at) {
        // Most recently used last: Map keeps insertion order.
        entries.delete(key)
        entries.set(key, entry)
        if (entry.refreshAt <= at && !loading.has(key)) {
          // A failed refresh leaves the value until it expires; the next read tries again.
          start(key, load).catch(() => {})
        }
        return entry.value
      }
      entries.delete(key)
      return loading.get(key) ?? start(key, load)
    },
    delete(key) {
      entries.delete(key)
      loading.delete(key)
    },
    clear() {
      entries.clear()
      loading.clear()
    },
    get size() {
      return entries.size
    },
  }
}
