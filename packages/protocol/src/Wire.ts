/**
 * The envelope of every message that crosses a frame, checked by small guards
 * with no dependencies, so the loader can afford them. `WireSchema.ts` holds
 * the same shapes as zod schemas; a fast-check test proves the two agree.
 */
import type { RpcErrorShape } from './Errors.js'

export const version = 1

export type Request = { porthole: 1; kind: 'req'; id: string; method: string; params?: unknown }
export type Response =
  | { porthole: 1; kind: 'res'; id: string; ok: true; result?: unknown }
  | { porthole: 1; kind: 'res'; id: string; ok: false; error: RpcErrorShape }
export type Event = { porthole: 1; kind: 'evt'; name: string; data?: unknown }
export type Cancel = { porthole: 1; kind: 'cancel'; id: string }
/** `id`: the child document's, from its ready; that document takes no other hello. */
export type Hello = { porthole: 1; kind: 'hello'; channel: string; id?: string | undefined }
export type Welcome = { porthole: 1; kind: 'welcome'; channel: string; id?: string | undefined }
/** `id` names the child's document: it repeats its ready until a hello comes. */
export type Ready = { porthole: 1; kind: 'ready'; channel: string; id: string }
export type Message = Request | Response | Event | Cancel

export const uuidPattern =
  /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
export const namePattern = /^[A-Za-z][\w:.-]{0,127}$/
export const maxErrorMessageLength = 2_000

/** A plain object whose own keys are exactly the required ones plus any allowed optional ones. */
export function hasKeys(value: unknown, required: string[], optional: string[] = []): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return false
  const keys = Object.keys(value)
  for (const key of required) if (!Object.hasOwn(value, key)) return false
  return keys.every((key) => required.includes(key) || optional.includes(key))
}

const isId = (value: unknown) => typeof value === 'string' && uuidPattern.test(value)
const isName = (value: unknown) => typeof value === 'string' && namePattern.test(value)
type Fields = Record<string, unknown>

export function isErrorShape(value: unknown): value is RpcErrorShape {
  if (!hasKeys(value, ['code', 'message'], ['data'])) return false
  const { code, message } = value as Fields
  return (
    Number.isSafeInteger(code) &&
    typeof message === 'string' &&
    message.length <= maxErrorMessageLength
  )
}

/** Parses any port message; `undefined` when it is not a well-formed envelope. */
export function parseMessage(value: unknown): Message | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const fields = value as Fields
  if (fields.porthole !== version) return undefined
  switch (fields.kind) {
    case 'req':
      return hasKeys(value, ['porthole', 'kind', 'id', 'method'], ['params']) &&
        isId(fields.id) &&
        isName(fields.method)
        ? (value as Request)
        : undefined
    case 'res':
      if (!isId(fields.id)) return undefined
      if (fields.ok === true)
        return hasKeys(value, ['porthole', 'kind', 'id', 'ok'], ['result'])
          ? (value as Response)
          : undefined
      return fields.ok === false &&
        hasKeys(value, ['porthole', 'kind', 'id', 'ok', 'error']) &&
        isErrorShape(fields.error)
        ? (value as Response)
        : undefined
    case 'evt':
      return hasKeys(value, ['porthole', 'kind', 'name'], ['data']) && isName(fields.name)
        ? (value as Event)
        : undefined
    case 'cancel':
      return hasKeys(value, ['porthole', 'kind', 'id']) && isId(fields.id)
        ? (value as Cancel)
        : undefined
    default:
      return undefined
  }
}

function parseHandshake<kind extends 'hello' | 'welcome' | 'ready'>(
  kind: kind,
  value: unknown,
  channel: string,
): (Hello | Welcome | Ready) | undefined {
  // Any may name the child's document; a ready must.
  if (!hasKeys(value, ['porthole', 'kind', 'channel'], ['id'])) return undefined
  const fields = value as Fields
  return fields.porthole === version &&
    fields.kind === kind &&
    fields.channel === channel &&
    (fields.id === undefined ? kind !== 'ready' : isId(fields.id))
    ? (value as Hello | Welcome | Ready)
    : undefined
}

export const parseHello = (value: unknown, channel: string) =>
  parseHandshake('hello', value, channel) as Hello | undefined
export const parseWelcome = (value: unknown, channel: string) =>
  parseHandshake('welcome', value, channel) as Welcome | undefined
export const parseReady = (value: unknown, channel: string) =>
  parseHandshake('ready', value, channel) as Ready | undefined
