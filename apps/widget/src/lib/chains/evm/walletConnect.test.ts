/**
 * The WalletConnect provider relays every namespace's `accountsChanged` and
 * `chainChanged` with the namespace cut off (`solana/walletConnect.test.ts`
 * shows it on a real session): wagmi's connector takes only the EVM ones.
 */
import { describe, expect, test } from 'vitest'
import { evmAccounts, evmChainId } from './walletConnect.js'

const solanaAddress = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'
const evmAddress = '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955'

describe('the connector reads only EVM events', () => {
  test('a Solana network reference is no chain id; an EIP-155 one, hex or decimal, is', () => {
    expect(evmChainId('B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD')).toBeUndefined()
    expect(evmChainId('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')).toBeUndefined()
    expect(evmChainId('0')).toBeUndefined()
    expect(evmChainId(31337)).toBe(31337)
    expect(evmChainId('0x7a69')).toBe(31337)
  })

  test('Solana accounts are dropped, EVM ones kept (plain or CAIP-10)', () => {
    expect(evmAccounts([solanaAddress])).toEqual([])
    expect(evmAccounts([solanaAddress, evmAddress, `eip155:1:${evmAddress}`])).toEqual([
      evmAddress,
      `eip155:1:${evmAddress}`,
    ])
  })
})
