import { type BaseErrorParameters, BaseError as ProtocolBaseError } from '@porthole/protocol/Errors'

export type { BaseErrorParameters }

/**
 * The API's root error: the protocol's `BaseError` (a short message, optional
 * details and cause) under the API's name, so `instanceof BaseError` still
 * tells the API's own errors apart.
 */
export class BaseError extends ProtocolBaseError {
  override name = 'PortholeApiError'
}

/** Bad configuration (environment variables); the message names the variable. */
export class ConfigError extends BaseError {
  override name = 'ConfigError'
}

/** An allowed-origin pattern that may not be stored (SECURITY.md 5). */
export class InvalidOriginError extends BaseError {
  override name = 'InvalidOriginError'
}

/**
 * A project's stored list holds only patterns that could not have been saved
 * (written by raw SQL, say). Served as a bare 500: an empty list would mean
 * the dev defaults, and the project asked for other hosts (SECURITY.md 5).
 */
export class StoredOriginsError extends BaseError {
  override name = 'StoredOriginsError'
}

/** A project network that may not be stored: not a CAIP-2 id, or not a network Porthole knows. */
export class InvalidNetworkError extends BaseError {
  override name = 'InvalidNetworkError'
}

/** A project command that cannot be carried out (unknown id, duplicate id, bad input). */
export class ProjectError extends BaseError {
  override name = 'ProjectError'
}

/** The wallet registry shipped with the API is malformed. */
export class RegistryError extends BaseError {
  override name = 'RegistryError'
}

/** The PGlite data directory is in use by another live process. */
export class DatabaseLockedError extends BaseError {
  override name = 'DatabaseLockedError'
}

/**
 * A sign-in signature could not be checked: the chain's RPC upstream failed
 * or timed out (contract wallets are checked on chain). Neither valid nor invalid.
 */
export class SignatureCheckError extends BaseError {
  override name = 'SignatureCheckError'
}

export type HttpErrorStatus =
  | 400
  | 401
  | 403
  | 404
  | 409
  | 410
  | 413
  | 415
  | 428
  | 429
  | 500
  | 502
  | 503
  | 504

/**
 * An error answered to an HTTP client as `{ error: { code, message } }`.
 * `message` is written for the caller: never a stack, a secret or an upstream's raw error.
 */
export class HttpError extends BaseError {
  override name = 'HttpError'
  readonly status: HttpErrorStatus
  readonly code: string
  readonly headers: Record<string, string>
  /** More top-level fields of the body, beside `error` (e.g. a proof-of-work challenge). */
  readonly extra: Record<string, unknown>

  constructor(
    status: HttpErrorStatus,
    code: string,
    message: string,
    parameters: BaseErrorParameters & {
      headers?: Record<string, string>
      extra?: Record<string, unknown>
    } = {},
  ) {
    super(message, parameters)
    this.status = status
    this.code = code
    this.headers = parameters.headers ?? {}
    this.extra = parameters.extra ?? {}
  }
}

/** Mail could not be sent (SMTP down or refusing); the message names no address and no content. */
export class MailError extends BaseError {
  override name = 'MailError'
}

/**
 * A stored recovery share cannot be decrypted: its key is not configured
 * (`SHARE_ENCRYPTION_KEY`, `SHARE_ENCRYPTION_PREVIOUS_KEYS`) or it fails
 * authentication. The message names the key id, never a key or a share.
 */
export class ShareKeyError extends BaseError {
  override name = 'ShareKeyError'
}

/**
 * An OAuth provider failed: discovery, the code exchange or the profile
 * request. The message names the provider and the step, never a code, a
 * token or a secret.
 */
export class OAuthProviderError extends BaseError {
  override name = 'OAuthProviderError'
}

/** A `TRUSTED_PROXIES` entry that is not an IP address or a CIDR range. */
export class InvalidTrustedProxyError extends BaseError {
  override name = 'InvalidTrustedProxyError'
}

/** A login's user could be neither created nor found (a concurrent change in between). */
export class UserNotCreatedError extends BaseError {
  override name = 'UserNotCreatedError'
  constructor() {
    super('a new user could not be created')
  }
}

/**
 * An OAuth provider answered something the login cannot use (no ID token, an
 * HTTP error, an empty subject). Its name is what the log line of
 * {@link OAuthProviderError} shows.
 */
export class UnusableProviderAnswerError extends BaseError {
  override name = 'UnusableProviderAnswerError'
}
