import type { TokenList } from '@porthole/protocol/Tokens'
import { Hono } from 'hono'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import type { Config } from '../http/config.js'
import { commonQuery } from '../http/request.js'
import { Caip2 } from '../http/schemas.js'
import { readProjectQuery } from '../projects/projects.js'

const TokensQuery = z.strictObject({ ...commonQuery, chainId: Caip2 })

/**
 * `GET /tokens?projectId=&chainId=`: the tokens the widget shows balances for
 * on one network (`Tokens.TokenList`: ERC-20 contracts on EVM chains, SPL
 * mints on Solana), from `TOKENS`; a chain with none configured answers an
 * empty list.
 */
export function createTokensRoutes({ db, config }: { db: Db; config: Config }): Hono {
  const app = new Hono()
  app.get('/tokens', async (c) => {
    const { query } = await readProjectQuery(c, db, TokensQuery)
    const tokens = Object.hasOwn(config.tokenLists, query.chainId)
      ? config.tokenLists[query.chainId]
      : undefined
    const body: TokenList = { tokens: tokens ?? [] }
    return c.json(body)
  })
  return app
}
