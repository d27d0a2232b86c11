export type BaseErrorParameters = { details?: string | undefined; cause?: unknown }

/** The API's root error: a short message, optional details and cause. */
export class BaseError extends Error {
  override name = 'PortholeApiError'
  readonly shortMessage: string
  readonly details: string | undefined

  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    super(parameters.details ? `${shortMessage}\n\nDetails: ${parameters.details}` : shortMessage, {
      cause: parameters.cause,
    })
    this.shortMessage = shortMessage
    this.details = parameters.details
  }
}

/** Bad configuration (environment variables); the message names the variable. */
export class ConfigError extends BaseError {
  override name = 'ConfigError'
}

/** An allowed-origin pattern that may not be stored (SECURITY.md 5). */
export class InvalidOriginError extends BaseError {
  override name = 'InvalidOriginError'
}

/** A project command that cannot be carried out (unknown id, duplicate id, bad input). */
export class ProjectError extends BaseError {
  override name = 'ProjectError'
}

/** The PGlite data directory is in use by another live process. */
export class DatabaseLockedError extends BaseError {
  override name = 'DatabaseLockedError'
}

export type HttpErrorStatus = 400 | 403 | 404 | 413 | 429 | 500 | 502 | 503 | 504

/**
 * An error answered to an HTTP client as `{ error: { code, message } }`.
 * `message` is written for the caller: never a stack, a secret or an upstream's raw error.
 */
export class HttpError extends BaseError {
  override name = 'HttpError'
  readonly status: HttpErrorStatus
  readonly code: string
  readonly headers: Record<string, string>

  constructor(
    status: HttpErrorStatus,
    code: string,
    message: string,
    parameters: BaseErrorParameters & { headers?: Record<string, string> } = {},
  ) {
    super(message, parameters)
    this.status = status
    this.code = code
    this.headers = parameters.headers ?? {}
  }
}
