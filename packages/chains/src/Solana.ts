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

/**
 * The local development network: the dev stack's Solana node (litesvm behind
 * a validator's JSON-RPC on 127.0.0.1:8899). Its genesis hash is fixed,
 * `B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD7Aa66zX8vz37`; its Wallet Standard chain is
 * `solana:localnet`. Not one of the 3 public networks; included in {@link all}.
 */
export const localnet = {
  caipNetworkId: 'solana:B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD',
  chainNamespace: 'solana',
  id: 'B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD',
  name: 'Solana Local',
  nativeCurrency: sol,
  rpcUrls: { default: { http: ['http://127.0.0.1:8899'] } },
  testnet: true,
} as const satisfies SolanaNetwork

/** The 3 public Solana networks: mainnet, testnet and devnet (SPEC section 3). */
export const networks = [mainnet, testnet, devnet] as const satisfies readonly SolanaNetwork[]

/** The 3 public networks followed by the local network, as `Evm.all` ends with its local chain. */
export const all = /* @__PURE__ */ (() =>
  [...networks, localnet] as const satisfies readonly SolanaNetwork[])()

/** Each network's Wallet Standard chain (as `@solana/wallet-standard-chains` names them), by CAIP-2 id. */
export const walletStandardChains = {
  [mainnet.caipNetworkId]: 'solana:mainnet',
  [testnet.caipNetworkId]: 'solana:testnet',
  [devnet.caipNetworkId]: 'solana:devnet',
  [localnet.caipNetworkId]: 'solana:localnet',
} as const
