/**
 * SECURITY.md 25 in the API: every request whose `Host` is not one of the
 * API's names is answered `421 Misdirected Request` before any route runs
 * (OPTIONS and `/health` included). Its names: the host of
 * `PUBLIC_API_URL`, those of `API_HOSTS`, and in development the loopback
 * names (`127.0.0.1`, `localhost`, `[::1]`) on the port the API listens on.
 * DNS rebinding gives an attacker's page the API's address, never its name.
 */
import { type HostRule, hostRuleOf, isOwnHost } from '@porthole/protocol/HostNames'
import type { Context, MiddlewareHandler } from 'hono'
import type { Config } from './config.js'
import { errorBody } from './request.js'

/** The API's host names, from its configuration. */
export function apiHostRule(
  config: Pick<Config, 'publicApiUrl' | 'apiHosts' | 'portholeEnv'>,
): HostRule {
  return hostRuleOf({
    origin: config.publicApiUrl,
    extraHosts: config.apiHosts,
    loopback: config.portholeEnv !== 'production',
  })
}

/**
 * The request's Host: the header, or (a request with none, as in-process
 * `app.request('/path')` makes) the authority of its URL.
 */
function requestHost(c: Context): string {
  return c.req.header('host') ?? new URL(c.req.url).host
}

/** The port the request arrived on (@hono/node-server's socket), else the configured one. */
function ownPort(c: Context, configuredPort: number): number {
  const env = c.env as { incoming?: { socket?: { localPort?: unknown } } } | undefined
  const local = env?.incoming?.socket?.localPort
  return typeof local === 'number' && local > 0 ? local : configuredPort
}

/** Refuses (421, JSON) every request whose Host is not one of the API's names. */
export function refuseForeignHosts(
  config: Pick<Config, 'publicApiUrl' | 'apiHosts' | 'portholeEnv' | 'port'>,
): MiddlewareHandler {
  const rule = apiHostRule(config)
  return async (c, next) => {
    if (isOwnHost(rule, requestHost(c), ownPort(c, config.port))) return next()
    return c.json(
      errorBody(
        'misdirected_request',
        'This API does not answer to this host name: call it at PUBLIC_API_URL (or a name listed in API_HOSTS)',
      ),
      421,
    )
  }
}
