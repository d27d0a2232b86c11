import { createPriceApi, type PriceApiStandIn } from '@porthole/dev-stack/priceApi'
import { devSolanaToken } from '@porthole/dev-stack/stack'
import * as Api from '@porthole/protocol/Api'
import { Prices } from '@porthole/protocol/Prices'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import { createApp } from '../app.js'
import { configFromEnv, memoryDir, productionRefusals } from '../http/config.js'
import {
  createCoinGeckoPrices,
  createStaticPrices,
  firstPrices,
  maxPriceAnswerBytes,
  type PriceSource,
} from './prices.js'

const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const dai = '0x6B175474E89094C44Da98b954EedeAC495271d0F'
/** A token nobody prices. */
const unknown = '0x000000000000000000000000000000000000dEaD'
const { chainId: solanaLocal, address: solanaMint } = devSolanaToken

let standIn: PriceApiStandIn
const warnings: string[] = []

beforeAll(async () => {
  standIn = await createPriceApi({
    prices: {
      tokens: { ethereum: { [usdc]: 0.9998, [dai]: 1.0002 }, solana: { [solanaMint]: 4.5 } },
      coins: { ethereum: 3012.5, solana: 151.25 },
    },
  })
})
afterAll(() => standIn?.close())
beforeEach(() => {
  standIn.misbehave('none')
  warnings.length = 0
})

const networks = {
  'eip155:1': { platform: 'ethereum', native: 'ethereum' },
  [solanaLocal]: { platform: 'solana', native: 'solana' },
  'eip155:5': { platform: 'no-such-platform' },
}

/** A fresh adapter (its own cache) against the stand-in, over real HTTP. */
const adapter = (options: { timeoutMs?: number; key?: string } = {}) =>
  createCoinGeckoPrices({
    url: standIn.url,
    networks,
    warn: (line) => warnings.push(line),
    ...options,
  })

describe('the CoinGecko adapter, against the stand-in', () => {
  test('prices listed tokens and the native coin, keyed as the caller spelt them', async () => {
    const before = standIn.requests.length
    const found = await adapter().prices('eip155:1', [usdc, dai])
    expect(found).toEqual({ native: 3012.5, tokens: { [usdc]: 0.9998, [dai]: 1.0002 } })
    const asked = standIn.requests.slice(before)
    expect(asked.map((request) => request.path).sort()).toEqual([
      '/simple/price',
      '/simple/token_price/ethereum',
    ])
    const tokenQuery = new URLSearchParams(
      asked.find((request) => request.path.includes('token_price'))?.query,
    )
    expect(tokenQuery.get('vs_currencies')).toBe('usd')
    expect(tokenQuery.get('contract_addresses')?.split(',').sort()).toEqual(
      [usdc, dai].map((address) => address.toLowerCase()).sort(),
    )
    expect(warnings).toEqual([])
  })

  test('SPL mints keep their case', async () => {
    expect(await adapter().prices(solanaLocal, [solanaMint])).toEqual({
      native: 151.25,
      tokens: { [solanaMint]: 4.5 },
    })
    expect(await adapter().prices(solanaLocal, [solanaMint.toLowerCase()])).toEqual({
      native: 151.25,
      tokens: {},
    })
  })

  test('an unknown token has no price; the others keep theirs', async () => {
    const found = await adapter().prices('eip155:1', [usdc, unknown])
    expect(found.tokens).toEqual({ [usdc]: 0.9998 })
    expect(Object.hasOwn(found.tokens, unknown)).toBe(false)
  })

  test('a chain with no CoinGecko ids is not asked about; an unknown platform is no price', async () => {
    const before = standIn.requests.length
    expect(await adapter().prices('eip155:8453', [usdc])).toEqual({ tokens: {} })
    expect(standIn.requests.length).toBe(before)
    expect(await adapter().prices('eip155:5', [usdc])).toEqual({ tokens: {} })
    expect(warnings.join('\n')).toMatch(/answered 404/)
  })

  test('a timeout is no price, and a warning', async () => {
    standIn.misbehave('slow')
    const started = performance.now()
    expect(await adapter({ timeoutMs: 300 }).prices('eip155:1', [usdc])).toEqual({ tokens: {} })
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(warnings.some((line) => /took over 300 ms/.test(line))).toBe(true)
  })

  test.each([
    ['not-json', /no JSON/],
    ['wrong-shape', /unexpected shape/],
    ['huge', new RegExp(`more than ${maxPriceAnswerBytes} bytes`)],
    ['error', /answered 500/],
  ] as const)('a %s answer is no price, and a warning', async (how, warning) => {
    standIn.misbehave(how)
    expect(await adapter().prices('eip155:1', [usdc])).toEqual({ tokens: {} })
    expect(warnings.length).toBeGreaterThan(0)
    expect(warnings.every((line) => warning.test(line))).toBe(true)
  })

  test('a network is asked once a TTL, failures too', async () => {
    const prices = adapter()
    const before = standIn.requests.length
    await prices.prices('eip155:1', [usdc, dai])
    await prices.prices('eip155:1', [dai, usdc])
    await prices.prices('eip155:1', [usdc.toLowerCase(), dai])
    expect(standIn.requests.length - before).toBe(2)

    standIn.misbehave('error')
    const failing = adapter()
    await failing.prices('eip155:1', [usdc])
    await failing.prices('eip155:1', [usdc])
    expect(standIn.requests.length - before).toBe(4)
  })

  test("sends the key as the demo API's header, never in the URL", async () => {
    const before = standIn.requests.length
    await adapter({ key: 'CG-test-key' }).prices('eip155:1', [usdc])
    const asked = standIn.requests.slice(before)
    expect(asked.length).toBe(2)
    for (const request of asked) {
      expect(request.apiKey).toBe('CG-test-key')
      expect(request.query).not.toContain('CG-test-key')
    }
  })
})

describe('the static table and the order of sources', () => {
  const table = createStaticPrices({
    'eip155:1': { native: 3000, tokens: { [usdc.toLowerCase()]: 1 } },
  })

  test('prices what PRICES names, EVM addresses in any case', async () => {
    expect(await table.prices('eip155:1', [usdc, dai])).toEqual({
      native: 3000,
      tokens: { [usdc]: 1 },
    })
    expect(await table.prices('eip155:10', [usdc])).toEqual({ tokens: {} })
  })

  test('the table wins; the API is asked only for the rest', async () => {
    const asked: string[][] = []
    const api: PriceSource = {
      async prices(_chainId, tokens) {
        asked.push([...tokens])
        return { native: 1, tokens: Object.fromEntries(tokens.map((address) => [address, 2])) }
      },
    }
    expect(await firstPrices([table, api]).prices('eip155:1', [usdc, dai])).toEqual({
      native: 3000,
      tokens: { [usdc]: 1, [dai]: 2 },
    })
    expect(asked).toEqual([[dai]])
  })

  test('PRICES is read and checked from the environment', () => {
    const config = configFromEnv({
      PGLITE_DIR: memoryDir,
      PRICES: JSON.stringify({ 'eip155:1': { native: 3000, tokens: { [usdc]: 1 } } }),
    })
    expect(config.priceTable).toEqual({ 'eip155:1': { native: 3000, tokens: { [usdc]: 1 } } })
    expect(config.priceApi).toBeUndefined()
    for (const bad of [
      { 'eip155:1': { native: 0 } },
      { 'eip155:1': { native: -1 } },
      { 'eip155:1': { tokens: { [solanaMint]: 1 } } },
      { 'eip155:1': { native: '3000' } },
    ])
      expect(() => configFromEnv({ PGLITE_DIR: memoryDir, PRICES: JSON.stringify(bad) })).toThrow(
        /PRICES/,
      )
    expect(() =>
      configFromEnv({ PGLITE_DIR: memoryDir, PRICE_API_URL: 'http://prices.example.com/api/v3' }),
    ).toThrow(/PRICE_API_URL/)
  })

  test("production refuses the dev chain's made-up prices", () => {
    const config = configFromEnv({
      PGLITE_DIR: memoryDir,
      PORTHOLE_ENV: 'production',
      PRICES: JSON.stringify({ 'eip155:31337': { native: 3000 } }),
    })
    expect(productionRefusals(config).join('\n')).toMatch(/PRICES must not name eip155:31337/)
  })
})

describe('GET /prices', () => {
  let testDb: TestDb

  beforeAll(async () => {
    const config = configFromEnv({
      PGLITE_DIR: memoryDir,
      PRICES: JSON.stringify({ 'eip155:8453': { native: 2999 } }),
      PRICE_API_URL: standIn.url,
    })
    testDb = await createTestDb({
      priceTable: config.priceTable,
      priceApi: config.priceApi,
      priceNetworks: config.priceNetworks,
      tokenLists: {
        ...config.tokenLists,
        'eip155:1': [
          { address: usdc, name: 'USD Coin', symbol: 'USDC', decimals: 6 },
          { address: unknown, name: 'Dead', symbol: 'DEAD', decimals: 18 },
        ],
      },
    })
  })
  afterAll(() => testDb?.close())

  const get = (query: string) =>
    createApp({ config: testDb.config, db: testDb.db }).request(`/prices?${query}`)

  test("prices the chain's listed tokens from the price API; an unpriced one is absent", async () => {
    const response = await get('projectId=porthole-dev&chainId=eip155:1')
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/)
    expect(Prices.parse(await response.json())).toEqual({
      currency: 'USD',
      native: 3012.5,
      tokens: { [usdc]: 0.9998 },
    })
  })

  test('the static table answers a chain the API has no tokens for; no price, no field', async () => {
    expect(await (await get('projectId=porthole-dev&chainId=eip155:8453')).json()).toEqual({
      currency: 'USD',
      native: 2999,
      tokens: {},
    })
    expect(await (await get('projectId=porthole-dev&chainId=eip155:11155111')).json()).toEqual({
      currency: 'USD',
      tokens: {},
    })
  })

  test('a failing price API is no price, not an error', async () => {
    standIn.misbehave('error')
    const response = await get('projectId=porthole-dev&chainId=eip155:1')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ currency: 'USD', tokens: {} })
  })

  test('refuses a bad chain id, an unknown parameter and an unknown project', async () => {
    for (const [query, status, code] of [
      ['projectId=porthole-dev&chainId=nope', 400, 'invalid_query'],
      ['projectId=porthole-dev&chainId=eip155:1&tokens=0x1', 400, 'invalid_query'],
      ['projectId=nobody-here&chainId=eip155:1', 403, 'unknown_project'],
    ] as const) {
      const response = await get(query)
      expect(response.status).toBe(status)
      expect(Api.ErrorBody.parse(await response.json()).error.code).toBe(code)
    }
  })
})
