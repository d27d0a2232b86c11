/**
 * Every network the widget knows, their shared shape and lookups.
 * The default network is Ethereum mainnet, `eip155:1` (SPEC section 9).
 */
import * as Bitcoin from './Bitcoin.js'
import * as Evm from './Evm.js'
import * as Solana from './Solana.js'

/** The CAIP-2 namespaces Porthole supports. */
export type ChainNamespace = 'eip155' | 'solana' | 'bip122'

export type NativeCurrency = { name: string; symbol: string; decimals: number }

export type BlockExplorer = { name: string; url: string }

type NetworkOf<namespace extends ChainNamespace, id extends number | string> = {
  /** CAIP-2 network id, e.g. `eip155:1`. */
  caipNetworkId: `${namespace}:${string}`
  chainNamespace: namespace
  /** The CAIP-2 reference: a number for EVM chains, a string otherwise. */
  id: id
  name: string
  nativeCurrency: NativeCurrency
  rpcUrls: { default: { http: readonly string[] } }
  blockExplorers?: { default: BlockExplorer }
  testnet: boolean
}

/** A contract a network has at a known address (viem's `ChainContract`). */
export type ChainContract = { address: `0x${string}`; blockCreated?: number }

/**
 * An EVM network; structurally a viem `Chain`. `contracts.ensUniversalResolver`
 * is where the network has ENS: viem's ENS actions call it.
 */
export type EvmNetwork = NetworkOf<'eip155', number> & {
  contracts?: { ensUniversalResolver?: ChainContract }
}
export type SolanaNetwork = NetworkOf<'solana', string>
export type BitcoinNetwork = NetworkOf<'bip122', string>
/** Any network, discriminated by `chainNamespace`. */
export type Network = EvmNetwork | SolanaNetwork | BitcoinNetwork

/** Native currency decimals per namespace: EVM 18, Solana 9, Bitcoin 8 (SPEC section 9). */
export const nativeDecimals = {
  eip155: Evm.nativeDecimals,
  solana: Solana.nativeDecimals,
  bip122: Bitcoin.nativeDecimals,
} as const satisfies Record<ChainNamespace, number>

/** Every network: the 24 EVM networks, the local chain, 3 Solana networks, Solana Local and 3 Bitcoin networks. */
export const all: readonly Network[] = /* @__PURE__ */ [Evm.all, Solana.all, Bitcoin.all].flat()

/** The default network, Ethereum mainnet `eip155:1` (SPEC section 9). */
export const defaultNetwork = Evm.mainnet

/** The network with this CAIP-2 id, or `undefined` when none matches. Never throws. */
export function getByCaipNetworkId(caipNetworkId: string): Network | undefined {
  return all.find((network) => network.caipNetworkId === caipNetworkId)
}
