import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createPriceApi, type PriceApiStandIn } from './priceApi.js'

const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
let standIn: PriceApiStandIn

beforeAll(async () => {
  standIn = await createPriceApi({
    prices: { tokens: { ethereum: { [usdc]: 1.001 } }, coins: { ethereum: 3000 } },
  })
})
afterAll(() => standIn?.close())

const get = async (path: string) => {
  const response = await fetch(`${standIn.url}${path}`)
  return { status: response.status, body: (await response.json()) as unknown }
}

describe("the price API stand-in speaks CoinGecko's simple endpoints", () => {
  test('token prices by contract address, keyed lower-case; unknown addresses left out', async () => {
    expect(
      await get(
        `/simple/token_price/ethereum?contract_addresses=${usdc},0x000000000000000000000000000000000000dEaD&vs_currencies=usd`,
      ),
    ).toEqual({ status: 200, body: { [usdc.toLowerCase()]: { usd: 1.001 } } })
  })

  test('coin prices by id; another currency is not priced', async () => {
    expect(await get('/simple/price?ids=ethereum,nothing&vs_currencies=usd')).toEqual({
      status: 200,
      body: { ethereum: { usd: 3000 } },
    })
    expect(await get('/simple/price?ids=ethereum&vs_currencies=eur')).toEqual({
      status: 200,
      body: { ethereum: {} },
    })
  })

  test('an unknown platform is 404, a missing parameter 400', async () => {
    expect(
      (await get(`/simple/token_price/nowhere?contract_addresses=${usdc}&vs_currencies=usd`))
        .status,
    ).toBe(404)
    expect((await get('/simple/price?ids=ethereum')).status).toBe(400)
    expect((await get('/simple/token_price/ethereum?vs_currencies=usd')).status).toBe(400)
  })

  test('prices can change while it runs', async () => {
    standIn.prices.coins.ethereum = 3100
    expect((await get('/simple/price?ids=ethereum&vs_currencies=usd')).body).toEqual({
      ethereum: { usd: 3100 },
    })
  })
})
