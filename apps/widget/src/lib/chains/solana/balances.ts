/**
 * SOL and SPL token balances of an account, through the API's RPC proxy.
 * The token list comes from the API (`GET /tokens`, per network); tokens
 * with 0 decimals are dropped (SPEC section 5). A token's balance is the sum
 * of the account's token accounts of its mint (the associated one, usually).
 */
import { nativeDecimals } from '@porthole/chains/Solana'
import { TokenList } from '@porthole/protocol/Tokens'
import { unpackAccount } from '@solana/spl-token'
import { PublicKey } from '@solana/web3.js'
import { api } from '../../data/api.js'
import { projectId } from '../../env.js'
import { connectionFor } from './rpc.js'

export type SolanaBalance = { value: bigint; decimals: number; symbol: string }
export type SolanaTokenBalance = SolanaBalance & { address: string; name: string }

export async function getBalance(address: string, caipNetworkId: string): Promise<SolanaBalance> {
  const lamports = await connectionFor(caipNetworkId).getBalance(new PublicKey(address))
  return { value: BigInt(lamports), decimals: nativeDecimals, symbol: 'SOL' }
}

/** The API's token list for the network, without 0-decimal tokens. */
export async function listTokens(caipNetworkId: string, signal?: AbortSignal) {
  const list = TokenList.parse(
    await api.get('/tokens', { params: { projectId, chainId: caipNetworkId }, signal }),
  )
  return list.tokens.filter((token) => token.decimals > 0)
}

/** What `owner` holds of `mint`, in its smallest unit: 0 without a token account. */
export async function tokenAmount(
  owner: PublicKey,
  mint: PublicKey,
  caipNetworkId: string,
): Promise<bigint> {
  const { value } = await connectionFor(caipNetworkId).getTokenAccountsByOwner(owner, { mint })
  return value.reduce(
    (sum, { pubkey, account }) => sum + unpackAccount(pubkey, account, account.owner).amount,
    0n,
  )
}

export async function getTokenBalances(
  address: string,
  caipNetworkId: string,
): Promise<SolanaTokenBalance[]> {
  const owner = new PublicKey(address)
  const tokens = await listTokens(caipNetworkId)
  return Promise.all(
    tokens.map(async (token) => ({
      ...token,
      value: await tokenAmount(owner, new PublicKey(token.address), caipNetworkId),
    })),
  )
}
