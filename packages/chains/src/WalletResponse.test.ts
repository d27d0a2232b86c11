import { describe, expect, test } from 'vitest'
import * as WalletResponse from './WalletResponse.js'

const hex = (digits: number) => `0x${'a1'.repeat(Math.ceil(digits / 2)).slice(0, digits)}`

describe('classify', () => {
  test.each([
    [hex(64), 'transactionHash'],
    [`0x${'AB'.repeat(32)}`, 'transactionHash'],
    [`0x${'0'.repeat(64)}`, 'transactionHash'],
    [hex(62), 'signature'], // the shortest signed message
    [hex(63), 'signature'],
    [hex(65), 'signature'],
    [hex(130), 'signature'], // a 65-byte ECDSA signature
    [`0x${'Ab'.repeat(65)}`, 'signature'],
    [hex(61), 'object'],
    [hex(64).slice(2), 'object'], // no 0x prefix
    [`0X${hex(64).slice(2)}`, 'object'],
    [`0x${'g'.repeat(64)}`, 'object'],
    [`${hex(64)}\n`, 'object'],
    [` ${hex(130)}`, 'object'],
    ['0x', 'object'],
    ['', 'object'],
    [{ hash: hex(64) }, 'object'],
    [[hex(64)], 'object'],
    [null, 'object'],
    [undefined, 'object'],
    [42, 'object'],
  ])('%j is a %s', (response, kind) => {
    expect(WalletResponse.classify(response)).toBe(kind)
  })

  test('checks for a hash before a signature', () => {
    // 64 hex digits also match the signature rule (at least 62)
    expect(hex(64)).toMatch(/^0x[0-9a-f]{62,}$/)
    expect(WalletResponse.classify(hex(64))).toBe('transactionHash')
  })
})
