import { describe, expect, test } from 'vitest'
import * as Caip10 from './Caip10.js'
import { InvalidCaip10AddressError, InvalidCaipAddressError } from './Errors.js'

const evmAddress = '0xab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcdb'
const solanaAddress = '7S3P4HxJpyyigGzodYwHtCxZyUQe9JiBMHyRWXArAaKv'

const valid = [
  [`eip155:1:${evmAddress}`, 'eip155', '1', evmAddress, 'eip155:1'],
  [
    `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:${solanaAddress}`,
    'solana',
    '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    solanaAddress,
    'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  ],
  [
    'bip122:000000000019d6689c085ae165831e93:128Lkh3S7CkDTBZ8W7BbpsN3YYizJMp8p6',
    'bip122',
    '000000000019d6689c085ae165831e93',
    '128Lkh3S7CkDTBZ8W7BbpsN3YYizJMp8p6',
    'bip122:000000000019d6689c085ae165831e93',
  ],
  [
    'chainstd:8c3444cf8970a9e41a706fab93e7a6c4:6d9b0b4b9994e8a6afbd3dc3ed983cd51c755afb27cd1dc7825ef59c134a39f7',
    'chainstd',
    '8c3444cf8970a9e41a706fab93e7a6c4',
    '6d9b0b4b9994e8a6afbd3dc3ed983cd51c755afb27cd1dc7825ef59c134a39f7',
    'chainstd:8c3444cf8970a9e41a706fab93e7a6c4',
  ],
  [
    'hedera:mainnet:0.0.1234567890-zbhlt',
    'hedera',
    'mainnet',
    '0.0.1234567890-zbhlt',
    'hedera:mainnet',
  ],
] as const

const invalid = [
  '',
  evmAddress,
  'eip155:1',
  `eip155:1:${evmAddress}:extra`,
  'eip155:1:',
  `eip155::${evmAddress}`,
  `:1:${evmAddress}`,
  `EIP155:1:${evmAddress}`, // namespace charset
  `eip155:1.0:${evmAddress}`, // reference charset
  'eip155:1:0xab/cd', // address charset
  `eip155:1:${'a'.repeat(129)}`, // address too long
] as const

describe('parse', () => {
  test.each(valid)('parses %s', (id, namespace, reference, address, chainId) => {
    expect(Caip10.parse(id)).toEqual({ namespace, reference, address, chainId })
  })

  test.each(invalid)('throws on %j with the exact message', (id) => {
    expect(() => Caip10.parse(id)).toThrowError(InvalidCaip10AddressError)
    expect(() => Caip10.parse(id)).toThrowError(
      expect.objectContaining({ message: `Invalid CAIP-10 address: ${id}` }),
    )
  })
})

describe('format', () => {
  test.each(valid)('formats %s from its parts', (id, namespace, reference, address) => {
    expect(Caip10.format({ namespace, reference, address })).toBe(id)
  })

  test('round-trips the output of parse', () => {
    const id = `eip155:8453:${evmAddress}`
    expect(Caip10.format(Caip10.parse(id))).toBe(id)
  })

  test('throws when a part is invalid', () => {
    expect(() => Caip10.format({ namespace: 'eip155', reference: '1', address: '' })).toThrowError(
      expect.objectContaining({ message: 'Invalid CAIP-10 address: eip155:1:' }),
    )
  })
})

describe('validate', () => {
  test.each(valid)('accepts %s', (id) => {
    expect(Caip10.validate(id)).toBe(true)
  })

  test.each([...invalid, 1, null, undefined, {}])('rejects %j', (value) => {
    expect(Caip10.validate(value)).toBe(false)
  })
})

describe('assert', () => {
  test('passes a valid id', () => {
    expect(() => Caip10.assert(`eip155:1:${evmAddress}`)).not.toThrow()
  })

  test.each([
    ['eip155:1', 'Invalid CAIP-10 address: eip155:1'],
    [null, 'Invalid CAIP-10 address: null'],
  ])('throws on %j', (value, message) => {
    expect(() => Caip10.assert(value)).toThrowError(InvalidCaip10AddressError)
    expect(() => Caip10.assert(value)).toThrowError(expect.objectContaining({ message }))
  })
})

describe('parseLoose', () => {
  test.each([
    [`eip155:1:${evmAddress}`, 'eip155', '1', evmAddress],
    // only the shape is checked: charsets are not
    ['EIP155:1.0:not/an address', 'EIP155', '1.0', 'not/an address'],
  ])('parses %s', (id, namespace, reference, address) => {
    expect(Caip10.parseLoose(id)).toEqual({
      namespace,
      reference,
      address,
      chainId: `${namespace}:${reference}`,
    })
  })

  test.each([
    '',
    'eip155:1',
    `eip155:1:${evmAddress}:extra`,
    'eip155:1:',
    `eip155::${evmAddress}`,
    `:1:${evmAddress}`,
  ])('throws the seed message on %j', (id) => {
    expect(() => Caip10.parseLoose(id)).toThrowError(InvalidCaipAddressError)
    // exact message, with no value appended
    expect(() => Caip10.parseLoose(id)).toThrowError(/^Invalid CAIP Address$/)
  })
})
