/**
 * The HTTP client of the wallet provider's services (SPEC.md section 7): GET,
 * POST, PUT, DELETE and blob GET. Every call appends a `clientId` query
 * parameter and any non-empty params; a non-OK status throws
 * `HTTP status code: {status}`. Responses are `unknown`: callers parse them.
 */
import { BaseError } from '@porthole/protocol/Errors'
import { apiUrl } from './env.js'
import { getClientId } from './storage.js'

export type ParamValue = string | number | boolean | readonly string[] | null | undefined
export type Params = Record<string, ParamValue>

export type RequestOptions = {
  params?: Params | undefined
  headers?: Record<string, string> | undefined
  signal?: AbortSignal | undefined
}

export type BodyRequestOptions = RequestOptions & { body?: unknown }

/** A non-OK HTTP status. */
export class HttpError extends BaseError {
  override name = 'HttpError'
  readonly status: number

  constructor(status: number) {
    super(`HTTP status code: ${status}`)
    this.status = status
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
}

const isEmpty = (value: ParamValue): value is null | undefined | '' =>
  value === undefined ||
  value === null ||
  value === '' ||
  (Array.isArray(value) && value.length === 0)

export function createApi(parameters: CreateApiParameters): Api {
  const { clientId } = parameters
  const base = parameters.baseUrl.replace(/\/+$/, '')
  const doFetch = parameters.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args))

  const url = (path: string, params: Params = {}) => {
    const result = new URL(`${base}/${path.replace(/^\/+/, '')}`)
    for (const [key, value] of Object.entries(params)) {
      if (isEmpty(value)) continue
      result.searchParams.append(key, Array.isArray(value) ? value.join(',') : String(value))
    }
    result.searchParams.append('clientId', clientId())
    return result.href
  }

  const send = async (method: string, path: string, options: BodyRequestOptions = {}) => {
    const { params, headers, signal, body } = options
    const response = await doFetch(url(path, params), {
      method,
      signal,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    if (!response.ok) {
      // Drain the body so the connection can be reused.
      await response.body?.cancel().catch(() => undefined)
      throw new HttpError(response.status)
    }
    return response
  }

  const json = async (response: Response): Promise<unknown> => {
    const text = await response.text()
    return text === '' ? undefined : JSON.parse(text)
  }

  return {
    url,
    get: async (path, options) => json(await send('GET', path, options)),
    getBlob: async (path, options) => (await send('GET', path, options)).blob(),
    post: async (path, options) => json(await send('POST', path, options)),
    put: async (path, options) => json(await send('PUT', path, options)),
    delete: async (path, options) => json(await send('DELETE', path, options)),
  }
}

/** The widget's client for the API named at build time. */
export const api: Api = createApi({ baseUrl: apiUrl, clientId: () => getClientId() })
