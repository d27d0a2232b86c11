/**
 * CAIP-10 account ids: `namespace:reference:address`, e.g.
 * `eip155:1:0xab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcdb`.
 * https://chainagnostic.org/CAIPs/caip-10
 *
 * Two levels of checking, as in the seed:
 * - Strict (`parse`, `validate`, `assert`, `format`): exactly three parts, the
 *   first two a valid CAIP-2 network id and the address in the CAIP-10 charset
 *   `[-.%a-zA-Z0-9]{1,128}`. Throws 'Invalid CAIP-10 address: {value}'. Use it
 *   for every CAIP address that crosses a trust boundary (frame messages,
 *   wallet and connector replies, storage) and before deriving a network from
 *   an address.
 * - Loose (`parseLoose`): only the shape rule of SPEC section 5, exactly three
 *   colon-separated non-empty parts. Throws the seed's 'Invalid CAIP Address'
 *   (no value in the message). Use it where the seed used it: checking the
 *   active CAIP address before it is stored as the account (e.g. the account
 *   controller's `setCaipAddress`), where only the shape matters and the
 *   user-facing copy is 'Invalid CAIP Address'.
 */
import * as Caip2 from './Caip2.js'
import { InvalidCaip10AddressError, InvalidCaipAddressError } from './Errors.js'

/** A CAIP-10 account id, e.g. `eip155:1:0xab16…`. */
export type AccountId = `${string}:${string}:${string}`

export type Parts = {
  namespace: string
  reference: string
  address: string
}

export type Parsed = Parts & {
  /** The CAIP-2 network id of the account, `namespace:reference` (e.g. `eip155:1`). */
  chainId: Caip2.NetworkId
}

const addressRegex = /^[-.%a-zA-Z0-9]{1,128}$/

/**
 * Splits a CAIP-10 account id (strict).
 * @throws {InvalidCaip10AddressError} 'Invalid CAIP-10 address: {value}'
 */
export function parse(value: string): Parsed {
  const parsed = read(value)
  if (!parsed) throw new InvalidCaip10AddressError({ value })
  return parsed
}

/**
 * Joins the parts into a CAIP-10 account id (strict).
 * @throws {InvalidCaip10AddressError} when a part is invalid.
 */
export function format(parts: Parts): AccountId {
  const value: AccountId = `${parts.namespace}:${parts.reference}:${parts.address}`
  assert(value)
  return value
}

/** Whether `value` is a valid CAIP-10 account id (strict). Never throws. */
export function validate(value: unknown): value is AccountId {
  return read(value) !== undefined
}

/**
 * Asserts that `value` is a valid CAIP-10 account id (strict).
 * @throws {InvalidCaip10AddressError} 'Invalid CAIP-10 address: {value}'
 */
export function assert(value: unknown): asserts value is AccountId {
  if (!validate(value)) throw new InvalidCaip10AddressError({ value })
}

/**
 * Splits a CAIP address checking only its shape: exactly three colon-separated
 * non-empty parts. See the module comment for where to use it.
 * @throws {InvalidCaipAddressError} 'Invalid CAIP Address'
 */
export function parseLoose(value: string): Parsed {
  const parts = typeof value === 'string' ? value.split(':') : []
  const [namespace, reference, address] = parts
  if (parts.length !== 3 || !namespace || !reference || !address)
    throw new InvalidCaipAddressError()
  return { namespace, reference, address, chainId: `${namespace}:${reference}` }
}

function read(value: unknown): Parsed | undefined {
  if (typeof value !== 'string') return undefined
  const parts = value.split(':')
  const [namespace, reference, address] = parts
  if (parts.length !== 3 || namespace === undefined || reference === undefined) return undefined
  if (address === undefined || !addressRegex.test(address)) return undefined
  const chainId: Caip2.NetworkId = `${namespace}:${reference}`
  if (!Caip2.validate(chainId)) return undefined
  return { namespace, reference, address, chainId }
}
