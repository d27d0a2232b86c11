/**
 * zod-free parsers for what the loader receives from the widget, mirroring
 * the schemas of `Host.ts` (a fast-check test proves they agree). Each throws
 * on anything the schema refuses.
 */
import { caip2Pattern, caip10Pattern } from './Caip.js'
import type { Alert, HostWalletRequest, ProviderEvent, StandardWalletRequest } from './Host.js'
import { connectionStatuses, type Session, type State } from './Views.js'
import { hasKeys } from './Wire.js'

/** The host ↔ widget channel's name (re-exported by `Host.ts`). */
export const channel = 'porthole:host-widget'

/** The state the host sees before the widget says anything (re-exported by `Host.ts`). */
export const initialState: Readonly<State> = Object.freeze({
  open: false,
  view: 'Connect',
  status: 'disconnected',
  caipAddress: null,
  address: null,
  chainId: null,
  connector: null,
  session: null,
})

export const shortLength = 128
export const longLength = 16_384
/** EIP-6963 icons are data URIs; a larger one is sent as empty (16 of them stay under maxMessageBytes). */
export const maxIconLength = 12_288
export const maxHostWallets = 16
/** A Wallet Standard wallet's chains and authorised accounts the loader passes on, at most. */
export const maxStandardChains = 8
export const maxStandardAccounts = 16
/** Wallet Standard Solana chain names (`solana:mainnet`, `solana:localnet`, …). */
export const standardChainPattern = /^solana:[a-z0-9-]{1,32}$/
/** A Solana address: 32 to 44 base58 characters. */
export const solanaAddressPattern = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/
/** The Wallet Standard features the loader relays; a wallet's others are dropped. */
export const standardFeatures = [
  'standard:connect',
  'standard:disconnect',
  'standard:events',
  'solana:signMessage',
  'solana:signTransaction',
  'solana:signAndSendTransaction',
] as const
/** The features the widget may call (`standard:events` the loader follows itself). */
export const standardRequestFeatures = [
  'standard:connect',
  'standard:disconnect',
  'solana:signMessage',
  'solana:signTransaction',
  'solana:signAndSendTransaction',
] as const
export const providerEvents = ['connect', 'disconnect', 'accountsChanged', 'chainChanged'] as const
/** The alert codes this widget raises. The wire accepts any upper-case code, so a loader
 * bundled by a site keeps working when a newer widget adds one. */
export const alertCodes = [
  'UNVERIFIED_DOMAIN',
  'UNKNOWN_PROJECT',
  'IFRAME_LOAD_FAILED',
  'IFRAME_REQUEST_TIMEOUT',
  'RATE_LIMITED',
  'SERVER_ERROR',
  'INVALID_CONFIG',
] as const
export const alertCodePattern = /^[A-Z][A-Z_]{0,63}$/
/**
 * A view name as the host sees it in the state. Like alert codes, any
 * well-formed name passes, so a loader bundled by a site keeps working when a
 * newer widget adds a view (the widget itself accepts only the views it has).
 */
export const viewPattern = /^[A-Z][A-Za-z]{0,47}$/

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

/** The result of a request that answers nothing (`open`, `close`, …). */
export const parseNothing = (value: unknown): undefined =>
  value === undefined ? value : invalid('result')

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
    isMatch(viewPattern)(state.view) &&
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
  return isMatch(alertCodePattern)(code) && isString(shortLength * 4)(message)
    ? (value as Alert)
    : invalid('alert')
}

export function parseHostWalletRequest(value: unknown): HostWalletRequest {
  if (!hasKeys(value, ['uuid', 'method'], ['params'])) return invalid('host wallet request')
  const { uuid, method, params } = value as Fields
  return isString(shortLength)(uuid) &&
    isString(shortLength)(method) &&
    (method as string).length > 0 &&
    (params === undefined || Array.isArray(params) || isRecord(params))
    ? (value as HostWalletRequest)
    : invalid('host wallet request')
}

export function parseStandardWalletRequest(value: unknown): StandardWalletRequest {
  if (!hasKeys(value, ['id', 'feature', 'input'])) return invalid('standard wallet request')
  const { id, feature, input } = value as Fields
  return isString(shortLength)(id) &&
    (standardRequestFeatures as readonly unknown[]).includes(feature) &&
    isRecord(input)
    ? (value as StandardWalletRequest)
    : invalid('standard wallet request')
}
