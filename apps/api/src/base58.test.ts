import { randomBytes } from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { fromBase58, toBase58 } from './base58.js'

describe('toBase58 and fromBase58', () => {
  test.each([
    [[], ''],
    [[0], '1'],
    [[0, 0, 1], '112'],
    [[...Buffer.from('hello world')], 'StV1DL6CwTryKyV'],
    // The system program: 32 zero bytes.
    [new Array(32).fill(0), '11111111111111111111111111111111'],
  ])('%j is %s', (bytes, text) => {
    expect(toBase58(Uint8Array.from(bytes))).toBe(text)
    expect([...(fromBase58(text) ?? [])]).toEqual(bytes)
  })

  test('round-trips random keys and signatures', () => {
    for (const size of [32, 64]) {
      for (let i = 0; i < 20; i++) {
        const bytes = Uint8Array.from(randomBytes(size))
        expect(fromBase58(toBase58(bytes))).toEqual(bytes)
      }
    }
  })

  test.each(['0', 'O', 'I', 'l', '+', ' '])('refuses %j, outside the alphabet', (char) => {
    expect(fromBase58(`abc${char}`)).toBeUndefined()
  })
})
