/**
 * CAIP-2 network ids: `namespace:reference`, e.g. `eip155:1`.
 * https://chainagnostic.org/CAIPs/caip-2
 *
 * A valid id has exactly two non-empty colon-separated parts (SPEC section 5),
 * and each part is in the CAIP-2 charset: namespace `[-a-z0-9]{3,8}`,
 * reference `[-_a-zA-Z0-9]{1,32}`.
 */
import { InvalidCaip2NetworkIdError } from './Errors.js'

/** A CAIP-2 network id, e.g. `eip155:1`. */
export type NetworkId = `${string}:${string}`

export type Parts = {
  /** e.g. `eip155`, `solana`, `bip122`. */
  namespace: string
  /** e.g. `1` for Ethereum, the genesis hash prefix for Solana and Bitcoin. */
  reference: string
}

const namespaceRegex = /^[-a-z0-9]{3,8}$/
const referenceRegex = /^[-_a-zA-Z0-9]{1,32}$/

/** Whether `namespace` is a valid CAIP-2 namespace (`[-a-z0-9]{3,8}`). */
export function validateNamespace(namespace: string): boolean {
  return namespaceRegex.test(namespace)
}

/** Whether `reference` is a valid CAIP-2 reference (`[-_a-zA-Z0-9]{1,32}`). */
export function validateReference(reference: string): boolean {
  return referenceRegex.test(reference)
}

/**
 * Splits a CAIP-2 network id.
 * @throws {InvalidCaip2NetworkIdError} 'Invalid CAIP-2 network id: {value}'
 */
export function parse(value: string): Parts {
  const parts = typeof value === 'string' ? value.split(':') : []
  const [namespace, reference] = parts
  if (
    parts.length !== 2 ||
    namespace === undefined ||
    reference === undefined ||
    !validateNamespace(namespace) ||
    !validateReference(reference)
  )
    throw new InvalidCaip2NetworkIdError({ value })
  return { namespace, reference }
}

/**
 * Joins the parts into a CAIP-2 network id.
 * @throws {InvalidCaip2NetworkIdError} when a part is not in the CAIP-2 charset.
 */
export function format(parts: Parts): NetworkId {
  const value: NetworkId = `${parts.namespace}:${parts.reference}`
  assert(value)
  return value
}

/** Whether `value` is a valid CAIP-2 network id. Never throws. */
export function validate(value: unknown): value is NetworkId {
  if (typeof value !== 'string') return false
  const parts = value.split(':')
  const [namespace, reference] = parts
  return (
    parts.length === 2 &&
    namespace !== undefined &&
    reference !== undefined &&
    validateNamespace(namespace) &&
    validateReference(reference)
  )
}

/**
 * Asserts that `value` is a valid CAIP-2 network id.
 * @throws {InvalidCaip2NetworkIdError} 'Invalid CAIP-2 network id: {value}'
 */
export function assert(value: unknown): asserts value is NetworkId {
  if (!validate(value)) throw new InvalidCaip2NetworkIdError({ value })
}
