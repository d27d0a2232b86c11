/**
 * The networks a project offers in the widget: CAIP-2 ids among those Porthole
 * knows ({@link networkIds}: the 24 public EVM networks, the local chain, the
 * 3 Solana networks and Solana Local, from the tables of `@porthole/chains`; Bitcoin is not offered). The first is the project's default network. Checked when
 * a project is created or its networks are changed, and again when read
 * (`readStoredNetworks`), so a row written any other way (raw SQL, a network
 * dropped from the tables) never serves a network the widget would refuse.
 */
import { Evm, Solana } from '@porthole/chains'
import { defaultNetworks, maxNetworks } from '@porthole/protocol/Api'
import { InvalidNetworkError } from '../http/errors.js'
import { Caip2 } from '../http/schemas.js'

/** The networks a project may offer. */
export const networkIds: readonly string[] = [...Evm.all, ...Solana.all].map(
  (network) => network.caipNetworkId,
)

const known: ReadonlySet<string> = new Set(networkIds)

/**
 * The known networks, short enough for an error message, one namespace after
 * the other: `eip155: 1 11155111 … 31337; solana: 5eykt4Us… …`.
 */
export function describeKnownNetworks(separator = '; '): string {
  const byNamespace = new Map<string, string[]>()
  for (const id of networkIds) {
    const [namespace = '', reference = ''] = id.split(':')
    byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), reference])
  }
  return [...byNamespace]
    .map(([namespace, references]) => `${namespace}: ${references.join(' ')}`)
    .join(separator)
}

/** Parses one network id; throws `InvalidNetworkError` naming it when malformed or unknown. */
export function parseNetwork(input: string): string {
  const value = input.trim()
  if (!Caip2.safeParse(value).success) {
    throw new InvalidNetworkError(
      `'${input}' is not a CAIP-2 network id (namespace:reference, e.g. eip155:1)`,
    )
  }
  if (!known.has(value)) {
    throw new InvalidNetworkError(
      `Unknown network '${value}'. Known networks (CAIP-2 namespace: references): ${describeKnownNetworks()}`,
    )
  }
  return value
}

/**
 * Parses a project's list of networks: each one known, duplicates dropped,
 * order kept (the first is the default). Throws `InvalidNetworkError`.
 */
export function parseNetworks(inputs: readonly string[]): string[] {
  if (inputs.length === 0) {
    throw new InvalidNetworkError('A project needs at least one network (the first is its default)')
  }
  if (inputs.length > maxNetworks) {
    throw new InvalidNetworkError(
      `A project may list at most ${maxNetworks} networks (got ${inputs.length})`,
    )
  }
  return [...new Set(inputs.map(parseNetwork))]
}

/**
 * Splits command-line lists (`eip155:1,eip155:8453`, the option possibly given
 * several times) into entries, in order. A blank option adds nothing; an empty
 * entry inside a list (`eip155:1,`) is kept, so `parseNetworks` refuses it.
 */
export function splitNetworkList(values: readonly string[]): string[] {
  return values.flatMap((value) => (value.trim() === '' ? [] : value.split(',')))
}

/**
 * Re-checks a stored list. `networks` keeps the known ones, in order, without
 * duplicates; `refused` lists the others, which are never served. A list with
 * no known network left serves `Api.defaultNetworks`.
 */
export function readStoredNetworks(stored: unknown): { networks: string[]; refused: string[] } {
  const entries: readonly unknown[] = Array.isArray(stored) ? stored : [stored]
  const networks = new Set<string>()
  const refused: string[] = []
  for (const entry of entries) {
    if (typeof entry === 'string' && known.has(entry)) {
      if (networks.size < maxNetworks) networks.add(entry)
    } else refused.push(typeof entry === 'string' ? entry : String(JSON.stringify(entry)))
  }
  return {
    networks: networks.size > 0 ? [...networks] : [...defaultNetworks],
    refused: refused.map((entry) => entry.slice(0, 100)),
  }
}
