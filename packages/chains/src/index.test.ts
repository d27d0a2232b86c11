import { describe, expect, test } from 'vitest'
import * as Chains from './index.js'

describe('index', () => {
  test.each([
    'Address',
    'Bitcoin',
    'Caip2',
    'Caip10',
    'Errors',
    'Evm',
    'Format',
    'Networks',
    'Solana',
    'WalletResponse',
  ])('re-exports the %s namespace', (name) => {
    expect(Object.keys(Chains)).toContain(name)
  })

  test('re-exports nothing else', () => {
    expect(Object.keys(Chains)).toHaveLength(10)
  })
})
