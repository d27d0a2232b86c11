/** The secure frame server's errors (the browser side only speaks `{ code, message }`). */
import { type BaseErrorParameters, BaseError as ProtocolBaseError } from '@porthole/protocol/Errors'

export type BaseErrorOptions = BaseErrorParameters

/**
 * The secure frame's root error: the protocol's `BaseError` (a short message,
 * optional details and cause) under the frame's name.
 */
export class BaseError extends ProtocolBaseError {
  override name = 'SecureFrameError'
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
