/**
 * The host origin check (SECURITY.md 4 and 5): the origin the browser gave at
 * the handshake, and every ancestor's origin the browser reports, against
 * the project's allowed origins.
 */
import { OriginsResponse } from '@porthole/protocol/Api'
import { BaseError, type BaseErrorParameters } from '@porthole/protocol/Errors'
import { isAllowed } from '@porthole/protocol/Origin'
import { type Api, api as defaultApi, HttpError, RequestTimeoutError } from '../data/api.js'
import { t } from '../i18n.js'
import { originsGet } from '../startup.js'
import {
  raiseAlert,
  type Store,
  store,
  type Verification,
  type WidgetState,
} from '../state/store.js'

/** Why the allowed origins could not be read; the host is then refused (fail closed). */
export class OriginsUnavailableError extends BaseError {
  override name = 'OriginsUnavailableError'
  constructor(
    readonly reason: 'RATE_LIMITED' | 'SERVER_ERROR' | 'UNKNOWN_PROJECT',
    parameters?: BaseErrorParameters,
  ) {
    super(reason, parameters)
  }
}

/**
 * The project's allowed origins. HTTP 429 throws RATE_LIMITED, 5xx and a
 * timeout throw SERVER_ERROR, and a 403 `unknown_project` throws
 * UNKNOWN_PROJECT; any other error gives an empty list (SPEC.md section 8),
 * which `Origin.isAllowed` reads as "dev defaults only".
 */
export async function fetchAllowedOrigins(
  projectId: string,
  options: { api?: Api; signal?: AbortSignal } = {},
): Promise<string[]> {
  const { api = defaultApi, signal } = options
  try {
    // Revalidated on every load (`no-cache`): a cached list never outlives a removed origin.
    const { path, params, cache } = originsGet(projectId)
    const body = await api.get(path, { params, signal, shared: true, cache })
    return OriginsResponse.parse(body).allowedOrigins
  } catch (error) {
    if (error instanceof HttpError && error.status === 429)
      throw new OriginsUnavailableError('RATE_LIMITED', { cause: error })
    if (error instanceof HttpError && error.status >= 500)
      throw new OriginsUnavailableError('SERVER_ERROR', { cause: error })
    // The service does not know the project: no list to fall back on, not even the dev defaults.
    if (error instanceof HttpError && error.status === 403 && error.code === 'unknown_project')
      throw new OriginsUnavailableError('UNKNOWN_PROJECT', { cause: error })
    if (error instanceof RequestTimeoutError)
      throw new OriginsUnavailableError('SERVER_ERROR', { cause: error })
    if (signal?.aborted) throw error
    return []
  }
}

/**
 * The origins of the frames above the widget, its parent first, where the
 * browser reports them (`location.ancestorOrigins`: Chromium and WebKit, not
 * Firefox); otherwise none.
 */
export function readAncestorOrigins(): string[] {
  if (typeof location === 'undefined' || !location.ancestorOrigins) return []
  return Array.from(location.ancestorOrigins)
}

const refusals = {
  RATE_LIMITED: 'rate_limited',
  SERVER_ERROR: 'server_error',
  UNKNOWN_PROJECT: 'unknown_project',
} as const satisfies Record<OriginsUnavailableError['reason'], Verification>

/** The allowed origins' read started at start-up (`prefetchAllowedOrigins`), until the first check takes it. */
let early: { projectId: string; origins: Promise<string[]> } | null = null

/**
 * Starts reading the allowed origins before the host's hello arrives, beside
 * the config and wallets, so the first check waits on no round trip of its own.
 */
export function prefetchAllowedOrigins(projectId: string, options: { api?: Api } = {}): void {
  const origins = fetchAllowedOrigins(projectId, options)
  origins.catch(() => undefined)
  early = { projectId, origins }
}

export type HostCheck = {
  verification: Exclude<Verification, 'pending' | 'missing_project' | 'no_host'>
  /** For `unverified`: the origin not allowed, the host's or an ancestor's. */
  refusedOrigin: string | null
}

export type VerifyHostOptions = {
  api?: Api
  signal?: AbortSignal
  /** Every ancestor's origin, parent first (`readAncestorOrigins()`); each must be allowed too. */
  ancestorOrigins?: readonly string[]
  /** The project's allowed origins already being read; else they are read now. */
  allowedOrigins?: Promise<string[]> | undefined
}

/**
 * Checks `hostOrigin` for `projectId`, and every ancestor origin with it: a
 * page on an allowed origin framed by one that is not (nested framing,
 * SECURITY.md 4) is refused, naming that ancestor.
 */
export async function verifyHost(
  hostOrigin: string,
  projectId: string,
  options: VerifyHostOptions = {},
): Promise<HostCheck> {
  const { ancestorOrigins = [] } = options
  let allowedOrigins: string[]
  try {
    allowedOrigins = await (options.allowedOrigins ?? fetchAllowedOrigins(projectId, options))
  } catch (error) {
    if (!(error instanceof OriginsUnavailableError)) throw error
    return { verification: refusals[error.reason], refusedOrigin: null }
  }
  const refusedOrigin = [hostOrigin, ...ancestorOrigins].find(
    (origin) => !isAllowed(origin, allowedOrigins),
  )
  return refusedOrigin === undefined
    ? { verification: 'verified', refusedOrigin: null }
    : { verification: 'unverified', refusedOrigin }
}

/** The alerts about the host's verification, cleared by the next check. */
const verificationAlerts = new Set([
  'UNVERIFIED_DOMAIN',
  'UNKNOWN_PROJECT',
  'RATE_LIMITED',
  'SERVER_ERROR',
])

/**
 * Runs the check for the handshake's host origin and records the outcome:
 * the verification status, and an alert (shown in the modal, sent to the
 * host) when the host is refused. Safe to call again (Retry).
 */
export async function runVerification(
  options: { api?: Api; target?: Store<WidgetState>; ancestorOrigins?: readonly string[] } = {},
): Promise<void> {
  const { target = store, ancestorOrigins = readAncestorOrigins() } = options
  const { hostOrigin, projectId } = target.getState()
  if (hostOrigin === null) return
  if (projectId === null) return target.setState({ verification: 'missing_project' })
  target.setState((state) => ({
    verification: 'pending',
    refusedOrigin: null,
    alerts: state.alerts.filter((alert) => !verificationAlerts.has(alert.code)),
  }))
  // The start-up read serves the first check only; Retry reads again.
  const allowedOrigins = early?.projectId === projectId ? early.origins : undefined
  early = null
  let check: HostCheck
  try {
    check = await verifyHost(hostOrigin, projectId, { ...options, ancestorOrigins, allowedOrigins })
  } catch {
    // Aborted or unexpected: fail closed, as for a server error.
    check = { verification: 'server_error', refusedOrigin: null }
  }
  target.setState(check)
  const { verification, refusedOrigin } = check
  const values = { origin: refusedOrigin ?? hostOrigin, host: hostOrigin, projectId }
  if (verification === 'unverified')
    raiseAlert(
      {
        code: 'UNVERIFIED_DOMAIN',
        message:
          refusedOrigin === hostOrigin
            ? t('alert.UNVERIFIED_DOMAIN.event', values)
            : t('alert.UNVERIFIED_DOMAIN.ancestorEvent', values),
      },
      target,
    )
  // The host protocol has no code of its own for it: the domain cannot be verified.
  if (verification === 'unknown_project')
    raiseAlert(
      { code: 'UNKNOWN_PROJECT', message: t('alert.unknownProject.event', values) },
      target,
    )
  if (verification === 'rate_limited')
    raiseAlert({ code: 'RATE_LIMITED', message: t('alert.RATE_LIMITED.event', values) }, target)
  if (verification === 'server_error')
    raiseAlert({ code: 'SERVER_ERROR', message: t('alert.SERVER_ERROR.event', values) }, target)
}
