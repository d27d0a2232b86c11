/**
 * The tokens the widget shows balances for on one network, as
 * `GET /tokens?projectId=&chainId=` serves them (shared by the API and the
 * widget): ERC-20 contracts on EVM networks, SPL mints on Solana networks.
 */
import { z } from './zod.js'

/** An ERC-20 contract address: `0x` and 40 hex characters. */
export const EvmTokenAddress = z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/))
/** An SPL token's mint: a Solana address, 32 to 44 base58 characters (SPEC section 5). */
export const SplMintAddress = z.string().check(z.regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/))

/** A token as the operator lists it (`TOKENS`; unknown keys refused) and the secure frame keeps it. */
export const Token = z.strictObject({
  address: z.union([EvmTokenAddress, SplMintAddress]),
  name: z.string().check(z.minLength(1), z.maxLength(64)),
  symbol: z.string().check(z.minLength(1), z.maxLength(16)),
  decimals: z.number().check(z.int(), z.minimum(0), z.maximum(36)),
})
export type Token = z.infer<typeof Token>

/** The most tokens one network lists. */
export const maxTokens = 100

/** `GET /tokens`'s answer, read as every API answer is (`Api.ProjectConfig`): unknown keys dropped. */
export const TokenList = z.object({
  tokens: z.array(z.object(Token.shape)).check(z.maxLength(maxTokens)),
})
export type TokenList = z.infer<typeof TokenList>

/**
 * Whether `token`'s address has the shape of `chainId`'s namespace: an ERC-20
 * address on `eip155:*`, an SPL mint on `solana:*`; any other namespace has none.
 */
export function fitsChain(chainId: string, token: Pick<Token, 'address'>): boolean {
  if (chainId.startsWith('eip155:')) return EvmTokenAddress.safeParse(token.address).success
  if (chainId.startsWith('solana:')) return SplMintAddress.safeParse(token.address).success
  return false
}
