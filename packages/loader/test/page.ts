/**
 * The page's window for the loader's tests in Node: `addEventListener`,
 * `removeEventListener` and `dispatchEvent` on a fresh event target per test,
 * as the loader calls them (unqualified, on `window`).
 */
import { afterEach, beforeEach } from 'vitest'

const scope = globalThis as unknown as Record<string, unknown>
const keys = ['addEventListener', 'removeEventListener', 'dispatchEvent', 'window'] as const

/** Installs a fresh page window before each test of the file, and removes it after. */
export function usePage(): void {
  beforeEach(() => {
    const target = new EventTarget()
    scope.addEventListener = target.addEventListener.bind(target)
    scope.removeEventListener = target.removeEventListener.bind(target)
    scope.dispatchEvent = target.dispatchEvent.bind(target)
    scope.window = globalThis
  })
  afterEach(() => {
    for (const key of keys) delete scope[key]
  })
}

;(globalThis as Record<string, unknown>)['porthole:test-only'] = true
