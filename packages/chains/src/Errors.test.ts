import { describe, expect, test } from 'vitest'
import {
  BaseError,
  InvalidAmountError,
  InvalidCaip2NetworkIdError,
  InvalidCaip10AddressError,
  InvalidCaipAddressError,
  InvalidDecimalsError,
} from './Errors.js'

describe('BaseError', () => {
  test('uses the short message as message when there are no details', () => {
    const error = new BaseError('Something broke')
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('BaseError')
    expect(error.message).toBe('Something broke')
    expect(error.shortMessage).toBe('Something broke')
    expect(error.details).toBeUndefined()
    expect(error.cause).toBeUndefined()
  })

  test('appends details to the message', () => {
    const error = new BaseError('Something broke', { details: 'disk full' })
    expect(error.message).toBe('Something broke\n\nDetails: disk full')
    expect(error.shortMessage).toBe('Something broke')
    expect(error.details).toBe('disk full')
  })

  test('keeps the cause and takes details from its message', () => {
    const cause = new TypeError('bad input')
    const error = new BaseError('Something broke', { cause })
    expect(error.cause).toBe(cause)
    expect(error.details).toBe('bad input')
    expect(error.message).toBe('Something broke\n\nDetails: bad input')
  })

  test('takes details from a BaseError cause', () => {
    const cause = new BaseError('inner', { details: 'root cause' })
    expect(new BaseError('outer', { cause }).details).toBe('root cause')
  })

  test('walk returns the innermost cause, or the first match', () => {
    const root = new TypeError('root')
    const middle = new InvalidCaipAddressError({ cause: root })
    const top = new BaseError('top', { cause: middle })
    expect(top.walk()).toBe(root)
    expect(top.walk((error) => error instanceof InvalidCaipAddressError)).toBe(middle)
    expect(top.walk((error) => error instanceof RangeError)).toBeNull()
  })
})

describe('error catalogue', () => {
  test.each([
    [new InvalidCaipAddressError(), 'InvalidCaipAddressError', 'Invalid CAIP Address'],
    [
      new InvalidCaip10AddressError({ value: 'eip155:1' }),
      'InvalidCaip10AddressError',
      'Invalid CAIP-10 address: eip155:1',
    ],
    [
      new InvalidCaip2NetworkIdError({ value: 'eip155' }),
      'InvalidCaip2NetworkIdError',
      'Invalid CAIP-2 network id: eip155',
    ],
    [new InvalidAmountError({ value: 'abc' }), 'InvalidAmountError', 'Invalid amount: abc'],
    [new InvalidDecimalsError({ value: -1 }), 'InvalidDecimalsError', 'Invalid decimals: -1'],
  ])('%s has name %s and message %s', (error, name, message) => {
    expect(error).toBeInstanceOf(BaseError)
    expect(error.name).toBe(name)
    expect(error.message).toBe(message)
    expect(error.shortMessage).toBe(message)
  })

  test.each([
    [42, 'Invalid CAIP-2 network id: 42'],
    [undefined, 'Invalid CAIP-2 network id: undefined'],
    [10n, 'Invalid CAIP-2 network id: 10n'],
    [Object.create(null), 'Invalid CAIP-2 network id: object'],
  ])('renders the non-string value %s in the message', (value, message) => {
    expect(new InvalidCaip2NetworkIdError({ value }).message).toBe(message)
  })
})
