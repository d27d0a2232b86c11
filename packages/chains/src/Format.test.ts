import { describe, expect, test } from 'vitest'
import { InvalidAmountError, InvalidDecimalsError } from './Errors.js'
import * as Format from './Format.js'

const ether = (value: bigint) => ({ value, decimals: 18 })
const maxUint256 = 2n ** 256n - 1n

describe('constants', () => {
  test('match the spec: balances 3, fiat 2, transaction lists 3, emails 30', () => {
    expect(Format.balanceDecimals).toBe(3)
    expect(Format.fiatDecimals).toBe(2)
    expect(Format.transactionDecimals).toBe(3)
    expect(Format.emailMaxLength).toBe(30)
  })
})

describe('formatUnits', () => {
  test.each([
    [0n, 18, '0'],
    [1n, 18, '0.000000000000000001'],
    [10n ** 18n, 18, '1'],
    [1_500_000_000_000_000_000n, 18, '1.5'],
    [-1_500_000_000_000_000_000n, 18, '-1.5'],
    [123n, 0, '123'],
    [1_000_000n, 6, '1'],
    [123_456_789n, 9, '0.123456789'],
    [
      maxUint256,
      18,
      '115792089237316195423570985008687907853269984665640564039457.584007913129639935',
    ],
  ])('%s with %i decimals is %s', (value, decimals, expected) => {
    expect(Format.formatUnits(value, decimals)).toBe(expected)
  })

  test.each([-1, 1.5, 256, Number.NaN])('throws on %s decimals', (decimals) => {
    expect(() => Format.formatUnits(1n, decimals)).toThrowError(InvalidDecimalsError)
    expect(() => Format.formatUnits(1n, decimals)).toThrowError(
      expect.objectContaining({ message: `Invalid decimals: ${decimals}` }),
    )
  })
})

describe('formatBalance', () => {
  test.each([
    // raw units, 18 decimals
    [ether(10n ** 18n), '1'],
    [ether(0n), '0'],
    [ether(1_234_567_800_000_000_000_000n), '1,234.568'],
    [ether(1_500_000_000_000_000_000n), '1.5'],
    [ether(999_999_999_999_999_999n), '1'], // rounds up into the integer part
    [ether(500_000_000_000_000n), '0.001'], // 0.0005 rounds half up
    [ether(499_999_999_999_999n), '<0.001'],
    [ether(1n), '<0.001'], // 1 wei
    [ether(-1_500_000_000_000_000_000n), '-1.5'],
    [ether(-1n), '>-0.001'],
    [ether(123_456_789_012_345_678_901_234_567_890n), '123,456,789,012.346'],
    [
      ether(maxUint256),
      '115,792,089,237,316,195,423,570,985,008,687,907,853,269,984,665,640,564,039,457.584',
    ],
    // other decimals
    [{ value: 1_000_000_000n, decimals: 9 }, '1'], // 1 SOL
    [{ value: 12_345_678n, decimals: 8 }, '0.123'], // BTC
    [{ value: 42n, decimals: 0 }, '42'],
    // decimal strings
    ['1.5', '1.5'],
    ['1.23456', '1.235'],
    ['1.2000', '1.2'],
    ['0.0000', '0'],
    ['-0', '0'],
    ['0.0001', '<0.001'],
    ['1000000', '1,000,000'],
    ['999.9996', '1,000'],
    ['.5', '0.5'],
    ['5.', '5'],
    ['+2', '2'],
    ['1e-7', '<0.001'],
    ['1.5e3', '1,500'],
    ['2.5E-3', '0.003'],
    // numbers go through their decimal representation
    [0.1 + 0.2, '0.3'],
    [1234.5, '1,234.5'],
    [1e21, '1,000,000,000,000,000,000,000'],
    [1e-7, '<0.001'],
    [0, '0'],
  ])('%o shows as %s', (amount, expected) => {
    expect(Format.formatBalance(amount)).toBe(expected)
  })

  test.each([
    ['1.23456', 5, '1.23456'],
    ['1.23456', 1, '1.2'],
    ['1.6', 0, '2'],
    ['0.4', 0, '<1'],
    ['0.00001', 6, '0.00001'],
    ['0.0000001', 6, '<0.000001'],
  ])('%s with %i decimals shows as %s', (amount, decimals, expected) => {
    expect(Format.formatBalance(amount, decimals)).toBe(expected)
  })

  test('formats transaction list amounts with 3 decimals', () => {
    expect(Format.formatBalance(ether(12_345_600_000_000_000n), Format.transactionDecimals)).toBe(
      '0.012',
    )
  })

  test.each([
    'abc',
    '',
    ' 1',
    '1,000',
    '1.2.3',
    '.',
    'e5',
    '1e',
    '0x10',
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ])('throws on %j', (amount) => {
    expect(() => Format.formatBalance(amount)).toThrowError(InvalidAmountError)
    expect(() => Format.formatBalance(amount)).toThrowError(
      expect.objectContaining({ message: `Invalid amount: ${amount}` }),
    )
  })

  test('throws when raw units hold no bigint', () => {
    const amount = { value: 1, decimals: 18 } as unknown as Format.Units
    expect(() => Format.formatBalance(amount)).toThrowError(InvalidAmountError)
  })

  test.each([
    [ether(1n), -1],
    [ether(1n), 1.5],
    [{ value: 1n, decimals: -1 }, 3],
    [{ value: 1n, decimals: 256 }, 3],
  ])('throws on invalid decimals (%o, %s)', (amount, decimals) => {
    expect(() => Format.formatBalance(amount, decimals)).toThrowError(InvalidDecimalsError)
  })
})

describe('formatFiat', () => {
  test.each([
    ['1.5', '1.50'],
    ['0', '0.00'],
    ['-0', '0.00'],
    ['1234.567', '1,234.57'],
    ['-12.345', '-12.35'], // half away from zero
    ['0.005', '0.01'],
    ['0.004', '<0.01'],
    ['-0.004', '>-0.01'],
    ['1000000', '1,000,000.00'],
    [0.1 + 0.2, '0.30'],
    [7500, '7,500.00'],
    [{ value: 1_000_000n, decimals: 6 }, '1.00'], // 1 USDC
    [{ value: 12_345_678_901_234_567_890_123n, decimals: 6 }, '12,345,678,901,234,567.89'],
    [ether(1n), '<0.01'],
  ])('%o shows as %s', (amount, expected) => {
    expect(Format.formatFiat(amount)).toBe(expected)
  })

  test('accepts other decimals', () => {
    expect(Format.formatFiat('1.5', 0)).toBe('2')
    expect(Format.formatFiat('1.5', 4)).toBe('1.5000')
  })

  test('throws on an unreadable amount', () => {
    expect(() => Format.formatFiat('$1.00')).toThrowError(
      expect.objectContaining({ name: 'InvalidAmountError', message: 'Invalid amount: $1.00' }),
    )
  })
})

describe('truncateEmail', () => {
  test.each([
    ['user@example.com', 'user@example.com'],
    ['abcdefghijklmnopqr@example.com', 'abcdefghijklmnopqr@example.com'], // exactly 30
    ['abcdefghijklmnopqrs@example.com', 'abcdefghijklmnopq…@example.com'], // 31
    ['averyveryverylongname.surname@example.com', 'averyveryverylong…@example.com'],
    // the domain leaves exactly 4 characters for the local part
    ['someone@sub.verylongdomain.co.uk', 'some…@sub.verylongdomain.co.uk'],
    // one character more of domain leaves 3: cut the middle
    ['someone@subx.verylongdomain.co.uk', 'someone@subx.ve…ngdomain.co.uk'],
    // the domain leaves fewer than 4 characters for the local part: cut the middle
    ['a@averyveryveryveryverylongdomain.example.com', 'a@averyveryvery…in.example.com'],
    ['x'.repeat(40), `${'x'.repeat(15)}…${'x'.repeat(14)}`], // no @
    ['', ''],
  ])('%s shows as %s', (email, expected) => {
    expect(Format.truncateEmail(email)).toBe(expected)
  })

  test.each([31, 40, 64, 254])('an email of %i characters shows in at most 30', (length) => {
    const email = `${'u'.repeat(length - 12)}@example.com`
    const shown = Format.truncateEmail(email)
    expect(shown.length).toBeLessThanOrEqual(30)
    expect(shown).toContain('…')
    expect(shown.endsWith('@example.com')).toBe(true)
  })
})
