/**
 * The three GETs every load of the widget makes, defined once: the project's
 * allowed origins, its config and the recommended wallets. The app's calls use
 * these (lib/host/verification.ts, lib/host/projectConfig.ts, explorer.ts);
 * `src/prefetch.ts`, a script of its own, sends the same URLs while the app's
 * JS still downloads and compiles, and the app takes each answer once instead
 * of asking again: whole, for its first render, when it is in by then
 * (`takeArrived`), else as a pending response (`takeEarly`). No zod here, nor in anything this
 * imports: the prefetch script must stay about a kilobyte.
 */
import {
  projectIdPattern,
  recommendedWalletsCount,
  sdkVersionDefault,
} from '@porthole/protocol/Constants'

/** How long a call may take, from sending it to the end of its body (SECURITY.md 17). */
export const requestTimeout = 15_000

/** The SDK type and version every `/getWallets` call names (`st`, `sv`: SPEC.md section 7). */
export const sdkType = 'porthole'
export const sdkVersion = String(sdkVersionDefault)

export type ParamValue = string | number | boolean | readonly string[] | null | undefined
export type Params = Record<string, ParamValue>

/** A GET of the API: its path, params and cache mode (whether it is shared is the caller's call). */
export type ApiGet = { path: string; params: Params; cache?: RequestCache }

/** The project id a widget URL names (`?projectId=`), or `null` when missing or malformed. */
export function readProjectId(search: string): string | null {
  const value = new URLSearchParams(search).get('projectId')
  return value !== null && projectIdPattern.test(value) ? value : null
}

const isEmpty = (value: ParamValue): value is null | undefined | '' =>
  value === undefined ||
  value === null ||
  value === '' ||
  (Array.isArray(value) && value.length === 0)

/** `base` + `path` with the non-empty `params` (lists joined with commas). */
export function urlFor(base: string, path: string, params: Params = {}): URL {
  const url = new URL(`${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`)
  for (const [key, value] of Object.entries(params)) {
    if (isEmpty(value)) continue
    url.searchParams.append(key, Array.isArray(value) ? value.join(',') : String(value))
  }
  return url
}

/** Revalidated on every load (`no-cache`): a cached list never outlives a removed origin. */
export const originsGet = (projectId: string | null): ApiGet => ({
  path: '/projects/v1/origins',
  params: { projectId },
  cache: 'no-cache',
})

export const configGet = (projectId: string | null): ApiGet => ({
  path: '/appkit/v1/config',
  params: { projectId },
})

/** A page of `/getWallets`; a search (`search`) is the visitor's own, so not shared. */
export const walletsGet = (
  projectId: string | null,
  page: { page: number; entries: number; search?: string | undefined },
): ApiGet => ({
  path: '/getWallets',
  params: { projectId, st: sdkType, sv: sdkVersion, ...page },
})

/** What every load asks first. */
export const startupGets = (projectId: string): ApiGet[] => [
  originsGet(projectId),
  walletsGet(projectId, { page: 1, entries: recommendedWalletsCount }),
  configGet(projectId),
]

/**
 * Answers started before the app ran, by URL, each taken once; and the URLs
 * the app has asked for already (an early send of one would only ask twice).
 * `bodies` holds each OK answer's body once it has arrived, so the app's
 * first render can paint from it (`takeArrived`) instead of waiting on the
 * tasks a promise takes. On the widget's window, under a symbol: the prefetch
 * script is a bundle of its own (vite.config.ts), with its own copy of this
 * module. Only the widget's own scripts run in its window.
 */
type Early = {
  answers: Map<string, Promise<Response>>
  bodies: Map<string, string>
  asked: Set<string>
}
const key = Symbol.for('porthole.startup')
const shared = (): Early =>
  ((globalThis as { [key]?: Early })[key] ??= {
    answers: new Map(),
    bodies: new Map(),
    asked: new Set(),
  })

/** Sends `get` now (prefetch entry), unless the app already did; bounded by the request timeout like every call. */
export function sendEarly(base: string, get: ApiGet): void {
  const { answers, bodies, asked } = shared()
  const url = urlFor(base, get.path, get.params).href
  if (asked.has(url)) return
  // The body is read here, within the same timeout: an answer is whole or none.
  const response = fetch(url, {
    ...(get.cache ? { cache: get.cache } : {}),
    signal: AbortSignal.timeout(requestTimeout),
  }).then(async (answer) => {
    const body = await answer.text()
    if (answer.ok && answers.get(url) === response) bodies.set(url, body)
    // An empty body is none (a 204 or 304 may not have one).
    return new Response(body || null, {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
    })
  })
  // Whoever takes it handles a failure; one never taken must not be reported.
  response.catch(() => undefined)
  answers.set(url, response)
}

/** The early answer for `url`, once; then `undefined` (and no early send of it follows). */
export function takeEarly(url: string): Promise<Response> | undefined {
  const { answers, bodies, asked } = shared()
  asked.add(url)
  const response = answers.get(url)
  answers.delete(url)
  bodies.delete(url)
  return response
}

/** Resolves once every early answer not yet taken has settled, or after `limit` ms. */
export function earlyAnswers(limit: number): Promise<void> {
  const pending = Promise.allSettled(shared().answers.values())
  return Promise.race([pending, new Promise((resolve) => setTimeout(resolve, limit))]).then(
    () => undefined,
  )
}

/**
 * `get`'s early answer if it has arrived OK by now, read with `parse` and
 * taken (no request of it follows); else `undefined`, and a pending answer
 * stays for `takeEarly`. Start-up paints its first render from these.
 */
export function takeArrived<value>(
  base: string,
  get: ApiGet,
  parse: (body: unknown) => value,
): value | undefined {
  const url = urlFor(base, get.path, get.params).href
  const body = shared().bodies.get(url)
  if (body === undefined) return undefined
  void takeEarly(url)
  try {
    return parse(JSON.parse(body))
  } catch {
    return undefined
  }
}
