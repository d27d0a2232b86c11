/**
 * The host origin check (SECURITY.md 4 and 5): the origin the browser gave at
 * the handshake, against the project's allowed origins.
 */
import { isAllowed } from '@porthole/protocol/Origin'
import { z } from '@porthole/protocol/zod'
import { type Api, api as defaultApi, HttpError } from './api.js'
import { t } from './i18n.js'
import { raiseAlert, type Store, store, type Verification, type WidgetState } from './store.js'

const maxOrigins = 100

export const OriginsResponse = z.strictObject({
  allowedOrigins: z.array(z.string().max(300)).max(maxOrigins),
})

/** Why the allowed origins could not be read; the host is then refused (fail closed). */
export class OriginsUnavailableError extends Error {
  override name = 'OriginsUnavailableError'
  constructor(
    readonly reason: 'RATE_LIMITED' | 'SERVER_ERROR',
    options?: ErrorOptions,
  ) {
    super(reason, options)
  }
}

/**
 * The project's allowed origins. HTTP 429 throws RATE_LIMITED and 5xx throws
 * SERVER_ERROR; any other error gives an empty list (SPEC.md section 8), which
 * `Origin.isAllowed` reads as "dev defaults only".
 */
export async function fetchAllowedOrigins(
  projectId: string,
  options: { api?: Api; signal?: AbortSignal } = {},
): Promise<string[]> {
  const { api = defaultApi, signal } = options
  try {
    const body = await api.get('/projects/v1/origins', { params: { projectId }, signal })
    return OriginsResponse.parse(body).allowedOrigins
  } catch (error) {
    if (error instanceof HttpError && error.status === 429)
      throw new OriginsUnavailableError('RATE_LIMITED', { cause: error })
    if (error instanceof HttpError && error.status >= 500)
      throw new OriginsUnavailableError('SERVER_ERROR', { cause: error })
    if (signal?.aborted) throw error
    return []
  }
}

/** Checks `hostOrigin` for `projectId`: the verification status the widget acts on. */
export async function verifyHost(
  hostOrigin: string,
  projectId: string,
  options: { api?: Api; signal?: AbortSignal } = {},
): Promise<Exclude<Verification, 'pending' | 'missing_project' | 'no_host'>> {
  try {
    const allowedOrigins = await fetchAllowedOrigins(projectId, options)
    return isAllowed(hostOrigin, allowedOrigins) ? 'verified' : 'unverified'
  } catch (error) {
    if (error instanceof OriginsUnavailableError)
      return error.reason === 'RATE_LIMITED' ? 'rate_limited' : 'server_error'
    throw error
  }
}

/**
 * Runs the check for the handshake's host origin and records the outcome:
 * the verification status, and an alert (shown in the modal, sent to the
 * host) when the host is refused. Safe to call again (Retry).
 */
export async function runVerification(
  options: { api?: Api; target?: Store<WidgetState> } = {},
): Promise<void> {
  const { target = store } = options
  const { hostOrigin, projectId } = target.getState()
  if (hostOrigin === null) return
  if (projectId === null) return target.setState({ verification: 'missing_project' })
  target.setState((state) => ({
    verification: 'pending',
    alerts: state.alerts.filter(
      (alert) => alert.code !== 'RATE_LIMITED' && alert.code !== 'SERVER_ERROR',
    ),
  }))
  let verification: Verification
  try {
    verification = await verifyHost(hostOrigin, projectId, options)
  } catch {
    // Aborted or unexpected: fail closed, as for a server error.
    verification = 'server_error'
  }
  target.setState({ verification })
  const values = { origin: hostOrigin, projectId }
  if (verification === 'unverified')
    raiseAlert(
      { code: 'UNVERIFIED_DOMAIN', message: t('alert.UNVERIFIED_DOMAIN.event', values) },
      target,
    )
  if (verification === 'rate_limited')
    raiseAlert({ code: 'RATE_LIMITED', message: t('alert.RATE_LIMITED.event', values) }, target)
  if (verification === 'server_error')
    raiseAlert({ code: 'SERVER_ERROR', message: t('alert.SERVER_ERROR.event', values) }, target)
}
