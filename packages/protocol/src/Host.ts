/**
 * The host ↔ widget contract. The widget serves `widget`; the loader on the
 * host page serves `host`. The loader cannot afford zod, so it parses with
 * `HostGuards.ts`, tested against these schemas.
 */

import { caip2Pattern, caip10Pattern } from './Caip.js'
import type { Infer } from './Contract.js'
import {
  alertCodePattern,
  alertCodes,
  channel,
  initialState,
  longLength,
  maxHostWallets,
  maxIconLength,
  maxStandardAccounts,
  maxStandardChains,
  providerEvents,
  shortLength,
  solanaAddressPattern,
  standardChainPattern,
  standardFeatures,
  standardRequestFeatures,
  viewPattern,
} from './HostGuards.js'
import {
  connectionStatuses,
  type Session as SessionType,
  type State as StateType,
  themes,
  type View,
  views,
} from './Views.js'
import { z } from './zod.js'

export { channel, initialState, standardFeatures }

const caip2 = z.string().check(z.regex(caip2Pattern))
const caip10 = z.string().check(z.regex(caip10Pattern))
const short = z.string().check(z.maxLength(shortLength))
const long = z.string().check(z.maxLength(longLength))
/** A wallet's icon: a data URI (EIP-6963 and the Wallet Standard require one), or empty. */
const icon = z.union([
  z.literal(''),
  z.string().check(z.maxLength(maxIconLength), z.regex(/^data:image\//)),
])

/**
 * `Session` and `State` are plain types in Views.ts (zod-free, so the loader's
 * published declarations need no zod); `SchemasAgree` below keeps each equal
 * to what its schema parses.
 */
export type Session = SessionType
export const Session = z.strictObject({
  data: z.record(z.string(), z.unknown()),
  message: long,
  signature: long,
  cacao: z.optional(z.unknown()),
})

export type State = StateType
export const State = z.strictObject({
  open: z.boolean(),
  view: z.custom<View>((value) => typeof value === 'string' && viewPattern.test(value)),
  status: z.enum(connectionStatuses),
  caipAddress: z.nullable(caip10),
  address: z.nullable(short),
  chainId: z.nullable(caip2),
  connector: z.nullable(short),
  session: z.nullable(Session),
})

/** `true` only when `a` and `b` are the same type; `Assert` of anything else is a type error. */
type Same<a, b> = [a] extends [b] ? ([b] extends [a] ? true : false) : false
type Assert<condition extends true> = condition
/** Compiles only while `Session` and `State` equal what their schemas parse. */
export type SchemasAgree = [
  Assert<Same<Session, z.infer<typeof Session>>>,
  Assert<Same<State, z.infer<typeof State>>>,
]

export const ProviderEvent = z.strictObject({
  event: z.enum(providerEvents),
  data: z.optional(z.unknown()),
})
export type ProviderEvent = z.infer<typeof ProviderEvent>

export const ProviderRequest = z.strictObject({
  method: z.string().check(z.minLength(1), z.maxLength(128)),
  params: z.optional(z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())])),
})
export type ProviderRequest = z.infer<typeof ProviderRequest>

/**
 * A wallet injected into the host page (EIP-6963's provider info), which the
 * loader offers to the widget. The icon is a data URI, as EIP-6963 requires,
 * or empty for a legacy `window.ethereum`.
 */
export const HostWallet = z.strictObject({
  uuid: short,
  name: short,
  icon,
  rdns: short,
})
export type HostWallet = z.infer<typeof HostWallet>

/** A request the widget makes of a host wallet, by its EIP-6963 uuid. */
export const HostWalletRequest = z.strictObject({
  uuid: short,
  method: z.string().check(z.minLength(1), z.maxLength(shortLength)),
  params: ProviderRequest.shape.params,
})
export type HostWalletRequest = z.infer<typeof HostWalletRequest>

/** An EIP-1193 event of a host wallet the widget has used. */
export const HostWalletEvent = z.strictObject({
  uuid: short,
  event: z.enum(providerEvents),
  data: z.optional(z.unknown()),
})
export type HostWalletEvent = z.infer<typeof HostWalletEvent>

/**
 * A Wallet Standard wallet registered in the host page with a Solana chain,
 * which the loader offers to the widget. `id` is the loader's (`standard:0`,
 * stable for the page); `features` keeps only `standardFeatures`; `accounts`
 * are the addresses the wallet has authorised.
 */
export const StandardWallet = z.strictObject({
  id: short,
  name: short,
  icon,
  chains: z
    .array(z.string().check(z.regex(standardChainPattern)))
    .check(z.maxLength(maxStandardChains)),
  features: z.array(z.enum(standardFeatures)).check(z.maxLength(standardFeatures.length)),
  accounts: z
    .array(z.string().check(z.regex(solanaAddressPattern)))
    .check(z.maxLength(maxStandardAccounts)),
})
export type StandardWallet = z.infer<typeof StandardWallet>

/**
 * A feature call the widget makes of a Standard wallet, by its `id`: one
 * input, bytes in base64 and accounts by address (the loader maps them).
 */
export const StandardWalletRequest = z.strictObject({
  id: short,
  feature: z.enum(standardRequestFeatures),
  input: z.record(z.string(), z.unknown()),
})
export type StandardWalletRequest = z.infer<typeof StandardWalletRequest>

/** Alerts the widget raises; the loader tells the site's developer (console) about them. */
export { alertCodes }
export const Alert = z.strictObject({
  code: z.string().check(z.regex(alertCodePattern)),
  message: z.string().check(z.maxLength(shortLength * 4)),
})
export type Alert = z.infer<typeof Alert>
export type AlertCode = (typeof alertCodes)[number]

const none = z.undefined()

/** What the widget answers, and the events it receives from the host. */
export const widget = {
  requests: {
    open: { params: z.optional(z.strictObject({ view: z.optional(z.enum(views)) })), result: none },
    close: { params: none, result: none },
    setTheme: { params: z.strictObject({ theme: z.enum(themes) }), result: none },
    disconnect: { params: none, result: none },
    providerRequest: { params: ProviderRequest, result: z.unknown() },
    /** Opens the sign-in message for the connected account; the session arrives in the state. */
    signIn: { params: none, result: none },
    /** Ends the sign-in session (the wallet stays connected). */
    signOut: { params: none, result: none },
  },
  events: {
    /** The host page's wallets, sent after the handshake and on every change. */
    hostWallets: z.strictObject({
      wallets: z.array(HostWallet).check(z.maxLength(maxHostWallets)),
    }),
    hostWalletEvent: HostWalletEvent,
    /** The host page's Solana Standard wallets, sent after the handshake and on every change. */
    standardWallets: z.strictObject({
      wallets: z.array(StandardWallet).check(z.maxLength(maxHostWallets)),
    }),
  },
} as const

/**
 * What the loader answers (requests to the host page's wallets, which only the
 * widget may drive), and the events it receives from the widget.
 */
export const host = {
  requests: {
    hostWalletRequest: { params: HostWalletRequest, result: z.unknown() },
    standardWalletRequest: { params: StandardWalletRequest, result: z.unknown() },
  },
  events: {
    state: State,
    providerEvent: ProviderEvent,
    alert: Alert,
  },
} as const

export type WidgetSpec = Infer<typeof widget>
export type HostSpec = Infer<typeof host>
