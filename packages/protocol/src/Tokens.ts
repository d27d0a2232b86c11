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

export const Token = z.strictObject({
  address: z.union([EvmTokenAddress, SplMintAddress]),
  name: z.string().check(z.minLength(1), z.maxLength(64)),
  symbol: z.string().check(z.minLength(1), z.maxLength(16)),
  decimals: z.number().check(z.int(), z.minimum(0), z.maximum(36)),
})
export type Token = z.infer<typeof Token>

export const TokenList = z.strictObject({ tokens: z.array(Token).check(z.maxLength(100)) })
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
