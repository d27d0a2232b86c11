import { describe, expect, test } from 'vitest'
import * as Caip2 from './Caip2.js'
import { InvalidCaip2NetworkIdError } from './Errors.js'

const valid = [
  ['eip155:1', 'eip155', '1'],
  ['eip155:11155111', 'eip155', '11155111'],
  ['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 'solana', '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'],
  ['bip122:000000000019d6689c085ae165831e93', 'bip122', '000000000019d6689c085ae165831e93'],
  ['cosmos:cosmoshub-3', 'cosmos', 'cosmoshub-3'],
  ['abc:a_b-C', 'abc', 'a_b-C'],
  ['abcdefgh:x', 'abcdefgh', 'x'],
] as const

const invalid = [
  '',
  ':',
  'eip155',
  'eip155:',
  ':1',
  'eip155:1:0xabc',
  'eip155::1',
  'ab:1', // namespace too short
  'abcdefghi:1', // namespace too long
  'EIP155:1', // namespace is lower case
  'eip_155:1',
  'eip155:1.5',
  'eip155: 1',
  `eip155:${'a'.repeat(33)}`, // reference too long
] as const

describe('parse', () => {
  test.each(valid)('parses %s', (id, namespace, reference) => {
    expect(Caip2.parse(id)).toEqual({ namespace, reference })
  })

  test.each(invalid)('throws on %j with the exact message', (id) => {
    expect(() => Caip2.parse(id)).toThrowError(InvalidCaip2NetworkIdError)
    expect(() => Caip2.parse(id)).toThrowError(
      expect.objectContaining({ message: `Invalid CAIP-2 network id: ${id}` }),
    )
  })
})

describe('format', () => {
  test.each(valid)('formats %s from its parts', (id, namespace, reference) => {
    expect(Caip2.format({ namespace, reference })).toBe(id)
  })

  test('throws when a part is invalid', () => {
    expect(() => Caip2.format({ namespace: 'eip155', reference: '1:2' })).toThrowError(
      expect.objectContaining({ message: 'Invalid CAIP-2 network id: eip155:1:2' }),
    )
    expect(() => Caip2.format({ namespace: '', reference: '1' })).toThrowError(
      expect.objectContaining({ message: 'Invalid CAIP-2 network id: :1' }),
    )
  })
})

describe('validate', () => {
  test.each(valid)('accepts %s', (id) => {
    expect(Caip2.validate(id)).toBe(true)
  })

  test.each([...invalid, 1, null, undefined, {}, ['eip155', '1']])('rejects %j', (value) => {
    expect(Caip2.validate(value)).toBe(false)
  })
})

describe('assert', () => {
  test('passes a valid id', () => {
    expect(() => Caip2.assert('eip155:1')).not.toThrow()
  })

  test.each([
    ['eip155', 'Invalid CAIP-2 network id: eip155'],
    ['eip155:1:2', 'Invalid CAIP-2 network id: eip155:1:2'],
    [1, 'Invalid CAIP-2 network id: 1'],
  ])('throws on %j', (value, message) => {
    expect(() => Caip2.assert(value)).toThrowError(new InvalidCaip2NetworkIdError({ value }))
    expect(() => Caip2.assert(value)).toThrowError(expect.objectContaining({ message }))
  })
})

describe('validateNamespace', () => {
  test.each([
    ['eip155', true],
    ['bip122', true],
    ['ab', false],
    ['Solana', false],
  ])('%s is %s', (namespace, expected) => {
    expect(Caip2.validateNamespace(namespace)).toBe(expected)
  })
})

describe('validateReference', () => {
  test.each([
    ['1', true],
    ['5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', true],
    ['', false],
    ['a.b', false],
  ])('%j is %s', (reference, expected) => {
    expect(Caip2.validateReference(reference)).toBe(expected)
  })
})
