import { describe, expect, test, vi } from 'vitest'
import { createTtlCache, matchesIfNoneMatch, toCachedBody } from './cache.js'

function clock() {
  let ms = 0
  return { now: () => ms, advance: (by: number) => (ms += by) }
}

describe('createTtlCache', () => {
  test('keeps a value for ttlMs (unread past half of it), then loads it again', async () => {
    const time = clock()
    const cache = createTtlCache<number>({ ttlMs: 1_000, maxEntries: 10, now: time.now })
    const load = vi.fn(async () => 1)
    await cache.get('a', load)
    time.advance(499)
    await cache.get('a', load)
    expect(load).toHaveBeenCalledTimes(1)
    time.advance(501)
    await cache.get('a', load)
    expect(load).toHaveBeenCalledTimes(2)
  })

  test('past half its TTL a read gets the value at once and loads it again behind', async () => {
    const time = clock()
    const cache = createTtlCache<string>({ ttlMs: 1_000, maxEntries: 10, now: time.now })
    await cache.get('a', async () => 'first')
    time.advance(500)
    let finish: (value: string) => void = () => {}
    const refresh = vi.fn(() => new Promise<string>((resolve) => (finish = resolve)))
    expect(await cache.get('a', refresh)).toBe('first')
    expect(await cache.get('a', refresh)).toBe('first')
    expect(refresh).toHaveBeenCalledTimes(1)
    finish('second')
    await Promise.resolve()
    expect(await cache.get('a', refresh)).toBe('second')
    // Never past the TTL: a refresh still running at expiry makes the read wait for it.
    time.advance(1_000)
    let late: (value: string) => void = () => {}
    const slow = () => new Promise<string>((resolve) => (late = resolve))
    const read = cache.get('a', slow)
    late('third')
    expect(await read).toBe('third')
  })

  test('a caller cycling keys never grows it past maxEntries (least recently used goes)', async () => {
    const cache = createTtlCache<string>({ ttlMs: 60_000, maxEntries: 3, now: clock().now })
    for (let i = 0; i < 1_000; i++) await cache.get(`key-${i}`, async () => 'value')
    expect(cache.size).toBe(3)
    const load = vi.fn(async () => 'value')
    await cache.get('key-999', load)
    expect(load).not.toHaveBeenCalled()
  })

  test('an unknown key (loaded as undefined) and a failed load are never kept', async () => {
    const cache = createTtlCache<string>({ ttlMs: 60_000, maxEntries: 3, now: clock().now })
    for (let i = 0; i < 10; i++)
      expect(await cache.get(`unknown-${i}`, async () => undefined)).toBe(undefined)
    await expect(cache.get('fails', async () => Promise.reject(new Error('down')))).rejects.toThrow(
      'down',
    )
    expect(cache.size).toBe(0)
    expect(await cache.get('fails', async () => 'back')).toBe('back')
  })

  test('concurrent misses share one load', async () => {
    const cache = createTtlCache<number>({ ttlMs: 60_000, maxEntries: 3, now: clock().now })
    const load = vi.fn(async () => 7)
    expect(await Promise.all([1, 2, 3].map(() => cache.get('a', load)))).toEqual([7, 7, 7])
    expect(load).toHaveBeenCalledTimes(1)
  })

  test('a value read before a delete is not kept after it', async () => {
    const cache = createTtlCache<string>({ ttlMs: 60_000, maxEntries: 3, now: clock().now })
    let finish: (value: string) => void = () => {}
    const stale = cache.get('a', () => new Promise<string>((resolve) => (finish = resolve)))
    cache.delete('a')
    finish('before the change')
    expect(await stale).toBe('before the change')
    expect(await cache.get('a', async () => 'after the change')).toBe('after the change')
  })
})

describe('ETags', () => {
  test('are strong, from the body alone', () => {
    expect(toCachedBody({ a: 1 }).etag).toBe(toCachedBody({ a: 1 }).etag)
    expect(toCachedBody({ a: 1 }).etag).not.toBe(toCachedBody({ a: 2 }).etag)
    expect(toCachedBody({ a: 1 }).etag).toMatch(/^"[^"]+"$/)
  })

  test('If-None-Match: a list, a weak form, or *', () => {
    const etag = '"abc"'
    expect(matchesIfNoneMatch(undefined, etag)).toBe(false)
    expect(matchesIfNoneMatch('"abc"', etag)).toBe(true)
    expect(matchesIfNoneMatch('W/"abc"', etag)).toBe(true)
    expect(matchesIfNoneMatch('"x", "abc"', etag)).toBe(true)
    expect(matchesIfNoneMatch('*', etag)).toBe(true)
    expect(matchesIfNoneMatch('"abcd"', etag)).toBe(false)
    expect(matchesIfNoneMatch('abc', etag)).toBe(false)
  })
})
