/**
 * The host ↔ widget contract. The widget serves `widget`; the loader on the
 * host page serves `host`. The loader cannot afford zod, so it parses with
 * `HostGuards.ts`, tested against these schemas.
 */

import type { Infer } from './Contract.js'
import {
  alertCodes,
  caip2Pattern,
  caip10Pattern,
  channel,
  initialState,
  longLength,
  providerEvents,
  shortLength,
} from './HostGuards.js'
import { connectionStatuses, themes, views } from './Views.js'
import { z } from './zod.js'

export { channel, initialState }

const caip2 = z.string().regex(caip2Pattern)
const caip10 = z.string().regex(caip10Pattern)
const short = z.string().max(shortLength)
const long = z.string().max(longLength)

export const Session = z.strictObject({
  data: z.record(z.string(), z.unknown()),
  message: long,
  signature: long,
  cacao: z.unknown().optional(),
})
export type Session = z.infer<typeof Session>

export const State = z.strictObject({
  open: z.boolean(),
  view: z.enum(views),
  status: z.enum(connectionStatuses),
  caipAddress: caip10.nullable(),
  address: short.nullable(),
  chainId: caip2.nullable(),
  connector: short.nullable(),
  session: Session.nullable(),
})
export type State = z.infer<typeof State>

export const ProviderEvent = z.strictObject({
  event: z.enum(providerEvents),
  data: z.unknown().optional(),
})
export type ProviderEvent = z.infer<typeof ProviderEvent>

export const ProviderRequest = z.strictObject({
  method: z.string().min(1).max(128),
  params: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional(),
})
export type ProviderRequest = z.infer<typeof ProviderRequest>

/** Alerts the widget raises; the loader tells the site's developer (console) about them. */
export { alertCodes }
export const Alert = z.strictObject({
  code: z.enum(alertCodes),
  message: z.string().max(shortLength * 4),
})
export type Alert = z.infer<typeof Alert>

const none = z.undefined()

/** What the widget answers, and the events it receives from the host. */
export const widget = {
  requests: {
    open: { params: z.strictObject({ view: z.enum(views).optional() }).optional(), result: none },
    close: { params: none, result: none },
    setTheme: { params: z.strictObject({ theme: z.enum(themes) }), result: none },
    disconnect: { params: none, result: none },
    providerRequest: { params: ProviderRequest, result: z.unknown() },
  },
  events: {},
} as const

/** What the loader answers (nothing yet), and the events it receives from the widget. */
export const host = {
  requests: {},
  events: {
    state: State,
    providerEvent: ProviderEvent,
    alert: Alert,
  },
} as const

export type WidgetSpec = Infer<typeof widget>
export type HostSpec = Infer<typeof host>
