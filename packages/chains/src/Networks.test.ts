import { describe, expect, test } from 'vitest'
import * as Bitcoin from './Bitcoin.js'
import * as Caip2 from './Caip2.js'
import * as Evm from './Evm.js'
import * as Networks from './Networks.js'
import * as Solana from './Solana.js'

describe('Evm.networks', () => {
  test('has 24 networks with unique ids and CAIP-2 ids', () => {
    expect(Evm.networks).toHaveLength(24)
    expect(new Set(Evm.networks.map((network) => network.id)).size).toBe(24)
    expect(new Set(Evm.networks.map((network) => network.caipNetworkId)).size).toBe(24)
  })

  test('does not include the local chain', () => {
    expect(Evm.networks.map((network) => network.id)).not.toContain(31_337)
  })

  test.each([
    [1, 'Ethereum', false],
    [11_155_111, 'Sepolia', true],
    [17_000, 'Holesky', true],
    [10, 'OP Mainnet', false],
    [11_155_420, 'OP Sepolia', true],
    [42_161, 'Arbitrum One', false],
    [421_614, 'Arbitrum Sepolia', true],
    [8453, 'Base', false],
    [84_532, 'Base Sepolia', true],
    [137, 'Polygon', false],
    [80_002, 'Polygon Amoy', true],
    [56, 'BNB Smart Chain', false],
    [97, 'BNB Smart Chain Testnet', true],
    [43_114, 'Avalanche', false],
    [43_113, 'Avalanche Fuji', true],
    [100, 'Gnosis', false],
    [324, 'ZKsync Era', false],
    [59_144, 'Linea Mainnet', false],
    [59_141, 'Linea Sepolia Testnet', true],
    [534_352, 'Scroll', false],
    [42_220, 'Celo', false],
    [5000, 'Mantle', false],
    [81_457, 'Blast', false],
    [7_777_777, 'Zora', false],
  ])('chain %i is %s (testnet: %s)', (id, name, testnet) => {
    const network = Evm.networks.find((candidate) => candidate.id === id)
    expect(network).toMatchObject({
      caipNetworkId: `eip155:${id}`,
      chainNamespace: 'eip155',
      name,
      testnet,
    })
  })

  test.each(Evm.networks.map((network) => [network.name, network] as const))(
    '%s fits the viem Chain shape',
    (_, network) => {
      expect(Number.isSafeInteger(network.id)).toBe(true)
      expect(network.nativeCurrency.decimals).toBe(18)
      expect(network.nativeCurrency.symbol).toMatch(/^[A-Za-z]+$/)
      expect(network.rpcUrls.default.http.length).toBeGreaterThan(0)
      for (const url of network.rpcUrls.default.http) expect(new URL(url).protocol).toBe('https:')
      expect(new URL(network.blockExplorers.default.url).protocol).toBe('https:')
      expect(network.blockExplorers.default.url).not.toMatch(/\/$/)
    },
  )
})

describe('Evm.localChain', () => {
  test('is the Porthole local chain on 127.0.0.1:8545', () => {
    expect(Evm.localChain).toEqual({
      caipNetworkId: 'eip155:31337',
      chainNamespace: 'eip155',
      id: 31_337,
      name: 'Porthole Local',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: ['http://127.0.0.1:8545'] } },
      // The dev stack's ENS (its ens.test.ts checks the address against what it deploys).
      contracts: {
        ensUniversalResolver: { address: '0xcA8b49076D1A8039599e24979abf819af784c27a' },
      },
      testnet: true,
    })
  })
})

describe('contracts.ensUniversalResolver', () => {
  test("is on Ethereum, Sepolia, Holesky (viem's address) and the local chain only", () => {
    const withEns = Evm.all.filter((network) =>
      'contracts' in network ? network.contracts.ensUniversalResolver : false,
    )
    expect(withEns.map((network) => network.id)).toEqual([1, 11_155_111, 17_000, 31_337])
    for (const network of [Evm.mainnet, Evm.sepolia, Evm.holesky])
      expect(network.contracts.ensUniversalResolver.address).toBe(
        '0xeeeeeeee14d718c2b47d9923deab1335e144eeee',
      )
  })
})

describe('Evm.all', () => {
  test('is the 24 networks followed by the local chain', () => {
    expect(Evm.all).toEqual([...Evm.networks, Evm.localChain])
  })
})

describe('Evm.getById', () => {
  test.each([
    [1, Evm.mainnet],
    [8453, Evm.base],
    [31_337, Evm.localChain],
    [999_999, undefined],
  ])('finds chain %i', (id, expected) => {
    expect(Evm.getById(id)).toBe(expected)
  })
})

describe('Solana.networks', () => {
  test.each([
    ['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', false, Solana.mainnet],
    ['solana:4uhcVJyU9pJkvQyS88uRDiswHXSRkz3J', true, Solana.testnet],
    ['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', true, Solana.devnet],
  ])('%s has testnet %s', (caipNetworkId, testnet, network) => {
    expect(network.caipNetworkId).toBe(caipNetworkId)
    expect(network.testnet).toBe(testnet)
    expect(network.nativeCurrency).toEqual({ name: 'Solana', symbol: 'SOL', decimals: 9 })
  })

  test('has mainnet, testnet and devnet', () => {
    expect(Solana.networks).toEqual([Solana.mainnet, Solana.testnet, Solana.devnet])
  })
})

describe('Solana.all', () => {
  test('is the 3 public networks followed by Solana Local', () => {
    expect(Solana.all).toEqual([...Solana.networks, Solana.localnet])
  })
})

describe('Solana.localnet', () => {
  test('is Solana Local on 127.0.0.1:8899, named by its fixed genesis hash', () => {
    expect(Solana.localnet).toEqual({
      caipNetworkId: 'solana:B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD',
      chainNamespace: 'solana',
      id: 'B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD',
      name: 'Solana Local',
      nativeCurrency: { name: 'Solana', symbol: 'SOL', decimals: 9 },
      rpcUrls: { default: { http: ['http://127.0.0.1:8899'] } },
      testnet: true,
    })
  })

  // Beside the public networks as anvil's 31337 is beside the EVM list (issue 13).
  test('is not one of the public networks, but a known network', () => {
    expect(Solana.networks).not.toContain(Solana.localnet)
    expect(Networks.getByCaipNetworkId(Solana.localnet.caipNetworkId)).toBe(Solana.localnet)
  })
})

describe('Solana.walletStandardChains', () => {
  test.each([
    [Solana.mainnet.caipNetworkId, 'solana:mainnet'],
    [Solana.testnet.caipNetworkId, 'solana:testnet'],
    [Solana.devnet.caipNetworkId, 'solana:devnet'],
    [Solana.localnet.caipNetworkId, 'solana:localnet'],
  ] as const)('%s is %s', (caipNetworkId, chain) => {
    expect(Solana.walletStandardChains[caipNetworkId]).toBe(chain)
  })
})

describe('Bitcoin.all', () => {
  test.each([
    ['bip122:000000000019d6689c085ae165831e93', false, Bitcoin.mainnet],
    ['bip122:000000000933ea01ad0ee984209779ba', true, Bitcoin.testnet],
    ['bip122:00000008819873e925422c1ff0f99f7c', true, Bitcoin.signet],
  ])('%s has testnet %s', (caipNetworkId, testnet, network) => {
    expect(network.caipNetworkId).toBe(caipNetworkId)
    expect(network.testnet).toBe(testnet)
    expect(network.nativeCurrency.decimals).toBe(8)
  })

  test('has mainnet, testnet and signet', () => {
    expect(Bitcoin.all).toEqual([Bitcoin.mainnet, Bitcoin.testnet, Bitcoin.signet])
  })
})

describe('all', () => {
  test('holds 24 EVM networks, the local chain, 3 Solana networks, Solana Local and 3 Bitcoin networks', () => {
    expect(Networks.all).toHaveLength(32)
    expect(Networks.all.filter((network) => network.chainNamespace === 'eip155')).toHaveLength(25)
    expect(Networks.all.filter((network) => network.chainNamespace === 'solana')).toHaveLength(4)
    expect(Networks.all.filter((network) => network.chainNamespace === 'bip122')).toHaveLength(3)
    expect(Networks.all).toContain(Evm.localChain)
    expect(Networks.all).toContain(Solana.localnet)
  })

  test('has unique CAIP-2 ids', () => {
    const ids = Networks.all.map((network) => network.caipNetworkId)
    expect(new Set(ids).size).toBe(ids.length)
  })

  test.each(Networks.all.map((network) => [network.caipNetworkId, network] as const))(
    '%s parses to its namespace and id',
    (caipNetworkId, network) => {
      expect(Caip2.parse(caipNetworkId)).toEqual({
        namespace: network.chainNamespace,
        reference: String(network.id),
      })
      expect(network.nativeCurrency.decimals).toBe(Networks.nativeDecimals[network.chainNamespace])
      expect(typeof network.id).toBe(network.chainNamespace === 'eip155' ? 'number' : 'string')
    },
  )
})

describe('getByCaipNetworkId', () => {
  test.each(Networks.all.map((network) => [network.caipNetworkId, network] as const))(
    'finds %s',
    (caipNetworkId, network) => {
      expect(Networks.getByCaipNetworkId(caipNetworkId)).toBe(network)
    },
  )

  test.each(['eip155:999999', 'eip155', 'solana:mainnet', '', 'EIP155:1'])(
    'returns undefined for %j',
    (caipNetworkId) => {
      expect(Networks.getByCaipNetworkId(caipNetworkId)).toBeUndefined()
    },
  )
})

describe('defaultNetwork', () => {
  test('is Ethereum mainnet, eip155:1', () => {
    expect(Networks.defaultNetwork.caipNetworkId).toBe('eip155:1')
    expect(Networks.defaultNetwork).toBe(Evm.mainnet)
    expect(Networks.all).toContain(Networks.defaultNetwork)
  })
})

describe('nativeDecimals', () => {
  test('is 18 for EVM, 9 for Solana and 8 for Bitcoin', () => {
    expect(Networks.nativeDecimals).toEqual({ eip155: 18, solana: 9, bip122: 8 })
  })
})
