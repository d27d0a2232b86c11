/**
 * EVM networks (CAIP-2 namespace `eip155`): the 24 public chains the widget
 * offers, mainnets and testnets, plus the local development chain.
 *
 * Each entry fits viem's `Chain` shape (`id`, `name`, `nativeCurrency`,
 * `rpcUrls.default.http`, `blockExplorers.default`, `testnet`), so it can be
 * passed to viem or wagmi as is. RPC and explorer URLs are data only: nothing
 * here fetches them. Values follow viem's chain definitions, and so does
 * `contracts.ensUniversalResolver`, on the networks with ENS (Ethereum,
 * Sepolia, Holesky) and on the local chain, where `npm start` deploys one.
 */
import type { EvmNetwork } from './Networks.js'

/** Decimals of every native currency in this table. */
export const nativeDecimals = 18

const ether = { name: 'Ether', symbol: 'ETH', decimals: nativeDecimals } as const
const sepoliaEther = { name: 'Sepolia Ether', symbol: 'ETH', decimals: nativeDecimals } as const

/** ENS's UniversalResolver on Ethereum and its testnets, viem's (one address on each). */
const ensUniversalResolver = '0xeeeeeeee14d718c2b47d9923deab1335e144eeee'

export const mainnet = {
  caipNetworkId: 'eip155:1',
  chainNamespace: 'eip155',
  id: 1,
  name: 'Ethereum',
  nativeCurrency: ether,
  rpcUrls: { default: { http: ['https://ethereum.reth.rs/rpc'] } },
  blockExplorers: { default: { name: 'Etherscan', url: 'https://etherscan.io' } },
  contracts: { ensUniversalResolver: { address: ensUniversalResolver, blockCreated: 23_085_558 } },
  testnet: false,
} as const satisfies EvmNetwork

export const sepolia = {
  caipNetworkId: 'eip155:11155111',
  chainNamespace: 'eip155',
  id: 11_155_111,
  name: 'Sepolia',
  nativeCurrency: sepoliaEther,
  rpcUrls: { default: { http: ['https://11155111.rpc.thirdweb.com'] } },
  blockExplorers: { default: { name: 'Etherscan', url: 'https://sepolia.etherscan.io' } },
  contracts: { ensUniversalResolver: { address: ensUniversalResolver, blockCreated: 8_928_790 } },
  testnet: true,
} as const satisfies EvmNetwork

export const holesky = {
  caipNetworkId: 'eip155:17000',
  chainNamespace: 'eip155',
  id: 17_000,
  name: 'Holesky',
  nativeCurrency: { name: 'Holesky Ether', symbol: 'ETH', decimals: nativeDecimals },
  rpcUrls: { default: { http: ['https://ethereum-holesky-rpc.publicnode.com'] } },
  blockExplorers: { default: { name: 'Etherscan', url: 'https://holesky.etherscan.io' } },
  contracts: { ensUniversalResolver: { address: ensUniversalResolver, blockCreated: 4_295_055 } },
  testnet: true,
} as const satisfies EvmNetwork

export const optimism = {
  caipNetworkId: 'eip155:10',
  chainNamespace: 'eip155',
  id: 10,
  name: 'OP Mainnet',
  nativeCurrency: ether,
  rpcUrls: { default: { http: ['https://mainnet.optimism.io'] } },
  blockExplorers: {
    default: { name: 'Optimism Explorer', url: 'https://optimistic.etherscan.io' },
  },
  testnet: false,
} as const satisfies EvmNetwork

export const optimismSepolia = {
  caipNetworkId: 'eip155:11155420',
  chainNamespace: 'eip155',
  id: 11_155_420,
  name: 'OP Sepolia',
  nativeCurrency: sepoliaEther,
  rpcUrls: { default: { http: ['https://sepolia.optimism.io'] } },
  blockExplorers: {
    default: { name: 'Blockscout', url: 'https://optimism-sepolia.blockscout.com' },
  },
  testnet: true,
} as const satisfies EvmNetwork

export const arbitrum = {
  caipNetworkId: 'eip155:42161',
  chainNamespace: 'eip155',
  id: 42_161,
  name: 'Arbitrum One',
  nativeCurrency: ether,
  rpcUrls: { default: { http: ['https://arb1.arbitrum.io/rpc'] } },
  blockExplorers: { default: { name: 'Arbiscan', url: 'https://arbiscan.io' } },
  testnet: false,
} as const satisfies EvmNetwork

export const arbitrumSepolia = {
  caipNetworkId: 'eip155:421614',
  chainNamespace: 'eip155',
  id: 421_614,
  name: 'Arbitrum Sepolia',
  nativeCurrency: { name: 'Arbitrum Sepolia Ether', symbol: 'ETH', decimals: nativeDecimals },
  rpcUrls: { default: { http: ['https://sepolia-rollup.arbitrum.io/rpc'] } },
  blockExplorers: { default: { name: 'Arbiscan', url: 'https://sepolia.arbiscan.io' } },
  testnet: true,
} as const satisfies EvmNetwork

export const base = {
  caipNetworkId: 'eip155:8453',
  chainNamespace: 'eip155',
  id: 8453,
  name: 'Base',
  nativeCurrency: ether,
  rpcUrls: { default: { http: ['https://mainnet.base.org'] } },
  blockExplorers: { default: { name: 'Basescan', url: 'https://basescan.org' } },
  testnet: false,
} as const satisfies EvmNetwork

export const baseSepolia = {
  caipNetworkId: 'eip155:84532',
  chainNamespace: 'eip155',
  id: 84_532,
  name: 'Base Sepolia',
  nativeCurrency: sepoliaEther,
  rpcUrls: { default: { http: ['https://sepolia.base.org'] } },
  blockExplorers: { default: { name: 'Basescan', url: 'https://sepolia.basescan.org' } },
  testnet: true,
} as const satisfies EvmNetwork

export const polygon = {
  caipNetworkId: 'eip155:137',
  chainNamespace: 'eip155',
  id: 137,
  name: 'Polygon',
  nativeCurrency: { name: 'POL', symbol: 'POL', decimals: nativeDecimals },
  rpcUrls: { default: { http: ['https://polygon.drpc.org'] } },
  blockExplorers: { default: { name: 'PolygonScan', url: 'https://polygonscan.com' } },
  testnet: false,
} as const satisfies EvmNetwork

export const polygonAmoy = {
  caipNetworkId: 'eip155:80002',
  chainNamespace: 'eip155',
  id: 80_002,
  name: 'Polygon Amoy',
  nativeCurrency: { name: 'POL', symbol: 'POL', decimals: nativeDecimals },
  rpcUrls: { default: { http: ['https://polygon-amoy.drpc.org'] } },
  blockExplorers: { default: { name: 'PolygonScan', url: 'https://amoy.polygonscan.com' } },
  testnet: true,
} as const satisfies EvmNetwork

export const bsc = {
  caipNetworkId: 'eip155:56',
  chainNamespace: 'eip155',
  id: 56,
  name: 'BNB Smart Chain',
  nativeCurrency: { name: 'BNB', symbol: 'BNB', decimals: nativeDecimals },
  rpcUrls: { default: { http: ['https://56.rpc.thirdweb.com'] } },
  blockExplorers: { default: { name: 'BscScan', url: 'https://bscscan.com' } },
  testnet: false,
} as const satisfies EvmNetwork

export const bscTestnet = {
  caipNetworkId: 'eip155:97',
  chainNamespace: 'eip155',
  id: 97,
  name: 'BNB Smart Chain Testnet',
  nativeCurrency: { name: 'BNB', symbol: 'tBNB', decimals: nativeDecimals },
  rpcUrls: { default: { http: ['https://data-seed-prebsc-1-s1.bnbchain.org:8545'] } },
  blockExplorers: { default: { name: 'BscScan', url: 'https://testnet.bscscan.com' } },
  testnet: true,
} as const satisfies EvmNetwork

export const avalanche = {
  caipNetworkId: 'eip155:43114',
  chainNamespace: 'eip155',
  id: 43_114,
  name: 'Avalanche',
  nativeCurrency: { name: 'Avalanche', symbol: 'AVAX', decimals: nativeDecimals },
  rpcUrls: { default: { http: ['https://api.avax.network/ext/bc/C/rpc'] } },
  blockExplorers: { default: { name: 'SnowTrace', url: 'https://snowtrace.io' } },
  testnet: false,
} as const satisfies EvmNetwork

export const avalancheFuji = {
  caipNetworkId: 'eip155:43113',
  chainNamespace: 'eip155',
  id: 43_113,
  name: 'Avalanche Fuji',
  nativeCurrency: { name: 'Avalanche Fuji', symbol: 'AVAX', decimals: nativeDecimals },
  rpcUrls: { default: { http: ['https://api.avax-test.network/ext/bc/C/rpc'] } },
  blockExplorers: { default: { name: 'SnowTrace', url: 'https://testnet.snowtrace.io' } },
  testnet: true,
} as const satisfies EvmNetwork

export const gnosis = {
  caipNetworkId: 'eip155:100',
  chainNamespace: 'eip155',
  id: 100,
  name: 'Gnosis',
  nativeCurrency: { name: 'xDAI', symbol: 'XDAI', decimals: nativeDecimals },
  rpcUrls: { default: { http: ['https://rpc.gnosischain.com'] } },
  blockExplorers: { default: { name: 'Gnosisscan', url: 'https://gnosisscan.io' } },
  testnet: false,
} as const satisfies EvmNetwork

export const zksync = {
  caipNetworkId: 'eip155:324',
  chainNamespace: 'eip155',
  id: 324,
  name: 'ZKsync Era',
  nativeCurrency: ether,
  rpcUrls: { default: { http: ['https://mainnet.era.zksync.io'] } },
  blockExplorers: { default: { name: 'ZKsync Explorer', url: 'https://explorer.zksync.io' } },
  testnet: false,
} as const satisfies EvmNetwork

export const linea = {
  caipNetworkId: 'eip155:59144',
  chainNamespace: 'eip155',
  id: 59_144,
  name: 'Linea Mainnet',
  nativeCurrency: { name: 'Linea Ether', symbol: 'ETH', decimals: nativeDecimals },
  rpcUrls: { default: { http: ['https://rpc.linea.build'] } },
  blockExplorers: { default: { name: 'Etherscan', url: 'https://lineascan.build' } },
  testnet: false,
} as const satisfies EvmNetwork

export const lineaSepolia = {
  caipNetworkId: 'eip155:59141',
  chainNamespace: 'eip155',
  id: 59_141,
  name: 'Linea Sepolia Testnet',
  nativeCurrency: { name: 'Linea Ether', symbol: 'ETH', decimals: nativeDecimals },
  rpcUrls: { default: { http: ['https://rpc.sepolia.linea.build'] } },
  blockExplorers: { default: { name: 'Etherscan', url: 'https://sepolia.lineascan.build' } },
  testnet: true,
} as const satisfies EvmNetwork

export const scroll = {
  caipNetworkId: 'eip155:534352',
  chainNamespace: 'eip155',
  id: 534_352,
  name: 'Scroll',
  nativeCurrency: ether,
  rpcUrls: { default: { http: ['https://rpc.scroll.io'] } },
  blockExplorers: { default: { name: 'Scrollscan', url: 'https://scrollscan.com' } },
  testnet: false,
} as const satisfies EvmNetwork

export const celo = {
  caipNetworkId: 'eip155:42220',
  chainNamespace: 'eip155',
  id: 42_220,
  name: 'Celo',
  nativeCurrency: { name: 'CELO', symbol: 'CELO', decimals: nativeDecimals },
  rpcUrls: { default: { http: ['https://forno.celo.org'] } },
  blockExplorers: { default: { name: 'Celo Explorer', url: 'https://celoscan.io' } },
  testnet: false,
} as const satisfies EvmNetwork

export const mantle = {
  caipNetworkId: 'eip155:5000',
  chainNamespace: 'eip155',
  id: 5000,
  name: 'Mantle',
  nativeCurrency: { name: 'MNT', symbol: 'MNT', decimals: nativeDecimals },
  rpcUrls: { default: { http: ['https://rpc.mantle.xyz'] } },
  blockExplorers: { default: { name: 'Mantle Explorer', url: 'https://mantlescan.xyz' } },
  testnet: false,
} as const satisfies EvmNetwork

export const blast = {
  caipNetworkId: 'eip155:81457',
  chainNamespace: 'eip155',
  id: 81_457,
  name: 'Blast',
  nativeCurrency: ether,
  rpcUrls: { default: { http: ['https://rpc.blast.io'] } },
  blockExplorers: { default: { name: 'Blastscan', url: 'https://blastscan.io' } },
  testnet: false,
} as const satisfies EvmNetwork

export const zora = {
  caipNetworkId: 'eip155:7777777',
  chainNamespace: 'eip155',
  id: 7_777_777,
  name: 'Zora',
  nativeCurrency: ether,
  rpcUrls: { default: { http: ['https://rpc.zora.energy'] } },
  blockExplorers: { default: { name: 'Explorer', url: 'https://explorer.zora.energy' } },
  testnet: false,
} as const satisfies EvmNetwork

/**
 * The local development chain (an anvil node on 127.0.0.1:8545). Not one of
 * the 24 public networks; included in {@link all}. Its UniversalResolver is
 * the one `npm start` deploys (`@porthole/dev-stack`'s `devEns`: dev account
 * 8's fourth contract); on a node without it, names do not resolve.
 */
export const localChain = {
  caipNetworkId: 'eip155:31337',
  chainNamespace: 'eip155',
  id: 31_337,
  name: 'Porthole Local',
  nativeCurrency: ether,
  rpcUrls: { default: { http: ['http://127.0.0.1:8545'] } },
  contracts: {
    ensUniversalResolver: { address: '0xcA8b49076D1A8039599e24979abf819af784c27a' },
  },
  testnet: true,
} as const satisfies EvmNetwork

/** The 24 public EVM networks, mainnets and testnets (SPEC section 3). */
export const networks = [
  mainnet,
  sepolia,
  holesky,
  optimism,
  optimismSepolia,
  arbitrum,
  arbitrumSepolia,
  base,
  baseSepolia,
  polygon,
  polygonAmoy,
  bsc,
  bscTestnet,
  avalanche,
  avalancheFuji,
  gnosis,
  zksync,
  linea,
  lineaSepolia,
  scroll,
  celo,
  mantle,
  blast,
  zora,
] as const satisfies readonly EvmNetwork[]

/**
 * The 24 public EVM networks followed by {@link localChain}: a non-empty
 * tuple, as wagmi wants. Marked pure so that bundlers can still drop the
 * tables a bundle does not use (a spread alone keeps them in esbuild's).
 */
export const all = /* @__PURE__ */ (() =>
  [...networks, localChain] as const satisfies readonly EvmNetwork[])()

/** The EVM network (local chain included) with chain id `id`, if any. */
export function getById(id: number): EvmNetwork | undefined {
  return all.find((network) => network.id === id)
}
