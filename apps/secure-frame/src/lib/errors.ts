/**
 * The secure frame's errors. The server's are `BaseError`s; what the frame
 * answers the widget are `RpcError`s (protocol), the only errors whose
 * `{ code, message }` cross a frame as they are (anything else becomes
 * 'Something went wrong').
 */
import {
  type BaseErrorParameters,
  ErrorCode,
  ErrorMessage,
  BaseError as ProtocolBaseError,
  RpcError,
} from '@porthole/protocol/Errors'

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

/** Something other than an `Error` was thrown: its text is the message. */
export class UnknownError extends BaseError {
  override name = 'UnknownError'
  constructor(thrown: unknown) {
    super(String(thrown))
  }
}

/** `error` if it is an `Error`, else an `UnknownError` saying what was thrown. */
export function toError(error: unknown): Error {
  return error instanceof Error ? error : new UnknownError(error)
}

/** The allowed origins could not be loaded: the API is down, slow, or answered something unexpected. */
export class OriginsUnavailableError extends BaseError {
  override name = 'OriginsUnavailableError'
}

/** 4100: the request needs a logged-in user and there is none (or the session ended). */
export class NotLoggedInError extends RpcError {
  override name = 'NotLoggedInError'
  constructor(message = 'The user is not logged in') {
    super(ErrorCode.unauthorized, message)
  }
}

/** 4200: a feature of the contract this frame does not offer yet. */
export class NotAvailableError extends RpcError {
  override name = 'NotAvailableError'
  constructor(message: string) {
    super(ErrorCode.unsupportedMethod, message)
  }
}

/** 4200 'Requested RPC call is not allowed': the method is on neither RPC list (SPEC 6). */
export class RpcNotAllowedError extends RpcError {
  override name = 'RpcNotAllowedError'
  constructor() {
    super(ErrorCode.unsupportedMethod, ErrorMessage.rpcNotAllowed)
  }
}

/** The wallet the shares rebuild is not the user's: the frame refuses to use or keep it. */
export class WalletMismatchError extends RpcError {
  override name = 'WalletMismatchError'
  constructor(message = 'The key shares do not rebuild this account; nothing was changed') {
    super(ErrorCode.internal, message)
  }
}

/** The node's own error for a call through the API's RPC proxy: its code, message and data, relayed. */
export class UpstreamError extends RpcError {
  override name = 'UpstreamError'
}

/** -32603: the network answered something that is not what was asked for (`what`: a nonce, a receipt, …). */
export class UnexpectedAnswerError extends RpcError {
  override name = 'UnexpectedAnswerError'
  constructor(what: string) {
    super(ErrorCode.internal, `The network answered an unexpected ${what}`)
  }
}

/** -32603: the network took a signed transaction but answered no hash for it. */
export class NoTransactionHashError extends RpcError {
  override name = 'NoTransactionHashError'
  constructor() {
    super(ErrorCode.internal, 'The network answered no transaction hash')
  }
}

/** -32603: the site asked for EIP-1559 fees on a network whose blocks have no base fee. */
export class Eip1559NotSupportedError extends RpcError {
  override name = 'Eip1559NotSupportedError'
  constructor() {
    super(ErrorCode.internal, 'This network does not take EIP-1559 transactions')
  }
}

/** 4901: an EVM method asked for on a network of another namespace. */
export class ChainDisconnectedError extends RpcError {
  override name = 'ChainDisconnectedError'
  constructor(method: string, chainId: string) {
    super(ErrorCode.chainDisconnected, `${method} is not available on ${chainId}`)
  }
}

/** 4902: a network this frame does not offer. */
export class UnsupportedChainError extends RpcError {
  override name = 'UnsupportedChainError'
  constructor() {
    super(ErrorCode.unknownChain, 'Unsupported chain')
  }
}

/** IndexedDB cannot be used (it did not open, is blocked, or a request failed): the storage falls back to memory. */
export class StorageUnavailableError extends BaseError {
  override name = 'StorageUnavailableError'
}

/** A token's details did not arrive in time: the approval shows its raw units instead. */
export class TokenReadTimeoutError extends BaseError {
  override name = 'TokenReadTimeoutError'
  constructor() {
    super('timed out')
  }
}
