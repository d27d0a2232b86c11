import { type Address, type PublicClient, parseAbi } from 'viem'
import type { Db } from '../db/db.js'

const metadataAbi = parseAbi([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
])

export type TokenMetadata = { name: string | null; symbol: string | null; decimals: number | null }

/** A contract's own words, bounded: no control or format characters, at most 64 characters. */
const boundedText = (value: unknown) =>
  typeof value === 'string' ? value.replace(/[\p{Cc}\p{Cf}]/gu, '').slice(0, 64) : null

/**
 * Name, symbol and (for `erc20` contracts) decimals of `contracts` (lower
 * case) on `chainId`: those kept in `history_tokens`, and at most `maxReads`
 * of the others read from the contracts now (each call may fail: null) and
 * kept. Hostile contracts choose these values, hence the bounds.
 */
export async function learnTokens(
  db: Db,
  client: PublicClient,
  chainId: string,
  contracts: readonly { address: string; erc20: boolean }[],
  maxReads = Number.POSITIVE_INFINITY,
): Promise<Map<string, TokenMetadata>> {
  if (contracts.length === 0) return new Map()
  const known = await db.query<TokenMetadata & { address: string }>(
    `SELECT address, name, symbol, decimals FROM history_tokens
     WHERE chain_id = $1 AND address = ANY($2::text[])`,
    [chainId, contracts.map((contract) => contract.address)],
  )
  const result = new Map<string, TokenMetadata>(known.map(({ address, ...row }) => [address, row]))
  const unknown = contracts.filter((contract) => !result.has(contract.address)).slice(0, maxReads)
  for (const { address, erc20 } of unknown) {
    const read = (functionName: 'name' | 'symbol' | 'decimals') =>
      client
        .readContract({ address: address as Address, abi: metadataAbi, functionName })
        .catch(() => null)
    const [name, symbol, decimals] = await Promise.all([
      read('name'),
      read('symbol'),
      erc20 ? read('decimals') : null,
    ])
    const row = {
      name: boundedText(name),
      symbol: boundedText(symbol),
      decimals: typeof decimals === 'number' && decimals <= 77 ? decimals : null,
    }
    await db.query(
      `INSERT INTO history_tokens (chain_id, address, name, symbol, decimals)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
      [chainId, address, row.name, row.symbol, row.decimals],
    )
    result.set(address, row)
  }
  return result
}
