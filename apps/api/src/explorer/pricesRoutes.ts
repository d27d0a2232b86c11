import type { Prices } from '@porthole/protocol/Prices'
import { Hono } from 'hono'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import type { Config } from '../http/config.js'
import { commonQuery } from '../http/request.js'
import { Caip2 } from '../http/schemas.js'
import { readProjectQuery } from '../projects/projects.js'
import type { PriceSource } from './prices.js'

const PricesQuery = z.strictObject({ ...commonQuery, chainId: Caip2 })

/** Browsers may keep an answer this long (the price API's own cadence is a minute). */
export const pricesCacheControl = 'public, max-age=30'

/**
 * `GET /prices?projectId=&chainId=`: the US dollar prices (`Prices.Prices`)
 * of the network's native coin and of the tokens `GET /tokens` lists for it,
 * from `prices`. Only listed tokens are priced, so no caller can make the API
 * ask its price source about anything else. Nothing priced: `{ currency:
 * 'USD', tokens: {} }`.
 */
export function createPricesRoutes({
  db,
  config,
  prices,
}: {
  db: Db
  config: Pick<Config, 'tokenLists'>
  prices: PriceSource
}): Hono {
  const app = new Hono()
  app.get('/prices', async (c) => {
    const { query } = await readProjectQuery(c, db, PricesQuery)
    const listed = Object.hasOwn(config.tokenLists, query.chainId)
      ? (config.tokenLists[query.chainId] ?? [])
      : []
    const found = await prices.prices(
      query.chainId,
      listed.map((token) => token.address),
    )
    const body: Prices = {
      currency: 'USD',
      ...(found.native === undefined ? {} : { native: found.native }),
      tokens: found.tokens,
    }
    c.header('Cache-Control', pricesCacheControl)
    return c.json(body)
  })
  return app
}
