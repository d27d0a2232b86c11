/**
 * No cross-site requests (SECURITY.md 21): every endpoint a browser calls to
 * change something is listed here with the one origin that calls it and the
 * body it takes, and one middleware refuses anything else before a route
 * runs, so a refused request has no effect at all (no mail, no row):
 *
 * - an `Origin` that is not exactly the caller's (missing, `null`, another
 *   site, another port): 403 `origin_not_allowed`;
 * - a JSON endpoint called without `Content-Type: application/json`: 415
 *   `unsupported_media_type`. That type is not CORS-safelisted, so a browser
 *   sends it to another origin only after a preflight, which only
 *   `CORS_ORIGINS` pass; a page cannot send it with a form or a no-cors fetch.
 *   Calls without a body (a DELETE, `POST /siwx/nonce`) carry it too.
 *
 * Callers: the secure frame (`SECURE_FRAME_ORIGIN`) for the embedded wallet,
 * the widget (`WIDGET_ORIGIN`) for sign-in with X and analytics, and the
 * API's own device-approval page (the origin of `PUBLIC_API_URL`), whose
 * button posts a form.
 *
 * Left out on purpose, each for its reason: `POST /auth/v1/social/callback`
 * (a provider's top-level form post, `response_mode=form_post`, from the
 * provider's site; bound to its login by the OAuth state, PKCE and the
 * one-time claim), `POST /v1/` (the JSON-RPC proxy, read-only or relaying
 * transactions signed elsewhere; its abuse limits come with the next issue)
 * and every GET. `crossSite.test.ts` checks that every POST, PUT and DELETE
 * route of the app is in one list or the other.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { Config } from './config.js'
import { htmlPage } from './pages.js'
import { errorBody } from './request.js'

/** Who calls an endpoint from a browser. */
export type Caller = 'secureFrame' | 'widget' | 'apiPage'

/** What an endpoint's request carries: a JSON body, or the approval page's form. */
export type BodyKind = 'json' | 'form'

export type BrowserEndpoint = {
  method: 'POST' | 'PUT' | 'DELETE'
  path: string
  caller: Caller
  body: BodyKind
  /** What a refusal says the caller alone may do; `call <method> <path>` by default. */
  what?: string
}

/** The state-changing endpoints browsers call, and who calls each. */
export const browserEndpoints: readonly BrowserEndpoint[] = [
  // Email login, device approval, sessions (auth/email/login.ts).
  { method: 'POST', path: '/auth/v1/login/email', caller: 'secureFrame', body: 'json' },
  { method: 'POST', path: '/auth/v1/login/email/verify', caller: 'secureFrame', body: 'json' },
  { method: 'POST', path: '/auth/v1/device/status', caller: 'secureFrame', body: 'json' },
  { method: 'POST', path: '/auth/v1/device/approve', caller: 'apiPage', body: 'form' },
  { method: 'DELETE', path: '/auth/v1/session', caller: 'secureFrame', body: 'json' },
  // Email change (auth/email/update.ts).
  { method: 'POST', path: '/auth/v1/email/update', caller: 'secureFrame', body: 'json' },
  { method: 'POST', path: '/auth/v1/email/update/primary', caller: 'secureFrame', body: 'json' },
  {
    method: 'POST',
    path: '/auth/v1/email/update/secondary',
    caller: 'secureFrame',
    body: 'json',
  },
  // Key shares (wallet/shares.ts).
  { method: 'PUT', path: '/wallet/v1/shares', caller: 'secureFrame', body: 'json' },
  // Social and Farcaster logins (auth/social/routes.ts, auth/farcaster/routes.ts).
  ...(['/auth/v1/social/start', '/auth/v1/social/result'] as const).map((path) => ({
    method: 'POST' as const,
    path,
    caller: 'secureFrame' as const,
    body: 'json' as const,
    what: 'start or collect a social login',
  })),
  ...(['/auth/v1/farcaster/start', '/auth/v1/farcaster/result'] as const).map((path) => ({
    method: 'POST' as const,
    path,
    caller: 'secureFrame' as const,
    body: 'json' as const,
    what: 'start or collect a Farcaster login',
  })),
  // Sign-in with X and analytics, from the widget (siwx/routes.ts, analytics/routes.ts).
  { method: 'POST', path: '/siwx/nonce', caller: 'widget', body: 'json' },
  { method: 'POST', path: '/siwx/sessions', caller: 'widget', body: 'json' },
  { method: 'DELETE', path: '/siwx/sessions', caller: 'widget', body: 'json' },
  { method: 'POST', path: '/e', caller: 'widget', body: 'json' },
]

/** State-changing routes no origin check applies to, and why (see the module comment). */
export const crossSiteExempt: readonly { method: string; path: string; reason: string }[] = [
  {
    method: 'POST',
    path: '/auth/v1/social/callback',
    reason: "the provider's form post, bound by state, PKCE and the one-time claim",
  },
  ...(
    [
      ['POST', '/admin/v1/projects'],
      ['PUT', '/admin/v1/projects/:id/origins'],
      ['PUT', '/admin/v1/projects/:id/networks'],
      ['PUT', '/admin/v1/projects/:id/features'],
      ['PUT', '/admin/v1/projects/:id/mail-budget'],
      ['PUT', '/admin/v1/projects/:id/spam'],
    ] as const
  ).map(([method, path]) => ({
    method,
    path,
    reason:
      "the operator's admin (admin/routes.ts): ADMIN_TOKEN as a bearer header, JSON only, and from a browser only the API's own origin",
  })),
  { method: 'POST', path: '/v1', reason: 'the JSON-RPC proxy (next issue: its abuse limits)' },
  { method: 'POST', path: '/v1/', reason: 'the JSON-RPC proxy (next issue: its abuse limits)' },
]

/** The exact origin each caller sends. */
export function callerOrigins(
  config: Pick<Config, 'secureFrameOrigin' | 'widgetOrigin' | 'publicApiUrl'>,
): Record<Caller, string> {
  return {
    secureFrame: config.secureFrameOrigin,
    widget: config.widgetOrigin,
    apiPage: new URL(config.publicApiUrl).origin,
  }
}

/** The endpoint `method path` is, or undefined when no origin check applies. */
export function findBrowserEndpoint(method: string, path: string): BrowserEndpoint | undefined {
  return byRoute.get(`${method.toUpperCase()} ${path}`)
}

const byRoute = new Map(browserEndpoints.map((endpoint) => [routeKey(endpoint), endpoint]))

function routeKey({ method, path }: { method: string; path: string }): string {
  return `${method} ${path}`
}

/**
 * Refuses a request to a `browserEndpoints` entry from any origin but its
 * caller's (403), or with another body type than its own (415), before any
 * route runs. Looks the route up by the path the router matches (Hono's
 * `c.req.path`, percent-decoded as the router decodes it).
 */
export function refuseCrossSite(
  config: Pick<Config, 'secureFrameOrigin' | 'widgetOrigin' | 'publicApiUrl'>,
): MiddlewareHandler {
  const origins = callerOrigins(config)
  return async (c, next) => {
    const endpoint = findBrowserEndpoint(c.req.method, c.req.path)
    if (endpoint === undefined) return next()
    const origin = c.req.header('origin')
    if (origin !== origins[endpoint.caller]) return refuse(c, endpoint, 403)
    if (mediaType(c.req.header('content-type')) !== expectedType[endpoint.body])
      return refuse(c, endpoint, 415)
    return next()
  }
}

const expectedType: Record<BodyKind, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
}

/** The media type of a Content-Type header, lower case, without parameters. */
export function mediaType(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  return header.split(';')[0]?.trim().toLowerCase()
}

const callerNames: Record<Caller, string> = {
  secureFrame: 'the secure frame',
  widget: 'the widget',
  apiPage: "the API's own page",
}

function refuse(c: Context, endpoint: BrowserEndpoint, status: 403 | 415) {
  c.header('Cache-Control', 'no-store')
  if (endpoint.body === 'form') {
    // A person pressed a button on a page: answer with a page.
    return htmlPage(c, status, {
      title: 'This request was refused',
      paragraphs: ['Open the link from the mail again, and press the button on that page.'],
    })
  }
  const body =
    status === 403
      ? errorBody(
          'origin_not_allowed',
          `Only ${callerNames[endpoint.caller]} may ${endpoint.what ?? `call ${endpoint.method} ${endpoint.path}`}`,
        )
      : errorBody(
          'unsupported_media_type',
          'The body must be JSON (Content-Type: application/json)',
        )
  return c.json(body, status)
}
