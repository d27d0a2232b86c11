/**
 * zod-free parsers for what the loader receives from the widget, mirroring
 * the schemas of `Host.ts` (a fast-check test proves they agree). Each throws
 * on anything the schema refuses.
 */
import type { Alert, ProviderEvent, Session, State } from './Host.js'
import { connectionStatuses, isView } from './Views.js'
import { hasKeys } from './Wire.js'

/** The host ↔ widget channel's name (re-exported by `Host.ts`). */
export const channel = 'porthole:host-widget'

/** The state the host sees before the widget says anything (re-exported by `Host.ts`). */
export const initialState: State = Object.freeze({
  open: false,
  view: 'Connect',
  status: 'disconnected',
  caipAddress: null,
  address: null,
  chainId: null,
  connector: null,
  session: null,
})

export const caip2Pattern = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/
export const caip10Pattern = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}:[-.%a-zA-Z0-9]{1,128}$/
export const shortLength = 128
export const longLength = 16_384
export const providerEvents = ['connect', 'disconnect', 'accountsChanged', 'chainChanged'] as const
export const alertCodes = [
  'UNVERIFIED_DOMAIN',
  'UNKNOWN_PROJECT',
  'IFRAME_LOAD_FAILED',
  'IFRAME_REQUEST_TIMEOUT',
  'RATE_LIMITED',
  'SERVER_ERROR',
] as const

type Fields = Record<string, unknown>
const invalid = (what: string): never => {
  throw new TypeError(`Invalid ${what}`)
}
const nullable = (value: unknown, test: (value: unknown) => boolean) =>
  value === null || test(value)
const isString = (max: number) => (value: unknown) =>
  typeof value === 'string' && value.length <= max
const isMatch = (pattern: RegExp) => (value: unknown) =>
  typeof value === 'string' && pattern.test(value)

function isRecord(value: unknown): boolean {
  return hasKeys(value, [], Object.keys(value ?? {}))
}

function isSession(value: unknown): value is Session {
  if (!hasKeys(value, ['data', 'message', 'signature'], ['cacao'])) return false
  const { data, message, signature } = value as Fields
  return isRecord(data) && isString(longLength)(message) && isString(longLength)(signature)
}

export function parseState(value: unknown): State {
  const keys = [
    'open',
    'view',
    'status',
    'caipAddress',
    'address',
    'chainId',
    'connector',
    'session',
  ]
  if (!hasKeys(value, keys)) return invalid('state')
  const state = value as Fields
  const ok =
    typeof state.open === 'boolean' &&
    isView(state.view) &&
    (connectionStatuses as readonly unknown[]).includes(state.status) &&
    nullable(state.caipAddress, isMatch(caip10Pattern)) &&
    nullable(state.address, isString(shortLength)) &&
    nullable(state.chainId, isMatch(caip2Pattern)) &&
    nullable(state.connector, isString(shortLength)) &&
    nullable(state.session, isSession)
  return ok ? (value as State) : invalid('state')
}

export function parseProviderEvent(value: unknown): ProviderEvent {
  if (!hasKeys(value, ['event'], ['data'])) return invalid('provider event')
  const { event } = value as Fields
  return (providerEvents as readonly unknown[]).includes(event)
    ? (value as ProviderEvent)
    : invalid('provider event')
}

export function parseAlert(value: unknown): Alert {
  if (!hasKeys(value, ['code', 'message'])) return invalid('alert')
  const { code, message } = value as Fields
  return (alertCodes as readonly unknown[]).includes(code) && isString(shortLength * 4)(message)
    ? (value as Alert)
    : invalid('alert')
}
