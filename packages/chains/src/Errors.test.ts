import { describe, expect, test } from 'vitest'
import {
  BaseError,
  InvalidAmountError,
  InvalidCaip2NetworkIdError,
  InvalidCaip10AddressError,
  InvalidCaipAddressError,
  InvalidDecimalsError,
} from './Errors.js'

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
