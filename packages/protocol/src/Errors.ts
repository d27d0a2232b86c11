// The codes the protocol's own errors use, as constants a small bundle can take alone.
const unsupportedMethod = 4200
const disconnected = 4900
const invalidParams = -32602
const internal = -32603

/** Error codes that travel across frames: EIP-1193 and JSON-RPC. */
export const ErrorCode = {
  userRejected: 4001,
  unauthorized: 4100,
  unsupportedMethod,
  disconnected,
  chainDisconnected: 4901,
  unknownChain: 4902,
  invalidParams,
  methodNotFound: -32601,
  internal,
} as const
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode]

/** Reasons attached (as `data.reason`) to timeouts, as the seed names them. */
export const TimeoutReason = {
  iframeLoadFailed: 'iframe_load_failed',
  iframeRequestTimeout: 'iframe_request_timeout',
} as const
export type TimeoutReason = (typeof TimeoutReason)[keyof typeof TimeoutReason]

// The messages that travel with protocol errors, as separate constants so a
// bundle that needs only these (the loader) leaves the rest of the copy out.
const requestAborted = 'Request was aborted'
const somethingWentWrong = 'Something went wrong'
const frameErrorWithoutMessage = 'An error occurred'

/** User-facing copy of the seed's catalogue (shared/SPEC.md section 8). */
export const ErrorMessage = {
  requestAborted,
  somethingWentWrong,
  frameErrorWithoutMessage,
  rpcNotAllowed: 'Requested RPC call is not allowed',
  rpcNotAllowedUi: 'Action not allowed',
  iframeNotSet: 'W3mFrame: iframe is not set',
  parentNotSet: 'W3mFrame: parent is not set',
} as const

export type BaseErrorParameters = { details?: string | undefined; cause?: unknown }

/** The package's root error: a short message, optional details and cause. */
export class BaseError extends Error {
  override name = 'PortholeError'
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

/** The only error shape that crosses a frame: `{ code, message, data? }`. */
export type RpcErrorShape = { code: number; message: string; data?: unknown }

/** An error with an EIP-1193 / JSON-RPC code, as seen by the host's provider. */
export class RpcError extends BaseError {
  override name = 'RpcError'
  readonly code: number
  readonly data: unknown

  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.code = code
    this.data = data
  }

  toJSON(): RpcErrorShape {
    return this.data === undefined
      ? { code: this.code, message: this.shortMessage }
      : { code: this.code, message: this.shortMessage, data: this.data }
  }
}

export class UserRejectedError extends RpcError {
  override name = 'UserRejectedError'
  constructor(message = 'User rejected the request.') {
    super(ErrorCode.userRejected, message)
  }
}

export class DisconnectedError extends RpcError {
  override name = 'DisconnectedError'
  constructor(message = 'The provider is disconnected.') {
    super(disconnected, message)
  }
}

export class UnsupportedMethodError extends RpcError {
  override name = 'UnsupportedMethodError'
  constructor(method: string) {
    super(unsupportedMethod, `Unsupported method: ${method}`)
  }
}

export class InvalidParamsError extends RpcError {
  override name = 'InvalidParamsError'
  constructor(message = 'Invalid parameters.') {
    super(invalidParams, message)
  }
}

export class TimeoutError extends RpcError {
  override name = 'TimeoutError'
  constructor(reason: TimeoutReason, message = 'The request timed out.') {
    super(internal, message, { reason })
  }
}

export class AbortedError extends RpcError {
  override name = 'AbortedError'
  constructor() {
    super(internal, requestAborted)
  }
}

/**
 * Converts anything thrown into the shape allowed across frames. Only our own
 * `RpcError`s keep their message; anything else becomes 'Something went wrong',
 * so stacks, keys and raw upstream errors never leave the frame.
 */
export function toRpcErrorShape(error: unknown): RpcErrorShape {
  if (error instanceof RpcError) return error.toJSON()
  return { code: internal, message: somethingWentWrong }
}

/** Rebuilds an error received across a frame. */
export function fromRpcErrorShape(shape: RpcErrorShape): RpcError {
  return new RpcError(shape.code, shape.message || frameErrorWithoutMessage, shape.data)
}
