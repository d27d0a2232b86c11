/** The secure frame server's errors (the browser side only speaks `{ code, message }`). */

export type BaseErrorOptions = { cause?: unknown; details?: string | undefined }

export class BaseError extends Error {
  override name = 'SecureFrameError'
  readonly shortMessage: string
  readonly details: string | undefined

  constructor(shortMessage: string, options: BaseErrorOptions = {}) {
    super(
      options.details ? `${shortMessage}\n\nDetails: ${options.details}` : shortMessage,
      options.cause === undefined ? undefined : { cause: options.cause },
    )
    this.shortMessage = shortMessage
    this.details = options.details
  }
}

/** A server option that cannot be used, e.g. a widget origin that is not `scheme://host[:port]`. */
export class ConfigError extends BaseError {
  override name = 'ConfigError'
}

/** The API does not know the project (or refused the project id). */
export class UnknownProjectError extends BaseError {
  override name = 'UnknownProjectError'
}

/** The allowed origins could not be loaded: the API is down, slow, or answered something unexpected. */
export class OriginsUnavailableError extends BaseError {
  override name = 'OriginsUnavailableError'
}
