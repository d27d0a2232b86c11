/**
 * Bitcoin networks (CAIP-2 namespace `bip122`; the reference is the first 32
 * hex characters of the genesis block hash). Bitcoin has no public JSON-RPC
 * endpoint, so `rpcUrls.default.http` is empty: the app supplies its
 * provider's RPC. Explorer URLs are data only.
 */
import type { BitcoinNetwork } from './Networks.js'

/** BTC has 8 decimals (SPEC section 9). */
export const nativeDecimals = 8

export const mainnet = {
  caipNetworkId: 'bip122:000000000019d6689c085ae165831e93',
  chainNamespace: 'bip122',
  id: '000000000019d6689c085ae165831e93',
  name: 'Bitcoin',
  nativeCurrency: { name: 'Bitcoin', symbol: 'BTC', decimals: nativeDecimals },
  rpcUrls: { default: { http: [] } },
  blockExplorers: { default: { name: 'mempool.space', url: 'https://mempool.space' } },
  testnet: false,
} as const satisfies BitcoinNetwork

/** Testnet3. */
export const testnet = {
  caipNetworkId: 'bip122:000000000933ea01ad0ee984209779ba',
  chainNamespace: 'bip122',
  id: '000000000933ea01ad0ee984209779ba',
  name: 'Bitcoin Testnet',
  nativeCurrency: { name: 'Testnet Bitcoin', symbol: 'tBTC', decimals: nativeDecimals },
  rpcUrls: { default: { http: [] } },
  blockExplorers: { default: { name: 'mempool.space', url: 'https://mempool.space/testnet' } },
  testnet: true,
} as const satisfies BitcoinNetwork

export const signet = {
  caipNetworkId: 'bip122:00000008819873e925422c1ff0f99f7c',
  chainNamespace: 'bip122',
  id: '00000008819873e925422c1ff0f99f7c',
  name: 'Bitcoin Signet',
  nativeCurrency: { name: 'Signet Bitcoin', symbol: 'sBTC', decimals: nativeDecimals },
  rpcUrls: { default: { http: [] } },
  blockExplorers: { default: { name: 'mempool.space', url: 'https://mempool.space/signet' } },
  testnet: true,
} as const satisfies BitcoinNetwork

/** Mainnet, testnet and signet. */
export const all = [mainnet, testnet, signet] as const satisfies readonly BitcoinNetwork[]
