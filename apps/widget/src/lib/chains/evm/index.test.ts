import { ErrorCode } from '@porthole/protocol/Errors'
import { describe, expect, test } from 'vitest'
import { UnknownChainError } from './connection.js'
import { chainIdOf, evm } from './index.js'

describe('chainIdOf', () => {
  test.each([
    ['eip155:1', 1],
    ['eip155:8453', 8453],
    ['eip155:31337', 31337],
  ])('%s is chain %i', (caipNetworkId, chainId) => {
    expect(chainIdOf(caipNetworkId)).toBe(chainId)
  })

  test.each([
    'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    'eip155:',
    'eip155:0x1',
    'eip155:1.5',
    'eip155:99999999999999999999',
    '1',
  ])('%s is not an EVM network: 4902', (caipNetworkId) => {
    expect(() => chainIdOf(caipNetworkId)).toThrow(UnknownChainError)
    expect(() => chainIdOf(caipNetworkId)).toThrow(
      expect.objectContaining({ code: ErrorCode.unknownChain }),
    )
  })
})

describe('the EVM adapter', () => {
  test('is the eip155 namespace', () => {
    expect(evm.namespace).toBe('eip155')
  })

  test('refuses to switch to a network of another namespace before asking any wallet', async () => {
    await expect(evm.switchNetwork('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')).rejects.toThrow(
      UnknownChainError,
    )
  })
})
