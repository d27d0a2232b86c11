/**
 * `eth_signTypedData_v4` shown as signed (SECURITY.md 18 and 20). EIP-712
 * signs only what the types name: a message key the types do not list, or a
 * domain field the `EIP712Domain` type leaves out, would be shown and never
 * signed. So the typed data is parsed strictly and rebuilt from its types:
 * every struct value must have exactly its type's fields (an extra or
 * missing one is -32602), in the type's order, and the domain exactly the
 * fields its type lists. The rebuilt object is what the approval shows and
 * what viem then signs; it is hashed once before showing so anything viem
 * would refuse is refused before the approval. Atomic values must be in their
 * exact form (no number for a string, no boolean for an integer, whole-byte
 * hex for bytes), and are shown canonical: integers as decimal text.
 */
import { InvalidParamsError } from '@porthole/protocol/Errors'
import { z } from '@porthole/protocol/zod'
import { hashTypedData, isAddress } from 'viem'

const maxMessageLength = 262_144
const maxDepth = 16
const maxArrayLength = 1024
const maxTypes = 64

const Name = z.string().check(z.minLength(1), z.maxLength(256))
const Address = z.string().check(
  z.regex(/^0x[0-9a-fA-F]{40}$/),
  z.refine((value) => isAddress(value), { error: 'bad address checksum' }),
)

/** The EIP712Domain fields EIP-712 defines, with their types. */
const domainTypes = {
  name: 'string',
  version: 'string',
  chainId: 'uint256',
  verifyingContract: 'address',
  salt: 'bytes32',
} as const

const Domain = z.strictObject({
  name: z.optional(z.string().check(z.maxLength(256))),
  version: z.optional(z.string().check(z.maxLength(256))),
  chainId: z.optional(
    z.union([
      z.number().check(z.int(), z.nonnegative(), z.maximum(Number.MAX_SAFE_INTEGER)),
      z.string().check(z.regex(/^(0x[0-9a-fA-F]{1,13}|\d{1,15})$/)),
    ]),
  ),
  verifyingContract: z.optional(Address),
  salt: z.optional(z.string().check(z.regex(/^0x[0-9a-fA-F]{64}$/))),
})

const TypedData = z.strictObject({
  types: z
    .record(Name, z.array(z.strictObject({ name: Name, type: Name })).check(z.maxLength(256)))
    .check(z.refine((types) => Object.keys(types).length <= maxTypes, { error: 'too many types' })),
  primaryType: Name,
  domain: z.optional(Domain),
  message: z.record(z.string(), z.unknown()),
})

/** `eth_signTypedData_v4`'s params: the address, then the typed data as JSON or as an object. */
export const SignTypedDataParams = z.tuple([
  z.string(),
  z.union([z.string().check(z.maxLength(maxMessageLength)), z.record(z.string(), z.unknown())]),
])

type Field = { name: string; type: string }

/** Typed data rebuilt from its types: shown and signed as it is. */
export type NormalisedTypedData = {
  types: Record<string, Field[]>
  primaryType: string
  domain: z.infer<typeof Domain>
  message: Record<string, unknown>
}

const invalid = (detail: string) => new InvalidParamsError(`Invalid typed data: ${detail}.`)

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const integerType = /^u?int(\d{0,3})$/
const fixedBytesType = /^bytes(\d{1,2})$/
const decimalText = /^-?(0|[1-9]\d{0,77})$/
const hexText = /^-?0x[0-9a-fA-F]{1,64}$/

/**
 * An atomic value in the one form that is both shown and signed: viem would
 * coerce a loose value (`true` as a uint, `5` as a string, `0x123` as bytes)
 * into something other than what a visitor reads, so only exact forms pass.
 * Integers become decimal text; booleans stay booleans; strings stay strings;
 * bytes are whole-byte hex (of the exact size for `bytesN`); addresses are
 * checksummed or all one case. A type EIP-712 does not define is refused.
 */
function atomic(type: string, value: unknown, path: string): unknown {
  const integer = integerType.exec(type)
  if (integer) {
    const bits = integer[1] === '' ? 256 : Number(integer[1])
    if (bits < 8 || bits > 256 || bits % 8 !== 0) throw invalid(`${path} has the bad type ${type}`)
    let number: bigint
    if (typeof value === 'number' && Number.isSafeInteger(value)) number = BigInt(value)
    else if (typeof value === 'string' && (decimalText.test(value) || hexText.test(value)))
      number = value.startsWith('-') ? -BigInt(value.slice(1)) : BigInt(value)
    else throw invalid(`${path} is not a whole number`)
    const signed = type.startsWith('int')
    const limit = 1n << BigInt(signed ? bits - 1 : bits)
    if (signed ? number < -limit || number >= limit : number < 0n || number >= limit)
      throw invalid(`${path} does not fit ${type}`)
    return number.toString()
  }
  const fixed = fixedBytesType.exec(type)
  if (fixed) {
    const size = Number(fixed[1])
    if (size < 1 || size > 32) throw invalid(`${path} has the bad type ${type}`)
    if (typeof value !== 'string' || !new RegExp(`^0x[0-9a-fA-F]{${size * 2}}$`).test(value))
      throw invalid(`${path} is not ${size} bytes of hex`)
    return value.toLowerCase()
  }
  switch (type) {
    case 'bool':
      if (typeof value !== 'boolean') throw invalid(`${path} is not true or false`)
      return value
    case 'string':
      if (typeof value !== 'string') throw invalid(`${path} is not text`)
      return value
    case 'bytes':
      if (typeof value !== 'string' || !/^0x(?:[0-9a-fA-F]{2})*$/.test(value))
        throw invalid(`${path} is not whole bytes of hex`)
      return value.toLowerCase()
    case 'address':
      if (typeof value !== 'string' || !Address.safeParse(value).success)
        throw invalid(`${path} is not an address`)
      return value
    default:
      throw invalid(`${path} has the type ${type.slice(0, 100)}, which is not defined`)
  }
}

/** `value` rebuilt as `type` declares it: struct keys exactly its fields, arrays item by item. */
function rebuild(
  types: Record<string, Field[]>,
  type: string,
  value: unknown,
  path: string,
  depth: number,
): unknown {
  if (depth > maxDepth) throw invalid(`${path} is nested too deeply`)
  const array = /^(.*)\[(\d*)\]$/.exec(type)
  if (array) {
    const [, item = '', length] = array
    if (!Array.isArray(value)) throw invalid(`${path} is not a list`)
    if (value.length > maxArrayLength) throw invalid(`${path} is too long`)
    if (length !== '' && value.length !== Number(length))
      throw invalid(`${path} does not have ${length} items`)
    return value.map((child, index) => rebuild(types, item, child, `${path}.${index}`, depth + 1))
  }
  const fields = Object.hasOwn(types, type) ? types[type] : undefined
  if (!fields) return atomic(type, value, path)
  if (!isRecord(value)) throw invalid(`${path} is not a ${type}`)
  const names = new Set(fields.map((field) => field.name))
  for (const key of Object.keys(value))
    if (!names.has(key)) throw invalid(`${path}.${key} is not a field of ${type}`)
  const rebuilt: Record<string, unknown> = {}
  for (const field of fields) {
    if (!Object.hasOwn(value, field.name) || value[field.name] === undefined)
      throw invalid(`${path}.${field.name} is missing`)
    rebuilt[field.name] = rebuild(
      types,
      field.type,
      value[field.name],
      `${path}.${field.name}`,
      depth + 1,
    )
  }
  return rebuilt
}

/**
 * Parses typed data (JSON text or an object) strictly and rebuilds it from
 * its types; -32602 for anything EIP-712 would not sign exactly as shown.
 */
export function toNormalisedTypedData(raw: unknown): NormalisedTypedData {
  let json: unknown = raw
  if (typeof raw === 'string') {
    try {
      json = JSON.parse(raw)
    } catch {
      throw new InvalidParamsError('The typed data is not valid JSON.')
    }
  }
  const parsed = TypedData.safeParse(json)
  if (!parsed.success) throw new InvalidParamsError('Invalid parameters for eth_signTypedData_v4.')
  const { types, primaryType, message } = parsed.data
  const domain = parsed.data.domain ?? {}
  if (primaryType === 'EIP712Domain' || !Object.hasOwn(types, primaryType))
    throw invalid(`the primary type ${primaryType.slice(0, 100)} is not defined`)
  const domainType = Object.hasOwn(types, 'EIP712Domain') ? types.EIP712Domain : undefined
  if (domainType) {
    // The domain signed is the fields its type lists: exactly the ones given, with EIP-712's types.
    const listed = new Set<string>()
    for (const { name, type } of domainType) {
      if (
        !Object.hasOwn(domainTypes, name) ||
        domainTypes[name as keyof typeof domainTypes] !== type
      )
        throw invalid(`EIP712Domain lists ${name.slice(0, 100)} as ${type.slice(0, 100)}`)
      if (listed.has(name)) throw invalid(`EIP712Domain lists ${name} twice`)
      listed.add(name)
    }
    for (const key of Object.keys(domain))
      if (!listed.has(key)) throw invalid(`the domain's ${key} is not in its EIP712Domain type`)
    for (const name of listed)
      if (!Object.hasOwn(domain, name)) throw invalid(`the domain has no ${name}`)
  }
  const normalised: NormalisedTypedData = {
    types,
    primaryType,
    domain:
      domain.chainId === undefined
        ? domain
        : { ...domain, chainId: Number(BigInt(domain.chainId)) },
    message: rebuild(types, primaryType, message, primaryType, 0) as Record<string, unknown>,
  }
  try {
    hashTypedData(normalised as never)
  } catch {
    throw invalid('its values do not match its types')
  }
  return normalised
}
