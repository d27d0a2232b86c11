/**
 * The project's allowed host origins, from `GET {apiUrl}/projects/v1/origins`,
 * cached per project for a short time. Fails closed: an unknown project and an
 * unreachable or misbehaving API both throw, and neither is cached.
 */
import { OriginsResponse, projectIdPattern } from '@porthole/protocol/Api'
import { OriginsUnavailableError, UnknownProjectError } from '../src/lib/errors.js'

/** Most characters of JSON read from the API; `Api.OriginsResponse` needs far fewer. */
const maxBodyLength = 512 * 1024

export type AllowedOriginsCacheOptions = {
  /** The API's base URL as this server reaches it, e.g. `http://127.0.0.1:5173`. */
  apiUrl: string
  /** How long a project's list is reused; 30 s by default. */
  ttlMs?: number | undefined
  /** How long one request to the API may take; 5 s by default. */
  timeoutMs?: number | undefined
  /** Most projects kept; the oldest is dropped first. */
  maxProjects?: number | undefined
}

export type AllowedOriginsCache = {
  /** The project's raw allowed-origin entries (validated later, by `toHostSources`). */
  get(projectId: string): Promise<string[]>
}

/**
 * Parses the API's answer with the shared strict schema (`Api.OriginsResponse`:
 * no other key, at most 100 entries of at most 300 characters); `undefined`
 * for anything else.
 */
export function parseOriginsBody(body: unknown): string[] | undefined {
  const parsed = OriginsResponse.safeParse(body)
  return parsed.success ? parsed.data.allowedOrigins : undefined
}

export function createAllowedOriginsCache(
  options: AllowedOriginsCacheOptions,
): AllowedOriginsCache {
  const { ttlMs = 30_000, timeoutMs = 5_000, maxProjects = 1_000 } = options
  const base = options.apiUrl.replace(/\/+$/, '')
  const cache = new Map<string, { expires: number; origins: string[] }>()
  const inflight = new Map<string, Promise<string[]>>()

  const load = async (projectId: string): Promise<string[]> => {
    const url = `${base}/projects/v1/origins?${new URLSearchParams({ projectId })}`
    let response: Response
    let text: string
    try {
      response = await fetch(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      })
      text = await response.text()
    } catch (error) {
      throw new OriginsUnavailableError('The API could not be reached', { cause: error })
    }
    if (response.status === 400 || response.status === 403 || response.status === 404)
      throw new UnknownProjectError(`Unknown project '${projectId}'`, {
        details: `HTTP status code: ${response.status}`,
      })
    if (!response.ok)
      throw new OriginsUnavailableError('The API failed', {
        details: `HTTP status code: ${response.status}`,
      })
    let body: unknown
    try {
      body = text.length <= maxBodyLength ? JSON.parse(text) : undefined
    } catch {
      body = undefined
    }
    const origins = parseOriginsBody(body)
    if (!origins) throw new OriginsUnavailableError('The API answered an unexpected body')
    return origins
  }

  return {
    async get(projectId) {
      if (!projectIdPattern.test(projectId))
        throw new UnknownProjectError('The project id is not valid')
      const cached = cache.get(projectId)
      if (cached && cached.expires > Date.now()) return cached.origins
      cache.delete(projectId)
      const running = inflight.get(projectId)
      if (running) return running
      const loading = load(projectId)
        .then((origins) => {
          cache.set(projectId, { expires: Date.now() + ttlMs, origins })
          for (const key of cache.keys()) {
            if (cache.size <= maxProjects) break
            cache.delete(key)
          }
          return origins
        })
        .finally(() => inflight.delete(projectId))
      inflight.set(projectId, loading)
      return loading
    },
  }
}
