import * as Api from '@porthole/protocol/Api'
import { describe, expect, test } from 'vitest'
import { InvalidNetworkError } from '../http/errors.js'
import {
  describeKnownNetworks,
  networkIds,
  parseNetwork,
  parseNetworks,
  readStoredNetworks,
  splitNetworkList,
} from './networks.js'

describe('networkIds', () => {
  test('holds the 24 public EVM networks, the local chain, 3 Solana networks and Solana Local, no Bitcoin', () => {
    expect(networkIds).toHaveLength(29)
    expect(networkIds.filter((id) => id.startsWith('eip155:'))).toHaveLength(25)
    expect(networkIds.filter((id) => id.startsWith('solana:'))).toHaveLength(4)
    expect(networkIds).toContain('eip155:31337')
    expect(networkIds).toContain('solana:B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD')
    expect(new Set(networkIds).size).toBe(networkIds.length)
  })

  test('the default networks are known: eip155:1 only', () => {
    expect(Api.defaultNetworks).toEqual(['eip155:1'])
    expect(Api.ProjectConfig.shape.networks.parse(Api.defaultNetworks)).toEqual(['eip155:1'])
  })
})

describe('parseNetwork', () => {
  test.each([
    'eip155:1',
    'eip155:31337',
    'eip155:7777777',
    'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    'solana:B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD',
  ])('accepts the known network %s', (network) => {
    expect(parseNetwork(network)).toBe(network)
    expect(Api.NetworkId.parse(network)).toBe(network)
  })

  test('trims white space', () => {
    expect(parseNetwork(' eip155:8453 ')).toBe('eip155:8453')
  })

  test.each([
    ['eip155:999', /^Unknown network 'eip155:999'\. Known networks .*eip155: 1 11155111 /],
    ['bip122:000000000019d6689c085ae165831e93', /^Unknown network 'bip122:0000/],
    ['solana:devnet', /^Unknown network 'solana:devnet'.*solana: 5eykt4Us/],
  ])('refuses the unknown network %s, naming it and the known ones', (network, message) => {
    expect(() => parseNetwork(network)).toThrow(InvalidNetworkError)
    expect(() => parseNetwork(network)).toThrow(message)
    // The wire schema takes any CAIP-2 id: the API alone decides which exist.
    expect(Api.NetworkId.safeParse(network).success).toBe(true)
  })

  test.each([
    '',
    'eip155',
    '1',
    'eip155:',
    ':1',
    'eip155:1:0xabc',
    'EIP155:1',
    'eip155:1 eip155:10',
  ])('refuses the malformed id %j', (network) => {
    expect(() => parseNetwork(network)).toThrow(
      `'${network}' is not a CAIP-2 network id (namespace:reference, e.g. eip155:1)`,
    )
    expect(Api.NetworkId.safeParse(network).success).toBe(false)
  })
})

describe('parseNetworks', () => {
  test('keeps the order (the first is the default) and drops duplicates', () => {
    expect(parseNetworks(['eip155:8453', 'eip155:1', 'eip155:8453'])).toEqual([
      'eip155:8453',
      'eip155:1',
    ])
  })

  test('refuses an empty list', () => {
    expect(() => parseNetworks([])).toThrow('A project needs at least one network')
  })

  test('refuses more entries than a project may list', () => {
    expect(() => parseNetworks(Array(Api.maxNetworks + 1).fill('eip155:1'))).toThrow(
      `at most ${Api.maxNetworks} networks`,
    )
  })

  test('refuses the whole list for one bad entry', () => {
    expect(() => parseNetworks(['eip155:1', 'eip155:2'])).toThrow("Unknown network 'eip155:2'")
  })
})

describe('splitNetworkList', () => {
  test.each([
    [['eip155:1,eip155:10'], ['eip155:1', 'eip155:10']],
    [
      ['eip155:1', 'eip155:10,eip155:8453'],
      ['eip155:1', 'eip155:10', 'eip155:8453'],
    ],
    [[''], []],
    [['eip155:1,'], ['eip155:1', '']],
  ])('splits %j', (values, expected) => {
    expect(splitNetworkList(values)).toEqual(expected)
  })
})

describe('readStoredNetworks', () => {
  test('keeps known networks in order and reports the others', () => {
    expect(readStoredNetworks(['eip155:10', 'eip155:2', 42, 'eip155:10', 'eip155:1'])).toEqual({
      networks: ['eip155:10', 'eip155:1'],
      refused: ['eip155:2', '42'],
    })
  })

  test.each([[[]], [['eip155:2']], [{}], [null]])(
    'serves the default networks when none of %j is known',
    (stored) => {
      expect(readStoredNetworks(stored).networks).toEqual(['eip155:1'])
    },
  )
})

describe('describeKnownNetworks', () => {
  test('lists every known network by namespace', () => {
    const text = describeKnownNetworks()
    for (const id of networkIds) expect(text).toContain(id.split(':')[1])
    expect(text).toMatch(/^eip155: 1 .* 31337; solana: .* B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD$/)
  })
})
