/**
 * The HTTP client of the wallet provider's services (SPEC.md section 7): GET,
 * POST, PUT, DELETE and blob GET. Every call appends a `clientId` query
 * parameter and any non-empty params; a non-OK status throws
 * `HTTP status code: {status}`. Responses are `unknown`: callers parse them.
 * No call waits forever (SECURITY.md 17): each gives up after
 * `requestTimeout`, body included.
 */
import { ErrorBody } from '@porthole/protocol/Api'
import { BaseError } from '@porthole/protocol/Errors'
import { apiUrl } from '../env.js'
import { type Params, requestTimeout, takeEarly, urlFor } from '../startup.js'
import { getClientId } from './storage.js'

export { type Params, type ParamValue, requestTimeout } from '../startup.js'

export type RequestOptions = {
  params?: Params | undefined
  headers?: Record<string, string> | undefined
  signal?: AbortSignal | undefined
  /**
   * An answer the same for every visitor (origins, config, wallets): sent
   * without the client id, so one cached copy (a CDN's, the browser's) serves all.
   */
  shared?: boolean | undefined
  /** The browser cache's mode for this call (`no-cache`: always revalidated). */
  cache?: RequestCache | undefined
}

export type BodyRequestOptions = RequestOptions & { body?: unknown }

/** A non-OK HTTP status. */
export class HttpError extends BaseError {
  override name = 'HttpError'
  readonly status: number
  /** The API's error code, when the body is its error shape (`{ error: { code, message } }`). */
  readonly code: string | undefined

  constructor(status: number, code?: string | undefined) {
    super(`HTTP status code: ${status}`)
    this.status = status
    this.code = code
  }
}

/** The API did not answer (headers and body) within the request timeout. */
export class RequestTimeoutError extends BaseError {
  override name = 'RequestTimeoutError'
  readonly timeout: number

  constructor(timeout: number, options: { cause?: unknown } = {}) {
    super(`The request timed out after ${timeout} ms`, { cause: options.cause })
    this.timeout = timeout
  }
}

export type Api = {
  url(path: string, params?: Params): string
  get(path: string, options?: RequestOptions): Promise<unknown>
  getBlob(path: string, options?: RequestOptions): Promise<Blob>
  post(path: string, options?: BodyRequestOptions): Promise<unknown>
  put(path: string, options?: BodyRequestOptions): Promise<unknown>
  delete(path: string, options?: BodyRequestOptions): Promise<unknown>
}

export type CreateApiParameters = {
  baseUrl: string
  clientId: () => string
  fetch?: typeof fetch | undefined
  /** Milliseconds before a call gives up; `requestTimeout` by default. */
  timeout?: number | undefined
}

export function createApi(parameters: CreateApiParameters): Api {
  const { clientId, timeout = requestTimeout } = parameters
  const base = parameters.baseUrl
  const doFetch = parameters.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args))

  const url = (path: string, params: Params = {}, shared = false) => {
    const result = urlFor(base, path, params)
    if (!shared) result.searchParams.append('clientId', clientId())
    return result.href
  }

  /** Sends a call and reads its response with `read`, both within the timeout (or the caller's abort). */
  const send = async <result>(
    method: string,
    path: string,
    options: BodyRequestOptions,
    read: (response: Response) => Promise<result>,
  ): Promise<result> => {
    const { params, headers, signal, body, shared, cache } = options
    const deadline = AbortSignal.timeout(timeout)
    const href = url(path, params, shared)
    // A start-up GET the prefetch script sent already (lib/startup.ts): its
    // answer, once. It carries the same timeout of its own.
    const early = method === 'GET' && shared ? takeEarly(href) : undefined
    try {
      const response = await (early ??
        doFetch(href, {
          method,
          ...(cache ? { cache } : {}),
          signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
          // Every call that changes something says JSON, body or not: the API refuses
          // any other type there (SECURITY.md 21), and a browser preflights it.
          headers:
            body === undefined && method === 'GET'
              ? headers
              : { 'content-type': 'application/json', ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        }))
      if (!response.ok) throw new HttpError(response.status, await errorCode(response))
      return await read(response)
    } catch (error) {
      // The deadline, or an early answer's own (it started sooner).
      const timedOut =
        deadline.aborted || (early !== undefined && (error as Error)?.name === 'TimeoutError')
      if (timedOut && !signal?.aborted) throw new RequestTimeoutError(timeout, { cause: error })
      throw error
    }
  }

  return {
    url,
    get: (path, options = {}) => send('GET', path, options, json),
    getBlob: (path, options = {}) => send('GET', path, options, (response) => response.blob()),
    post: (path, options = {}) => send('POST', path, options, json),
    put: (path, options = {}) => send('PUT', path, options, json),
    delete: (path, options = {}) => send('DELETE', path, options, json),
  }
}

async function json(response: Response): Promise<unknown> {
  const text = await response.text()
  return text === '' ? undefined : JSON.parse(text)
}

/** The error code of a non-OK response's body, when it is the API's error shape (which also drains it). */
async function errorCode(response: Response): Promise<string | undefined> {
  try {
    const parsed = ErrorBody.safeParse(JSON.parse(await response.text()))
    return parsed.success ? parsed.data.error.code : undefined
  } catch {
    return undefined
  }
}

/** The widget's client for the API named at build time. */
export const api: Api = createApi({ baseUrl: apiUrl, clientId: () => getClientId() })
