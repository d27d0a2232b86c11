/**
 * The prices of one network's native coin and tokens, in US dollars, as
 * `GET /prices?projectId=&chainId=` serves them (shared by the API and the
 * widget). A coin or token without a price is absent: no price, no fiat.
 */
import { EvmTokenAddress, SplMintAddress } from './Tokens.js'
import { z } from './zod.js'

/** A price in US dollars: positive and finite. */
export const UsdPrice = z.number().check(z.positive(), z.maximum(1e15))

/** The most token prices in one answer: a token list's length (`Tokens.TokenList`). */
export const maxPricedTokens = 100

export const Prices = z.strictObject({
  currency: z.literal('USD'),
  native: z.optional(UsdPrice),
  /** Token address (as `GET /tokens` lists it) → price. */
  tokens: z.record(z.union([EvmTokenAddress, SplMintAddress]), UsdPrice).check(
    z.refine((tokens) => Object.keys(tokens).length <= maxPricedTokens, {
      error: `at most ${maxPricedTokens} tokens`,
    }),
  ),
})
export type Prices = z.infer<typeof Prices>
