/**
 * The messages between the frame and its approval popup (SECURITY.md 7 and
 * 15). Both windows are the secure origin: every message is posted to that
 * exact origin, accepted only from the expected window (`event.source`) and
 * origin (`event.origin`), and carries a one-time nonce that the frame made
 * and put in the popup's URL fragment. Parsed strictly (SECURITY.md 18).
 */
import { z } from '@porthole/protocol/zod'
import { ApprovalRequest } from './request.js'

export const messageType = 'porthole:approval-popup'

/** The popup page, relative to the secure origin. */
export const popupPath = '/approve.html'

const Nonce = z.string().check(z.regex(/^[0-9a-f]{32}$/))
const Hash = z.string().check(z.regex(/^[0-9a-f]{64}$/))

/** Popup → frame: loaded, send me the request. */
export const ReadyMessage = z.strictObject({
  type: z.literal(messageType),
  kind: z.literal('ready'),
  nonce: Nonce,
})

/** Frame → popup: the request to show, its bound hash and the theme. */
export const RequestMessage = z.strictObject({
  type: z.literal(messageType),
  kind: z.literal('request'),
  nonce: Nonce,
  hash: Hash,
  request: ApprovalRequest,
  theme: z.optional(z.enum(['light', 'dark'])),
})

/** Popup → frame: the user's decision on the request with this hash. */
export const DecisionMessage = z.strictObject({
  type: z.literal(messageType),
  kind: z.literal('decision'),
  nonce: Nonce,
  hash: Hash,
  approved: z.boolean(),
})

/** Frame → popup: the request is gone (settled or aborted); close. */
export const CancelMessage = z.strictObject({
  type: z.literal(messageType),
  kind: z.literal('cancel'),
  nonce: Nonce,
})

export const ToFrameMessage = z.discriminatedUnion('kind', [ReadyMessage, DecisionMessage])
export type ToFrameMessage = z.infer<typeof ToFrameMessage>
export const ToPopupMessage = z.discriminatedUnion('kind', [RequestMessage, CancelMessage])
export type ToPopupMessage = z.infer<typeof ToPopupMessage>

/** 16 random bytes as hex. */
export function createNonce(crypto: Pick<Crypto, 'getRandomValues'> = globalThis.crypto): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')
}

/** `${origin}/approve.html#<nonce>`. */
export function toPopupUrl(origin: string, nonce: string): string {
  return `${origin}${popupPath}#${nonce}`
}

/** The nonce in a popup URL's fragment (`#<nonce>`), or `undefined`. */
export function toNonce(fragment: string): string | undefined {
  const nonce = fragment.startsWith('#') ? fragment.slice(1) : fragment
  return Nonce.safeParse(nonce).success ? nonce : undefined
}

/**
 * A message event's data, if it came from `source` at `origin` with `nonce`
 * and parses with `schema`; else `undefined` (ignored, never answered).
 */
export function acceptMessage<T extends { nonce: string }>(
  event: Pick<MessageEvent, 'origin' | 'source' | 'data'>,
  expected: { origin: string; source: unknown; nonce: string },
  schema: z.ZodMiniType<T>,
): T | undefined {
  if (event.origin !== expected.origin) return
  if (event.source === null || event.source !== expected.source) return
  const parsed = schema.safeParse(event.data)
  if (!parsed.success || parsed.data.nonce !== expected.nonce) return
  return parsed.data
}
