/**
 * The ERC-20 tokens the widget shows balances for on one network, as
 * `GET /tokens?projectId=&chainId=` serves them (shared by the API and the widget).
 */
import { z } from './zod.js'

export const Token = z.strictObject({
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  name: z.string().min(1).max(64),
  symbol: z.string().min(1).max(16),
  decimals: z.number().int().min(0).max(36),
})
export type Token = z.infer<typeof Token>

export const TokenList = z.strictObject({ tokens: z.array(Token).max(100) })
export type TokenList = z.infer<typeof TokenList>
