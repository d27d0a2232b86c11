// The codes the protocol's own errors use, as constants a small bundle can take alone.
const userRejected = 4001
const unsupportedMethod = 4200
const disconnected = 4900
const invalidParams = -32602
const internal = -32603

/**
 * Every error code Porthole answers, in one table: EIP-1193 (provider),
 * JSON-RPC 2.0 and EIP-1474 (the RPC proxy), EIP-5792 (wallet calls). A host
 * sees one code per failure everywhere (README, Wallet API).
 */
export const ErrorCode = {
  // EIP-1193
  userRejected,
  unauthorized: 4100,
  unsupportedMethod,
  disconnected,
  chainDisconnected: 4901,
  unknownChain: 4902,
  // JSON-RPC 2.0
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams,
  internal,
  // EIP-1474: a rate limit or a concurrency cap; try again later.
  limitExceeded: -32005,
  // EIP-5792
  unsupportedCapability: 5700,
  duplicateBundleId: 5720,
  unknownBundle: 5730,
  atomicityNotSupported: 5760,
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

export type BaseErrorParameters = {
  /** Extra technical detail, appended to `message` (never shown to users); defaults to the cause's. */
  details?: string | undefined
  /** The underlying error, kept as `cause`. */
  cause?: unknown
}

/**
 * The one root error of Porthole (viem style): every package and app extends
 * it. `shortMessage` is the copy, `details` the technical detail (from the
 * cause when not given); `walk` (below) follows the causes.
 */
export class BaseError extends Error {
  override name = 'PortholeError'
  /** The message without details: what a user or a host may read. */
  readonly shortMessage: string
  readonly details: string | undefined

  constructor(shortMessage: string, { details, cause }: BaseErrorParameters = {}) {
    details ??= cause instanceof BaseError ? cause.details : (cause as Error | undefined)?.message
    super(details ? `${shortMessage}\n\nDetails: ${details}` : shortMessage, { cause })
    this.shortMessage = shortMessage
    this.details = details || undefined
  }
}

/**
 * Follows `error`'s `cause` chain (viem's `walk`, as a function so that the
 * loader, which never walks one, does not ship it). Without `fn`, returns the
 * innermost cause; with `fn`, the first error in the chain it accepts, or `null`.
 */
export function walk(error: unknown, fn?: (error: unknown) => boolean): unknown {
  while (!fn?.(error)) {
    const { cause } = (error ?? {}) as { cause?: unknown }
    if (cause === undefined) return fn ? null : error
    error = cause
  }
  return error
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
    super(userRejected, message)
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

/**
 * 4001 'Request was aborted': the request was withdrawn before anyone decided
 * (EIP-1193: a give-up on the visitor's side, as the approval UI answers).
 * A host's own timeout is a {@link TimeoutError} instead.
 */
export class AbortedError extends UserRejectedError {
  override name = 'AbortedError'
  constructor() {
    super(requestAborted)
  }
}

/**
 * Turns anything thrown into an error that may cross a frame. Our own
 * `RpcError`s pass as they are; anything else becomes -32603 'Something went
 * wrong', so stacks, keys and raw upstream errors never leave the frame.
 */
export function toRpcError(error: unknown): RpcError {
  return error instanceof RpcError ? error : new RpcError(internal, somethingWentWrong)
}

/**
 * The visitor's own wallet (an EIP-1193 provider, or viem's error around
 * one) refused or failed: its code (or its cause's) and its short message,
 * relayed to the host as that wallet would have answered it directly.
 */
export class WalletError extends RpcError {
  override name = 'WalletError'
  constructor(error: unknown) {
    const { code, cause, shortMessage, message } = (error ?? {}) as {
      code?: unknown
      cause?: { code?: unknown } | undefined
      shortMessage?: unknown
      message?: unknown
    }
    const text =
      typeof shortMessage === 'string' ? shortMessage : typeof message === 'string' ? message : ''
    super(
      Number.isSafeInteger(code)
        ? (code as number)
        : Number.isSafeInteger(cause?.code)
          ? (cause?.code as number)
          : internal,
      text.slice(0, 512) || somethingWentWrong,
    )
  }

  /** `error` as the host may see it: our own `RpcError` as it is, else the wallet's answer. */
  static from(error: unknown): RpcError {
    return error instanceof RpcError ? error : new WalletError(error)
  }
}

/** Rebuilds an error received across a frame. */
export function fromRpcErrorShape(shape: RpcErrorShape): RpcError {
  return new RpcError(shape.code, shape.message || frameErrorWithoutMessage, shape.data)
}
