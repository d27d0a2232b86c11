/** The envelope as zod schemas: the reference that `Wire.ts`'s guards are tested against. */

import { maxErrorMessageLength, namePattern, uuidPattern, version } from './Wire.js'
import { z } from './zod.js'

const id = z.string().check(z.regex(uuidPattern))
const name = z.string().check(z.regex(namePattern))
const porthole = z.literal(version)

export const ErrorShape = z.strictObject({
  code: z
    .number()
    .check(z.int(), z.minimum(Number.MIN_SAFE_INTEGER), z.maximum(Number.MAX_SAFE_INTEGER)),
  message: z.string().check(z.maxLength(maxErrorMessageLength)),
  data: z.optional(z.unknown()),
})

export const Request = z.strictObject({
  porthole,
  kind: z.literal('req'),
  id,
  method: name,
  params: z.optional(z.unknown()),
})
export const Response = z.union([
  z.strictObject({
    porthole,
    kind: z.literal('res'),
    id,
    ok: z.literal(true),
    result: z.optional(z.unknown()),
  }),
  z.strictObject({ porthole, kind: z.literal('res'), id, ok: z.literal(false), error: ErrorShape }),
])
export const Event = z.strictObject({
  porthole,
  kind: z.literal('evt'),
  name,
  data: z.optional(z.unknown()),
})
export const Cancel = z.strictObject({ porthole, kind: z.literal('cancel'), id })
export const Message = z.union([Request, Response, Event, Cancel])

export const handshake = (kind: 'hello' | 'welcome' | 'ready', channel: string) => {
  const fields = { porthole, kind: z.literal(kind), channel: z.literal(channel) }
  return z.strictObject({ ...fields, id: kind === 'ready' ? id : z.optional(id) })
}
