import { describe, expect, test } from 'vitest'
import { OriginsResponse, ProjectConfig } from './Api.js'
import { HistoryPage } from './History.js'
import { Prices } from './Prices.js'
import { TokenList } from './Tokens.js'

const features = {
  email: true,
  socials: ['google'],
  onramp: false,
  swaps: false,
  history: true,
  analytics: false,
}
const token = { address: `0x${'1'.repeat(40)}`, name: 'Token', symbol: 'TKN', decimals: 18 }

/**
 * SECURITY.md 18: the API's answers are HTTP input to the widget and the
 * secure frame, parsed strictly. A release whose answers gain a field ships
 * the widget and the secure frame first (docs/DEPLOY.md, Upgrades).
 */
describe('inv-18 the API answers the widget reads', () => {
  const answers = [
    ['the config', ProjectConfig, { features, networks: ['eip155:1'] }],
    ['the origins', OriginsResponse, { allowedOrigins: ['https://shop.example'] }],
    ['the prices', Prices, { currency: 'USD', tokens: {} }],
    ['a history page', HistoryPage, { data: [], next: null }],
    ['the tokens', TokenList, { tokens: [token] }],
  ] as const

  test.each(answers)('%s as served is read', (_, schema, answer) => {
    expect(schema.parse(answer)).toEqual(answer)
  })

  test.each(answers)('%s with an unknown key is refused', (_, schema, answer) => {
    expect(schema.safeParse({ ...answer, addedLater: 1 }).success).toBe(false)
  })

  test.each(answers)(
    '%s with a __proto__ key is refused, and pollutes nothing',
    (_, schema, answer) => {
      const body = JSON.parse(
        `{${JSON.stringify(answer).slice(1, -1)},"__proto__":{"polluted":true,"allowedOrigins":["https://evil.example"]}}`,
      )
      expect(schema.safeParse(body).success).toBe(false)
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined()
    },
  )

  test('an unknown key inside the features is refused too', () => {
    const config = { features: { ...features, addedLater: true }, networks: ['eip155:1'] }
    expect(ProjectConfig.safeParse(config).success).toBe(false)
  })
})
