import { describe, expect, test } from 'vitest'
import { memoryStorage } from '../../../test/memoryStorage.js'
import { createCache } from './cache.js'
import { createSafeStorage } from './storage.js'

const parseCount = (value: unknown) => {
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as { count?: unknown }).count !== 'number'
  )
    throw new Error('not a page')
  return value as { count: number }
}

describe('createCache', () => {
  test('keeps an answer with the time it was kept, and reads it back parsed', () => {
    const storage = createSafeStorage(memoryStorage)
    const cache = createCache('recommended', 'project-a', parseCount, storage)
    expect(cache.read()).toBeUndefined()
    const before = Date.now()
    expect(cache.write({ count: 3 })).toEqual({ count: 3 })
    const kept = cache.read()
    expect(kept?.data).toEqual({ count: 3 })
    expect(kept?.at).toBeGreaterThanOrEqual(before)
  })

  test("one project's answer is never read as another's", () => {
    const storage = createSafeStorage(memoryStorage)
    createCache('config', 'project-a', parseCount, storage).write({ count: 1 })
    expect(createCache('config', 'project-b', parseCount, storage).read()).toBeUndefined()
    expect(createCache('recommended', 'project-a', parseCount, storage).read()).toBeUndefined()
  })

  test('a kept value that no longer parses is dropped, not used', () => {
    const backing = memoryStorage()
    // A later page load reads what the browser kept.
    const nextLoad = () =>
      createCache(
        'config',
        'project-a',
        parseCount,
        createSafeStorage(() => backing),
      )
    nextLoad().write({ count: 1 })
    const key = backing.key(0) ?? ''
    backing.setItem(key, JSON.stringify({ data: { count: 'many' }, at: 1 }))
    expect(nextLoad().read()).toBeUndefined()
    expect(backing.getItem(key)).toBeNull()
    backing.setItem(key, '{not json')
    expect(nextLoad().read()).toBeUndefined()
  })

  test('without a project nothing is kept', () => {
    const backing = memoryStorage()
    const cache = createCache(
      'config',
      null,
      parseCount,
      createSafeStorage(() => backing),
    )
    cache.write({ count: 1 })
    expect(backing.length).toBe(0)
    expect(cache.read()).toBeUndefined()
  })
})
