/**
 * Display helpers: token amounts, fiat values and long emails.
 *
 * Amount math is done on bigints, never on floating point: a `number` input
 * is read from its shortest decimal representation (`String(n)`), then
 * handled as a decimal string.
 */
import { InvalidAmountError, InvalidDecimalsError } from './Errors.js'

/** A raw integer amount in a token's smallest unit, with the token's decimals (e.g. wei and 18). */
export type Units = { value: bigint; decimals: number }

/**
 * An amount to display: raw token units, a decimal string (`'1.5'`, `'-0.25'`,
 * `'1e-7'`) or a finite number.
 */
export type Amount = Units | string | number

/** Fraction digits shown for balances (SPEC section 9). */
export const balanceDecimals = 3
/** Fraction digits shown for fiat values (SPEC section 9). */
export const fiatDecimals = 2
/** Fraction digits shown in transaction lists (SPEC section 9). */
export const transactionDecimals = 3
/** Emails longer than this are truncated in display (SPEC section 2). */
export const emailMaxLength = 30

/**
 * Exact decimal string of a raw token amount, like viem's `formatUnits`:
 * `formatUnits(1_500_000_000_000_000_000n, 18)` is `'1.5'`. No rounding,
 * no grouping, trailing zeros trimmed.
 * @throws {InvalidDecimalsError} when `decimals` is not an integer from 0 to 255.
 */
export function formatUnits(value: bigint, decimals: number): string {
  assertDecimals(decimals)
  const negative = value < 0n
  const absolute = negative ? -value : value
  const base = 10n ** BigInt(decimals)
  const fraction = (absolute % base).toString().padStart(decimals, '0').replace(/0+$/, '')
  const integer = (absolute / base).toString()
  return `${negative ? '-' : ''}${integer}${fraction ? `.${fraction}` : ''}`
}

/**
 * A balance for display: rounded half away from zero to `decimals` fraction
 * digits (3 by default, also used for transaction lists), trailing zeros
 * trimmed, thousands grouped with ','. A non-zero amount that rounds to zero
 * shows as '<0.001' ('>-0.001' when negative).
 *
 * `formatBalance({ value: 1_234_567_800_000_000_000_000n, decimals: 18 })` is `'1,234.568'`.
 * @throws {InvalidAmountError} when the amount cannot be read.
 * @throws {InvalidDecimalsError} when a decimals count is not an integer from 0 to 255.
 */
export function formatBalance(amount: Amount, decimals: number = balanceDecimals): string {
  return formatDecimal(amount, decimals, true)
}

/**
 * A fiat value for display: rounded half away from zero to `decimals`
 * fraction digits (2 by default), always showing them (`'1.50'`, `'0.00'`),
 * thousands grouped with ','. A non-zero amount that rounds to zero shows as
 * '<0.01'. No currency symbol is added.
 * @throws {InvalidAmountError} when the amount cannot be read.
 * @throws {InvalidDecimalsError} when a decimals count is not an integer from 0 to 255.
 */
export function formatFiat(amount: Amount, decimals: number = fiatDecimals): string {
  return formatDecimal(amount, decimals, false)
}

/**
 * An email for display, at most 30 characters including the '…'. A longer
 * email keeps its whole domain and as much of the local part as fits
 * (`averyveryverylong…@example.com`); when the domain is too long to leave at
 * least 4 characters of the local part (or there is no '@'), the middle is cut
 * instead (`a@averyveryvery…in.example.com`). Emails of 30 characters or fewer
 * are returned unchanged.
 */
export function truncateEmail(email: string): string {
  if (email.length <= emailMaxLength) return email
  const room = emailMaxLength - 1
  const at = email.lastIndexOf('@')
  const domain = at > 0 ? email.slice(at) : ''
  const localRoom = room - domain.length
  if (domain && localRoom >= minimumLocalPart) return `${email.slice(0, localRoom)}…${domain}`
  const head = Math.ceil(room / 2)
  return `${email.slice(0, head)}…${email.slice(email.length - (room - head))}`
}

const minimumLocalPart = 4
const maximumDecimals = 255
const decimalRegex = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$/

/** An exact decimal: `(negative ? -1 : 1) * digits / 10 ** scale`. */
type Decimal = { negative: boolean; digits: bigint; scale: number }

function formatDecimal(amount: Amount, decimals: number, trimZeros: boolean): string {
  assertDecimals(decimals)
  const { negative, digits, scale } = toDecimal(amount)
  const rounded = round(digits, scale, decimals)

  if (rounded === 0n && digits !== 0n) {
    const smallest = decimals === 0 ? '1' : `0.${'1'.padStart(decimals, '0')}`
    return negative ? `>-${smallest}` : `<${smallest}`
  }
  if (rounded === 0n) return trimZeros || decimals === 0 ? '0' : `0.${'0'.repeat(decimals)}`

  const base = 10n ** BigInt(decimals)
  const integer = group((rounded / base).toString())
  let fraction = decimals === 0 ? '' : (rounded % base).toString().padStart(decimals, '0')
  if (trimZeros) fraction = fraction.replace(/0+$/, '')
  return `${negative ? '-' : ''}${integer}${fraction ? `.${fraction}` : ''}`
}

function toDecimal(amount: Amount): Decimal {
  if (typeof amount === 'object' && amount !== null) {
    const { value, decimals } = amount
    if (typeof value !== 'bigint') throw new InvalidAmountError({ value: amount })
    assertDecimals(decimals)
    return { negative: value < 0n, digits: value < 0n ? -value : value, scale: decimals }
  }
  if (typeof amount === 'number' && !Number.isFinite(amount))
    throw new InvalidAmountError({ value: amount })
  if (typeof amount !== 'number' && typeof amount !== 'string')
    throw new InvalidAmountError({ value: amount })

  const match = decimalRegex.exec(String(amount))
  const [, sign = '', integer = '', fraction = '', exponent = '0'] = match ?? []
  if (!match || (integer === '' && fraction === '')) throw new InvalidAmountError({ value: amount })

  let digits = BigInt(`${integer}${fraction}` || '0')
  let scale = fraction.length - Number(exponent)
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale)
    scale = 0
  }
  return { negative: sign === '-' && digits !== 0n, digits, scale }
}

/** `digits / 10 ** scale` rounded half away from zero, in units of `10 ** -decimals`. */
function round(digits: bigint, scale: number, decimals: number): bigint {
  if (scale <= decimals) return digits * 10n ** BigInt(decimals - scale)
  const divisor = 10n ** BigInt(scale - decimals)
  const quotient = digits / divisor
  return (digits % divisor) * 2n >= divisor ? quotient + 1n : quotient
}

function group(integer: string): string {
  return integer.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

function assertDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > maximumDecimals)
    throw new InvalidDecimalsError({ value: decimals })
}
