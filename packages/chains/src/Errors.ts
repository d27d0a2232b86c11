/**
 * Errors thrown by `@porthole/chains`. Every error is the protocol's
 * {@link BaseError} (the one root error of Porthole); the short messages of
 * the CAIP errors are the seed's copy, word for word (shared/SPEC.md section 8).
 */
import { BaseError } from '@porthole/protocol/Errors'

export { BaseError }

/**
 * A CAIP account address that is not exactly three non-empty colon-separated
 * parts, found by the loose check ({@link Caip10.parseLoose}). The seed's message
 * carries no value: 'Invalid CAIP Address'.
 */
export class InvalidCaipAddressError extends BaseError {
  override name = 'InvalidCaipAddressError'
  constructor(options: { cause?: unknown } = {}) {
    super('Invalid CAIP Address', options)
  }
}

/** A value that is not a valid CAIP-10 account id (strict parse). */
export class InvalidCaip10AddressError extends BaseError {
  override name = 'InvalidCaip10AddressError'
  constructor({ value, cause }: { value: unknown; cause?: unknown }) {
    super(`Invalid CAIP-10 address: ${stringify(value)}`, { cause })
  }
}

/** A value that is not a valid CAIP-2 network id. */
export class InvalidCaip2NetworkIdError extends BaseError {
  override name = 'InvalidCaip2NetworkIdError'
  constructor({ value, cause }: { value: unknown; cause?: unknown }) {
    super(`Invalid CAIP-2 network id: ${stringify(value)}`, { cause })
  }
}

/**
 * An amount that the display formatters cannot read (not a finite decimal
 * number, or raw units whose value is not a bigint). Programmer error, not
 * user-facing copy.
 */
export class InvalidAmountError extends BaseError {
  override name = 'InvalidAmountError'
  constructor({ value, cause }: { value: unknown; cause?: unknown }) {
    super(`Invalid amount: ${stringify(value)}`, { cause })
  }
}

/**
 * A decimals count that is not an integer from 0 to 255. Programmer error,
 * not user-facing copy.
 */
export class InvalidDecimalsError extends BaseError {
  override name = 'InvalidDecimalsError'
  constructor({ value, cause }: { value: unknown; cause?: unknown }) {
    super(`Invalid decimals: ${stringify(value)}`, { cause })
  }
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'bigint') return `${value}n`
  try {
    return String(value)
  } catch {
    return typeof value
  }
}
