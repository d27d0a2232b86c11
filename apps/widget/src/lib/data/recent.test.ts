import { afterEach, describe, expect, test } from 'vitest'
import { memoryStorage } from '../../../test/memoryStorage.js'
import { initialState, store } from '../state/store.js'
import {
  evmStorageKey,
  hasStoredEvmConnection,
  readRecent,
  recentLimit,
  rememberRecent,
} from './recent.js'
import { createSafeStorage, type SafeStorage } from './storage.js'

const hostA = 'https://a.example'
const hostB = 'https://b.example'

function setup(): { backing: Storage; storage: SafeStorage } {
  const backing = memoryStorage()
  return { backing, storage: createSafeStorage(() => backing) }
}

afterEach(() => {
  store.setState(initialState)
})

describe('rememberRecent', () => {
  test('puts the latest wallet first and keeps at most 2', () => {
    const { storage } = setup()
    expect(recentLimit).toBe(2)
    rememberRecent('io.metamask', hostA, storage)
    expect(readRecent(hostA, storage)).toEqual(['io.metamask'])
    rememberRecent('walletConnect', hostA, storage)
    expect(readRecent(hostA, storage)).toEqual(['walletConnect', 'io.metamask'])
    rememberRecent('io.rabby', hostA, storage)
    expect(readRecent(hostA, storage)).toEqual(['io.rabby', 'walletConnect'])
  })

  test('moves a wallet used again to the front instead of listing it twice', () => {
    const { storage } = setup()
    rememberRecent('io.metamask', hostA, storage)
    rememberRecent('io.rabby', hostA, storage)
    rememberRecent('io.metamask', hostA, storage)
    expect(readRecent(hostA, storage)).toEqual(['io.metamask', 'io.rabby'])
    rememberRecent('io.metamask', hostA, storage)
    expect(readRecent(hostA, storage)).toEqual(['io.metamask', 'io.rabby'])
  })

  test('keeps the list in the browser storage, for the next visit', () => {
    const { backing, storage } = setup()
    rememberRecent('io.metamask', hostA, storage)
    rememberRecent('io.rabby', hostA, storage)
    expect(
      readRecent(
        hostA,
        createSafeStorage(() => backing),
      ),
    ).toEqual(['io.rabby', 'io.metamask'])
  })

  test('keeps one list per host origin (SECURITY.md 9)', () => {
    const { storage } = setup()
    rememberRecent('io.metamask', hostA, storage)
    rememberRecent('io.rabby', hostB, storage)
    rememberRecent('walletConnect', hostA, storage)
    expect(readRecent(hostA, storage)).toEqual(['walletConnect', 'io.metamask'])
    expect(readRecent(hostB, storage)).toEqual(['io.rabby'])
    expect(readRecent('https://a.example:8443', storage)).toEqual([])
    expect(readRecent('http://a.example', storage)).toEqual([])
  })

  test("puts the new list in the store when it is the current host's", () => {
    const { storage } = setup()
    store.setState({ hostOrigin: hostA })
    rememberRecent('io.metamask', hostA, storage)
    expect(store.getState().recent).toEqual(['io.metamask'])
    rememberRecent('io.rabby', hostA, storage)
    rememberRecent('walletConnect', hostA, storage)
    expect(store.getState().recent).toEqual(['walletConnect', 'io.rabby'])
  })

  test("another host's list never reaches the store (SECURITY.md 9)", () => {
    const { storage } = setup()
    store.setState({ hostOrigin: hostA, recent: [] })
    rememberRecent('io.metamask', hostB, storage)
    expect(store.getState().recent).toEqual([])
    expect(readRecent(hostB, storage)).toEqual(['io.metamask'])
  })

  test('uses the host origin in the store by default', () => {
    const { storage } = setup()
    store.setState({ hostOrigin: hostB })
    rememberRecent('io.metamask', undefined, storage)
    expect(readRecent(hostB, storage)).toEqual(['io.metamask'])
    expect(readRecent(undefined, storage)).toEqual(['io.metamask'])
    expect(readRecent(hostA, storage)).toEqual([])
    expect(store.getState().recent).toEqual(['io.metamask'])
  })

  test('remembers nothing without a host origin', () => {
    const { backing, storage } = setup()
    rememberRecent('io.metamask', null, storage)
    rememberRecent('io.metamask', undefined, storage)
    expect(backing.length).toBe(0)
    expect(store.getState().recent).toEqual([])
  })
})

describe('readRecent', () => {
  test('reads nothing without a host origin', () => {
    const { storage } = setup()
    rememberRecent('io.metamask', hostA, storage)
    expect(readRecent(null, storage)).toEqual([])
  })

  test.each([
    { case: 'no value', stored: null },
    { case: 'not JSON', stored: '["io.metamask"' },
    { case: 'an empty string', stored: '' },
    { case: 'null', stored: 'null' },
    { case: 'a string', stored: '"io.metamask"' },
    { case: 'an object', stored: '{"0":"io.metamask"}' },
    { case: 'an array of numbers', stored: '[1,2]' },
    { case: 'an array of objects', stored: '[{"id":"io.metamask"}]' },
  ])('reads $case as []', ({ stored }) => {
    const { backing, storage } = setup()
    if (stored !== null) backing.setItem(`porthole.recent.${hostA}`, stored)
    expect(readRecent(hostA, storage)).toEqual([])
  })

  test('keeps only the strings of a stored list, and at most 2', () => {
    const { backing, storage } = setup()
    backing.setItem(`porthole.recent.${hostA}`, '[1,"io.rabby",null,"io.metamask","walletConnect"]')
    expect(readRecent(hostA, storage)).toEqual(['io.rabby', 'io.metamask'])
  })

  test('recovers from junk on the next remember', () => {
    const { backing, storage } = setup()
    backing.setItem(`porthole.recent.${hostA}`, '{junk')
    rememberRecent('io.metamask', hostA, storage)
    expect(readRecent(hostA, storage)).toEqual(['io.metamask'])
  })
})

describe('hasStoredEvmConnection', () => {
  test('only a current connection kept for this very host counts', () => {
    const { storage } = setup()
    expect(hasStoredEvmConnection(hostA, storage)).toBe(false)
    const kept = (current: string | null) =>
      JSON.stringify({ state: { chainId: 1, current }, version: 2 })
    storage.setItem(`${evmStorageKey(hostA)}.store`, kept(null))
    expect(hasStoredEvmConnection(hostA, storage)).toBe(false)
    storage.setItem(`${evmStorageKey(hostA)}.store`, kept('connection-uid'))
    expect(hasStoredEvmConnection(hostA, storage)).toBe(true)
    expect(hasStoredEvmConnection(hostB, storage)).toBe(false)
    storage.setItem(`${evmStorageKey(hostA)}.store`, '{broken')
    expect(hasStoredEvmConnection(hostA, storage)).toBe(false)
  })
})
