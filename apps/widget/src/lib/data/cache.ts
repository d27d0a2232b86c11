/**
 * Answers kept in the widget's storage (the project's config, the recommended
 * wallets), so a returning visitor's Connect paints from them while start-up
 * fetches them again: stale while revalidating, never trusted unchecked (each
 * is parsed again on reading). Per API and project; the allowed origins are
 * never kept (SECURITY.md 4: they are read at every load).
 */
import { apiUrl } from '../env.js'
import { storage as defaultStorage, type SafeStorage } from './storage.js'

export type Cached<value> = { data: value; at: number }

/** A kept answer: `read` gives it (or `undefined`: none, or not valid), `write` replaces it. */
export function createCache<value>(
  name: string,
  projectId: string | null,
  parse: (value: unknown) => value,
  from: SafeStorage = defaultStorage,
) {
  const key = `porthole.cache.${name}.${apiUrl}.${projectId ?? ''}`
  return {
    read(): Cached<value> | undefined {
      if (projectId === null) return undefined
      try {
        const stored = JSON.parse(from.getItem(key) ?? 'null') as Partial<Cached<unknown>> | null
        if (!stored || typeof stored.at !== 'number') return undefined
        return { data: parse(stored.data), at: stored.at }
      } catch {
        from.removeItem(key)
        return undefined
      }
    },
    write(data: value): value {
      if (projectId !== null) from.setItem(key, JSON.stringify({ data, at: Date.now() }))
      return data
    },
  }
}
