/**
 * The frame's calls to the API (`Embedded.ts`, the embedded wallet's HTTP
 * wire) and to its JSON-RPC proxy. Every call carries `?projectId=`; calls
 * for a session carry `Authorization: Bearer <token>`. Every answer is parsed
 * with its strict schema before anything uses it (SECURITY.md 18). A refusal
 * becomes an `ApiError` carrying the API's own message word for word (e.g.
 * 'Please try again after 12 seconds'), which is what crosses to the widget.
 */
import { ErrorBody } from '@porthole/protocol/Api'
import * as Embedded from '@porthole/protocol/Embedded'
import { ErrorCode, RpcError } from '@porthole/protocol/Errors'
import { z } from '@porthole/protocol/zod'
import { UpstreamError } from './errors.js'
import { solveProofOfWork } from './proofOfWork.js'

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>

/**
 * An API refusal or failure: `{ code, message, data: { status, code } }`
 * across frames, with the API's message. 401 and 403 are 4100
 * (unauthorized), 400 is -32602 (invalid params), anything else -32603.
 */
export class ApiError extends RpcError {
  override name = 'ApiError'
  /** The HTTP status; 0 when the API could not be reached or answered nonsense. */
  readonly status: number
  /** The API's error code, e.g. `no_wallet`, `wallet_exists`, `rate_limited`. */
  readonly apiCode: string

  constructor(status: number, apiCode: string, message: string) {
    super(toErrorCode(status), message, { status, code: apiCode })
    this.status = status
    this.apiCode = apiCode
  }
}

function toErrorCode(status: number): number {
  if (status === 401 || status === 403) return ErrorCode.unauthorized
  if (status === 400) return ErrorCode.invalidParams
  return ErrorCode.internal
}

/** Whether `error` is the API's answer with this status (and code, when given). */
export function isApiError(error: unknown, status: number, apiCode?: string): error is ApiError {
  return (
    error instanceof ApiError &&
    error.status === status &&
    (apiCode === undefined || error.apiCode === apiCode)
  )
}

export const unreachableMessage = 'The server could not be reached; check your connection'

export type CreateApiParameters = {
  apiUrl: string
  projectId: string
  fetch?: Fetch | undefined
}

type Call = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  path: string
  query?: Record<string, string> | undefined
  token?: string | undefined
  body?: unknown
  signal?: AbortSignal | undefined
}

const Empty = z.unknown()
const maxResponseChars = 1_000_000

/** A JSON-RPC answer as the proxy passes it on from the node (extra keys are the node's). */
const RpcAnswer = z.union([
  z.object({ result: z.unknown() }),
  z.object({
    error: z.object({
      code: z.number().check(z.int()),
      message: z.string().check(z.maxLength(2048)),
      data: z.optional(z.unknown()),
    }),
  }),
])

export type Api = ReturnType<typeof createApi>

export function createApi({
  apiUrl,
  projectId,
  // Called through globalThis: a detached `fetch` throws 'Illegal invocation' in some browsers.
  fetch = (input, init) => globalThis.fetch(input, init),
}: CreateApiParameters) {
  const base = apiUrl.replace(/\/+$/, '')

  const send = async (call: Call): Promise<{ status: number; json: unknown }> => {
    const url = new URL(`${base}${call.path}`)
    url.searchParams.set('projectId', projectId)
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value)
    const headers: Record<string, string> = { accept: 'application/json' }
    if (call.token) headers.authorization = `Bearer ${call.token}`
    // Every call that changes something says JSON, body or not: the API refuses
    // any other type there (SECURITY.md 21), and a browser preflights it.
    if (call.body !== undefined || call.method !== 'GET')
      headers['content-type'] = 'application/json'
    let response: Response
    let text: string
    try {
      response = await fetch(url.toString(), {
        method: call.method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        credentials: 'omit',
        cache: 'no-store',
        redirect: 'error',
        referrerPolicy: 'no-referrer',
        signal: call.signal,
      })
      text = await response.text()
    } catch (cause) {
      if (call.signal?.aborted) throw cause
      throw new ApiError(0, 'unreachable', unreachableMessage)
    }
    let json: unknown
    try {
      json = text === '' ? undefined : text.length > maxResponseChars ? null : JSON.parse(text)
    } catch {
      json = null
    }
    return { status: response.status, json }
  }

  /** A call answered with 2xx and `schema`; anything else throws an `ApiError`. */
  const request = async <schema extends z.ZodMiniType>(
    call: Call,
    schema: schema,
  ): Promise<z.output<schema>> => {
    const { status, json } = await send(call)
    return answer(status, json, schema)
  }

  /**
   * A mail request (login, email change): when the project's mail budget is
   * spent the API answers 428 with a proof-of-work challenge; the frame
   * solves it here, in the visitor's browser, and sends the same request
   * again with `proofOfWork` once (SECURITY.md 22).
   */
  const requestWithWork = async <schema extends z.ZodMiniType>(
    call: Call & { body: Record<string, unknown> },
    schema: schema,
  ): Promise<z.output<schema>> => {
    const { status, json } = await send(call)
    const required = status === 428 ? Embedded.ProofOfWorkRequired.safeParse(json) : undefined
    if (!required?.success) return answer(status, json, schema)
    const { challenge, difficulty } = required.data.proofOfWork
    let nonce: string
    try {
      nonce = await solveProofOfWork(challenge, difficulty, { signal: call.signal })
    } catch (cause) {
      if (call.signal?.aborted) throw cause
      throw new ApiError(428, 'proof_of_work_required', required.data.error.message)
    }
    return request({ ...call, body: { ...call.body, proofOfWork: { challenge, nonce } } }, schema)
  }

  /**
   * A login collected by polling: `undefined` while 202 pending, then the
   * login result, or the step the account's email must take first (SECURITY.md 23).
   */
  const loginResult = async (
    path: string,
    body: unknown,
    signal: AbortSignal | undefined,
  ): Promise<Embedded.IdentityLoginResponse | undefined> => {
    const { status, json } = await send({ method: 'POST', path, body, signal })
    if (status === 202) {
      if (Embedded.SocialPending.safeParse(json).success) return undefined
      throw new ApiError(0, 'invalid_response', invalidResponse(status))
    }
    if (status < 200 || status > 299) throw toApiError(status, json)
    const parsed = Embedded.IdentityLoginResponse.safeParse(json)
    if (!parsed.success) throw new ApiError(0, 'invalid_response', invalidResponse(status))
    return parsed.data
  }

  return {
    /** The API's base URL (no trailing slash): where its pages, e.g. a social login's done page, are. */
    apiUrl: base,
    /** `POST /auth/v1/login/email`: mails a code or a device approval link; VERIFY_OTP either way. */
    loginEmail: (body: z.input<typeof Embedded.EmailLoginRequest>) =>
      requestWithWork(
        { method: 'POST', path: '/auth/v1/login/email', body },
        Embedded.EmailLoginResponse,
      ),
    /** `POST /auth/v1/device/status`: whether the approval link for this device was followed. */
    deviceStatus: (body: z.input<typeof Embedded.DeviceStatusRequest>, signal?: AbortSignal) =>
      request(
        { method: 'POST', path: '/auth/v1/device/status', body, signal },
        Embedded.DeviceStatusResponse,
      ),
    /** `POST /auth/v1/login/email/verify`: the code; a session for this device. */
    verifyEmail: (body: z.input<typeof Embedded.EmailVerifyRequest>) =>
      request({ method: 'POST', path: '/auth/v1/login/email/verify', body }, Embedded.LoginResult),
    /** `GET /auth/v1/session`: the session's user; 401 once it has ended. */
    getSession: (token: string) =>
      request({ method: 'GET', path: '/auth/v1/session', token }, Embedded.SessionResponse),
    /** `DELETE /auth/v1/session`: signs out. */
    deleteSession: async (token: string): Promise<void> => {
      await request({ method: 'DELETE', path: '/auth/v1/session', token }, Empty)
    },
    /** `GET /wallet/v1/shares[?recovery=true]`: 404 `no_wallet` while the user has none. */
    getShares: (token: string, options: { recovery?: boolean } = {}) =>
      request(
        {
          method: 'GET',
          path: '/wallet/v1/shares',
          token,
          query: options.recovery ? { recovery: 'true' } : undefined,
        },
        Embedded.SharesResponse,
      ),
    /** `PUT /wallet/v1/shares`: a new wallet's server shares, once (409 `wallet_exists` after). */
    putShares: async (
      token: string,
      body: z.input<typeof Embedded.PutSharesRequest>,
    ): Promise<void> => {
      await request({ method: 'PUT', path: '/wallet/v1/shares', token, body }, Empty)
    },
    /** `POST /auth/v1/email/update` (solving a proof of work first when the API asks for one). */
    updateEmail: (token: string, body: z.input<typeof Embedded.UpdateEmailRequest>) =>
      requestWithWork(
        { method: 'POST', path: '/auth/v1/email/update', token, body },
        Embedded.UpdateEmailResponse,
      ),
    /** `POST /auth/v1/email/update/primary`: the code sent to the current address. */
    updateEmailPrimary: async (
      token: string,
      body: z.input<typeof Embedded.UpdateEmailOtpRequest>,
    ): Promise<void> => {
      await request(
        { method: 'POST', path: '/auth/v1/email/update/primary', token, body },
        z.optional(Embedded.UpdateEmailResponse),
      )
    },
    /** `POST /auth/v1/email/update/secondary`: the code sent to the new address. */
    updateEmailSecondary: (token: string, body: z.input<typeof Embedded.UpdateEmailOtpRequest>) =>
      request(
        { method: 'POST', path: '/auth/v1/email/update/secondary', token, body },
        Embedded.UpdateEmailSecondaryResponse,
      ),
    /** `POST /auth/v1/social/start`: the provider's authorization URL. */
    socialStart: (body: z.input<typeof Embedded.SocialStartRequest>) =>
      request(
        { method: 'POST', path: '/auth/v1/social/start', body },
        Embedded.SocialStartResponse,
      ),
    /**
     * `POST /auth/v1/social/result` `{ state, deviceId, claim }`: `pending`
     * (202) until the provider has answered, then the login, for the claim of
     * the login's done page only (403 `claim_mismatch` otherwise).
     */
    socialResult: (body: z.input<typeof Embedded.SocialResultRequest>, signal?: AbortSignal) =>
      loginResult('/auth/v1/social/result', body, signal),
    /** `POST /auth/v1/farcaster/start`: the Farcaster relay's https link for this state and device. */
    farcasterStart: (body: z.input<typeof Embedded.FarcasterStartRequest>) =>
      request(
        { method: 'POST', path: '/auth/v1/farcaster/start', body },
        Embedded.FarcasterStartResponse,
      ),
    /**
     * `POST /auth/v1/farcaster/result`: `pending` (202) until the Farcaster
     * app has signed, then the login (403 `farcaster_invalid` when the
     * signature does not verify, 502 while the relay cannot be reached).
     */
    farcasterResult: (
      body: z.input<typeof Embedded.FarcasterResultRequest>,
      signal?: AbortSignal,
    ) => loginResult('/auth/v1/farcaster/result', body, signal),
    /**
     * One JSON-RPC call through the proxy (`POST /v1/?chainId=&projectId=`):
     * the node's result, or its error as an `RpcError` with the node's code and message.
     */
    rpc: async (chainId: string, method: string, params?: unknown): Promise<unknown> => {
      const { status, json } = await send({
        method: 'POST',
        path: '/v1/',
        query: { chainId },
        body: { jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) },
      })
      const answer = RpcAnswer.safeParse(json)
      if (!answer.success) throw new ApiError(status, 'rpc_error', invalidResponse(status))
      if ('error' in answer.data) {
        const { code, message, data } = answer.data.error
        throw new UpstreamError(code, message, data)
      }
      return answer.data.result
    },
  }
}

/** A 2xx answer parsed with `schema`; anything else throws an `ApiError`. */
function answer<schema extends z.ZodMiniType>(
  status: number,
  json: unknown,
  schema: schema,
): z.output<schema> {
  if (status < 200 || status > 299) throw toApiError(status, json)
  const parsed = schema.safeParse(json)
  if (!parsed.success) throw new ApiError(0, 'invalid_response', invalidResponse(status))
  return parsed.data
}

function invalidResponse(status: number): string {
  return `The server sent an unexpected answer (HTTP ${status})`
}

/** The API's `{ error: { code, message } }`, or SPEC 7's 'HTTP status code: {status}' without one. */
function toApiError(status: number, json: unknown): ApiError {
  const body = ErrorBody.safeParse(json)
  if (body.success) return new ApiError(status, body.data.error.code, body.data.error.message)
  const work = Embedded.ProofOfWorkRequired.safeParse(json)
  if (work.success) return new ApiError(status, work.data.error.code, work.data.error.message)
  return new ApiError(status, 'http_error', `HTTP status code: ${status}`)
}
