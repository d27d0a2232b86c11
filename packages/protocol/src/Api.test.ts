import { describe, expect, test } from 'vitest'
import { Features, ProjectConfig } from './Api.js'
import { HistoryPage } from './History.js'
import { Prices } from './Prices.js'
import { Token, TokenList } from './Tokens.js'

const features = {
  email: true,
  socials: ['google'],
  onramp: false,
  swaps: false,
  history: true,
  analytics: false,
}

describe('the API answers are read leniently, what the operator writes strictly', () => {
  test('an answer with a key a newer API adds is read without it', () => {
    const later = { addedLater: 1 }
    expect(
      ProjectConfig.parse({
        features: { ...features, ...later },
        networks: ['eip155:1'],
        ...later,
      }),
    ).toEqual({ features, networks: ['eip155:1'] })
    expect(Prices.parse({ currency: 'USD', tokens: {}, ...later })).toEqual({
      currency: 'USD',
      tokens: {},
    })
    expect(HistoryPage.parse({ data: [], next: null, ...later })).toEqual({ data: [], next: null })
    const token = { address: `0x${'1'.repeat(40)}`, name: 'Token', symbol: 'TKN', decimals: 18 }
    expect(TokenList.parse({ tokens: [{ ...token, ...later }], ...later })).toEqual({
      tokens: [token],
    })
  })

  test('a known key with a wrong value is still refused', () => {
    expect(
      ProjectConfig.safeParse({ features: { ...features, email: 'yes' }, networks: ['eip155:1'] })
        .success,
    ).toBe(false)
    expect(HistoryPage.safeParse({ data: [], next: 5 }).success).toBe(false)
  })

  test('the features an operator sets, and a token an operator lists, refuse an unknown key', () => {
    expect(Features.safeParse({ ...features, emial: true }).success).toBe(false)
    const token = { address: `0x${'1'.repeat(40)}`, name: 'Token', symbol: 'TKN', decimals: 18 }
    expect(Token.safeParse({ ...token, price: 1 }).success).toBe(false)
  })
})
