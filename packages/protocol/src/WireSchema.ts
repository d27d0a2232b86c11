/** The envelope as zod schemas: the reference that `Wire.ts`'s guards are tested against. */

import { maxErrorMessageLength, namePattern, uuidPattern, version } from './Wire.js'
import { z } from './zod.js'

const id = z.string().check(z.regex(uuidPattern))
const name = z.string().check(z.regex(namePattern))
const porthole = z.literal(version)

/**
 * A plain object (prototype `Object.prototype` or null), as structured clone
 * makes and `hasKeys` requires: without it zod would take a class instance,
 * or read a field it inherits (red team of d6eec97).
 */
const plain = z.custom<object>((value) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
})
const strict = <shape extends Parameters<typeof z.strictObject>[0]>(shape: shape) =>
  z.pipe(plain, z.strictObject(shape))

export const ErrorShape = strict({
  code: z
    .number()
    .check(z.int(), z.minimum(Number.MIN_SAFE_INTEGER), z.maximum(Number.MAX_SAFE_INTEGER)),
  message: z.string().check(z.maxLength(maxErrorMessageLength)),
  data: z.optional(z.unknown()),
})

export const Request = strict({
  porthole,
  kind: z.literal('req'),
  id,
  method: name,
  params: z.optional(z.unknown()),
})
export const Response = z.union([
  strict({
    porthole,
    kind: z.literal('res'),
    id,
    ok: z.literal(true),
    result: z.optional(z.unknown()),
  }),
  strict({ porthole, kind: z.literal('res'), id, ok: z.literal(false), error: ErrorShape }),
])
export const Event = strict({
  porthole,
  kind: z.literal('evt'),
  name,
  data: z.optional(z.unknown()),
})
export const Cancel = strict({ porthole, kind: z.literal('cancel'), id })
export const Message = z.union([Request, Response, Event, Cancel])

export const handshake = (kind: 'hello' | 'welcome' | 'ready', channel: string) => {
  const fields = { porthole, kind: z.literal(kind), channel: z.literal(channel) }
  return strict({ ...fields, id: kind === 'ready' ? id : z.optional(id) })
}
