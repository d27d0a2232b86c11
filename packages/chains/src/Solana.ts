/**
 * Solana networks (CAIP-2 namespace `solana`; the reference is the first 32
 * characters of the genesis hash). RPC and explorer URLs are data only.
 */
import type { SolanaNetwork } from './Networks.js'

/** SOL has 9 decimals (SPEC section 9). */
export const nativeDecimals = 9

const sol = { name: 'Solana', symbol: 'SOL', decimals: nativeDecimals } as const

export const mainnet = {
  caipNetworkId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  chainNamespace: 'solana',
  id: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  name: 'Solana',
  nativeCurrency: sol,
  rpcUrls: { default: { http: ['https://api.mainnet-beta.solana.com'] } },
  blockExplorers: { default: { name: 'Solscan', url: 'https://solscan.io' } },
  testnet: false,
} as const satisfies SolanaNetwork

export const testnet = {
  caipNetworkId: 'solana:4uhcVJyU9pJkvQyS88uRDiswHXSRkz3J',
  chainNamespace: 'solana',
  id: '4uhcVJyU9pJkvQyS88uRDiswHXSRkz3J',
  name: 'Solana Testnet',
  nativeCurrency: sol,
  rpcUrls: { default: { http: ['https://api.testnet.solana.com'] } },
  testnet: true,
} as const satisfies SolanaNetwork

export const devnet = {
  caipNetworkId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  chainNamespace: 'solana',
  id: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  name: 'Solana Devnet',
  nativeCurrency: sol,
  rpcUrls: { default: { http: ['https://api.devnet.solana.com'] } },
  testnet: true,
} as const satisfies SolanaNetwork

/** Mainnet, testnet and devnet (SPEC section 3). */
export const all = [mainnet, testnet, devnet] as const satisfies readonly SolanaNetwork[]
