import { describe, expect, test } from 'vitest'
import { createPairing, isPairingExpired, untilExpired } from './pairing.js'

const now = 1_700_000_000_000
const uri = 'wc:7f6e50@2?relay-protocol=irn&symKey=58e3b2'

describe('createPairing', () => {
  test('expires 4 minutes after now', () => {
    expect(createPairing(uri, now)).toEqual({ uri, expiresAt: now + 240_000 })
  })

  test('counts from the current time by default', () => {
    const before = Date.now()
    const { expiresAt } = createPairing(uri)
    expect(expiresAt).toBeGreaterThanOrEqual(before + 240_000)
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 240_000)
  })
})

describe('isPairingExpired', () => {
  test.each([
    { left: 240_000, expired: false },
    { left: 10_001, expired: false },
    { left: 10_000, expired: true },
    { left: 9_999, expired: true },
    { left: 0, expired: true },
    { left: -5_000, expired: true },
  ])('is $expired with $left ms left', ({ left, expired }) => {
    expect(isPairingExpired({ uri, expiresAt: now + left }, now)).toBe(expired)
  })
})

describe('untilExpired', () => {
  test.each([
    { left: 240_000, until: 230_000 },
    { left: 10_001, until: 1 },
    { left: 10_000, until: 0 },
    { left: 5_000, until: 0 },
    { left: -60_000, until: 0 },
  ])('gives $until ms with $left ms left', ({ left, until }) => {
    expect(untilExpired({ uri, expiresAt: now + left }, now)).toBe(until)
  })

  test('reaches 0 exactly when the pairing becomes expired', () => {
    const pairing = createPairing(uri, now)
    const at = now + untilExpired(pairing, now)
    expect(isPairingExpired(pairing, at - 1)).toBe(false)
    expect(isPairingExpired(pairing, at)).toBe(true)
  })
})
