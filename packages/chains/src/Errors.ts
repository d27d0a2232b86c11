/**
 * Errors thrown by `@porthole/chains`. Every error is a {@link BaseError}; the
 * short messages of the CAIP errors are the seed's copy, word for word
 * (shared/SPEC.md section 8).
 */

export type BaseErrorOptions = {
  /** The underlying error, kept as `cause`; its message becomes `details`. */
  cause?: unknown
  /** Extra technical detail, appended to `message` (never shown to users). */
  details?: string | undefined
}

/** The one base error of this package (viem style). */
export class BaseError extends Error {
  override name = 'BaseError'
  /** The user-facing message, without details. */
  readonly shortMessage: string
  readonly details: string | undefined

  constructor(shortMessage: string, options: BaseErrorOptions = {}) {
    const details = options.details ?? detailsOf(options.cause)
    super(
      details ? `${shortMessage}\n\nDetails: ${details}` : shortMessage,
      options.cause === undefined ? undefined : { cause: options.cause },
    )
    this.shortMessage = shortMessage
    this.details = details
  }

  /**
   * Follows the `cause` chain. Without `fn`, returns the innermost cause;
   * with `fn`, returns the first error in the chain it accepts, or `null`.
   */
  walk(): unknown
  walk(fn: (error: unknown) => boolean): unknown
  walk(fn?: (error: unknown) => boolean): unknown {
    let error: unknown = this
    while (true) {
      if (fn?.(error)) return error
      if (error instanceof Error && error.cause !== undefined) error = error.cause
      else return fn ? null : error
    }
  }
}

function detailsOf(cause: unknown): string | undefined {
  if (cause instanceof BaseError) return cause.details
  if (cause instanceof Error && cause.message) return cause.message
  return undefined
}

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
