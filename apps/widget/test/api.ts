/**
 * The API as a view's component test sees it: `fetch` answered at the network
 * boundary, by method and path, with the same JSON the API serves. Every part
 * of the widget above `fetch` (its HTTP client, TanStack Query) is the real one.
 */
import type { ProjectConfig, WalletEntry } from '@porthole/protocol/Api'
import { vi } from 'vitest'

export type ApiRequest = { url: URL; method: string; body: unknown }

/** A route's answer: a Response as is, anything else as JSON with status 200. */
export type Route = (request: ApiRequest) => unknown

/** The project's config: Ethereum, with no email or social login (so Connect lists wallets only). */
export const projectConfig: ProjectConfig = {
  features: {
    email: false,
    socials: [],
    onramp: false,
    swaps: false,
    history: false,
    analytics: false,
  },
  networks: ['eip155:1'],
}

/**
 * Routes by `METHOD /path` (the project's config is served unless a route
 * replaces it); a call to any other path gets a 404. `calls` lists them all.
 */
export function serveApi(routes: Record<string, Route>): {
  calls: ApiRequest[]
  callsTo(path: string): ApiRequest[]
} {
  routes = { 'GET /appkit/v1/config': () => projectConfig, ...routes }
  const calls: ApiRequest[] = []
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init)
    const url = new URL(request.url)
    const text = await request.text()
    const call = { url, method: request.method, body: text === '' ? undefined : JSON.parse(text) }
    calls.push(call)
    const route = routes[`${request.method} ${url.pathname}`]
    if (!route)
      return Response.json({ error: { code: 'not_found', message: 'No route' } }, { status: 404 })
    const answer = await route(call)
    return answer instanceof Response ? answer : Response.json(answer)
  })
  return { calls, callsTo: (path) => calls.filter(({ url }) => url.pathname === path) }
}

/** A 500 with the API's error shape. */
export const serverError = () =>
  Response.json({ error: { code: 'internal', message: 'Internal error' } }, { status: 500 })

/** A promise the test settles, for holding an answer while the view shows its loading state. */
export function deferred<value = void>() {
  let resolve!: (value: value) => void
  const promise = new Promise<value>((settle) => {
    resolve = settle
  })
  return { promise, resolve }
}

/** A registry wallet as `/getWallets` lists it: `fields` over no image, rdns, links or badge, on Ethereum. */
export function walletEntry(
  fields: Pick<WalletEntry, 'id' | 'name'> & Partial<WalletEntry>,
): WalletEntry {
  return {
    image_id: null,
    rdns: null,
    chains: ['eip155:1'],
    homepage: null,
    mobile_link: null,
    desktop_link: null,
    webapp_link: null,
    badge_type: null,
    ...fields,
  }
}

/** Registry wallets as `/getWallets` lists them, without images (no request leaves the page). */
export function walletEntries(names: readonly string[]): WalletEntry[] {
  return names.map((name, index) =>
    walletEntry({
      id: `${index + 1}`.padStart(64, '0'),
      name,
      webapp_link: `https://example.com/${index}`,
    }),
  )
}

/** A JSON-RPC error the proxy passes on from the node (-32000: viem does not retry it). */
export class NodeError extends Error {}

/**
 * The API's JSON-RPC proxy (`POST /v1/`): each method's answer from
 * `methods` (a `NodeError` as a JSON-RPC error), else -32601.
 */
export function rpcRoute(methods: Record<string, (params: unknown[]) => unknown>): Route {
  return async ({ body }) => {
    const { id, method, params } = body as { id: number; method: string; params: unknown[] }
    const result = methods[method]
    if (!result) return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }
    const value = await result(params)
    return value instanceof NodeError
      ? { jsonrpc: '2.0', id, error: { code: -32000, message: value.message } }
      : { jsonrpc: '2.0', id, result: value }
  }
}
/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true
