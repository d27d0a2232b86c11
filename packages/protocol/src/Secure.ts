/**
 * The widget ↔ secure-frame contract. The secure frame serves `secure`; the
 * widget serves `widget` (nothing yet) and receives the frame's READY event.
 * The embedded-wallet messages join here in their own issue.
 */

import type { Infer } from './Contract.js'
import { z } from './zod.js'

export const channel = 'porthole:widget-secure'

const none = z.undefined()

export const secure = {
  requests: {
    syncTheme: { params: z.strictObject({ theme: z.enum(['light', 'dark']) }), result: none },
    ping: { params: none, result: z.strictObject({ version: z.string().max(32) }) },
  },
  events: {},
} as const

export const widget = {
  requests: {},
  events: { ready: none },
} as const

export type SecureSpec = Infer<typeof secure>
export type WidgetSpec = Infer<typeof widget>
