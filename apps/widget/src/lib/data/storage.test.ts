import { describe, expect, test } from 'vitest'
import { memoryStorage } from '../../../test/memoryStorage.js'
import { createSafeStorage, getClientId } from './storage.js'

const securityError = () => new DOMException('The operation is insecure.', 'SecurityError')

describe('createSafeStorage', () => {
  test('uses the browser storage when it works', () => {
    const backing = memoryStorage()
    const storage = createSafeStorage(() => backing)
    storage.setItem('k', 'v')
    expect(storage.persistent).toBe(true)
    expect(backing.getItem('k')).toBe('v')
    expect(createSafeStorage(() => backing).getItem('k')).toBe('v')
  })

  test('falls back to memory when reading localStorage throws SecurityError', () => {
    const storage = createSafeStorage(() => {
      throw securityError()
    })
    expect(storage.persistent).toBe(false)
    storage.setItem('k', 'v')
    expect(storage.getItem('k')).toBe('v')
    storage.removeItem('k')
    expect(storage.getItem('k')).toBeNull()
  })

  test('falls back to memory when every call throws', () => {
    const throwing = memoryStorage()
    throwing.setItem = () => {
      throw securityError()
    }
    throwing.getItem = () => {
      throw securityError()
    }
    const storage = createSafeStorage(() => throwing)
    expect(() => storage.setItem('k', 'v')).not.toThrow()
    expect(storage.getItem('k')).toBe('v')
  })

  test('works where there is no localStorage at all', () => {
    const storage = createSafeStorage(() => undefined)
    storage.setItem('k', 'v')
    expect(storage.getItem('k')).toBe('v')
  })
})

describe('getClientId', () => {
  test('creates a UUID once and keeps it', () => {
    const backing = memoryStorage()
    const id = getClientId(createSafeStorage(() => backing))
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(getClientId(createSafeStorage(() => backing))).toBe(id)
  })

  test('is stable in memory when storage is blocked', () => {
    const storage = createSafeStorage(() => {
      throw securityError()
    })
    expect(getClientId(storage)).toBe(getClientId(storage))
  })

  test('replaces a stored value that is not a UUID', () => {
    const backing = memoryStorage()
    backing.setItem('porthole.clientId', 'not a uuid <script>')
    expect(getClientId(createSafeStorage(() => backing))).not.toBe('not a uuid <script>')
  })
})
