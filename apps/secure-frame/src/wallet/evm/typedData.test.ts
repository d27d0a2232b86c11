import { describe, expect, test } from 'vitest'
import { toNormalisedTypedData } from './typedData.js'

/** Typed data with one field `v` of `type` in the primary type `T`. */
const withField = (type: string, v: unknown) => ({
  types: {
    EIP712Domain: [{ name: 'name', type: 'string' }],
    T: [{ name: 'v', type }],
  },
  primaryType: 'T',
  domain: { name: 'Example' },
  message: { v },
})

describe('inv-20 typed data atomic values are shown in the one form that is signed', () => {
  // Each would be shown as given while viem signs a coerced value.
  test.each<[string, unknown]>([
    ['string', { a: 1 }],
    ['string', 5],
    ['uint256', true],
    ['uint256', ''],
    ['uint256', '0b101'],
    ['uint256', ' 5 '],
    ['uint256', 1.5],
    ['uint256', -1],
    ['uint8', 256],
    ['int8', 128],
    ['bool', 'true'],
    ['bool', 1],
    ['bytes', '0x123'],
    ['bytes', 'hello!'],
    ['bytes32', '0x12'],
    ['address', '0x1234'],
    ['address', 42],
    ['uint7', 1],
    ['Unknown', 'x'],
  ])('%s given %j is refused (-32602)', (type, value) => {
    expect(() => toNormalisedTypedData(withField(type, value))).toThrow(
      expect.objectContaining({ code: -32602 }),
    )
  })

  test.each<[string, unknown, unknown]>([
    ['uint256', 5, '5'],
    ['uint256', '0x10', '16'],
    [
      'uint256',
      '115792089237316195423570985008687907853269984665640564039457584007913129639935',
      '115792089237316195423570985008687907853269984665640564039457584007913129639935',
    ],
    ['int8', -128, '-128'],
    ['int256', '-0x1', '-1'],
    ['bool', false, false],
    ['string', 'hello', 'hello'],
    ['bytes', '0xABcd', '0xabcd'],
    ['bytes4', '0xDEADBEEF', '0xdeadbeef'],
  ])('%s given %j is shown and signed as %j', (type, value, shown) => {
    expect(toNormalisedTypedData(withField(type, value)).message.v).toEqual(shown)
  })
})
