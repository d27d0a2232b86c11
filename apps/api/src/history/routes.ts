import {
  type HistoryPage,
  type HistoryTransaction,
  type HistoryTransfer,
  historyPageSize,
  type transferKinds,
} from '@porthole/protocol/History'
import { Hono } from 'hono'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import { enforceRateLimit, scaled } from '../db/rateLimit.js'
import type { Config } from '../http/config.js'
import { HttpError } from '../http/errors.js'
import { clientIp, commonQuery, optionalParam, parseInput } from '../http/request.js'
import { Caip2 } from '../http/schemas.js'
import { readProjectQuery } from '../projects/projects.js'
import { EvmCursor, encodeCursor } from './cursor.js'
import { readEvmAddressHistory } from './evmAddress.js'
import { readSolanaHistory, SolanaAddress, SolanaSignature } from './solana.js'

/** Most transfers of one transaction shown (an ERC-1155 batch may move thousands). */
export const maxTransfersPerTransaction = 100

/** Per IP: a page is a few indexed reads, and an Activity view reads one per scroll. */
export const historyIpLimit = { limit: 120, windowSeconds: 60 }
/**
 * Per IP, on an address-scoped network, where a page costs the node up to 40
 * `eth_getLogs` (EVM) or 21 calls (Solana): the upstream's budget is the
 * operator's, so a page is dearer.
 */
export const scopedHistoryIpLimit = { limit: 20, windowSeconds: 60 }
/** Per project, on address-scoped networks: what all its visitors may ask of the nodes. */
export const scopedHistoryProjectLimit = { limit: 600, windowSeconds: 60 }

export const HistoryQuery = z.strictObject({
  ...commonQuery,
  chainId: Caip2,
  /** An EVM page's `block:txIndex` (base64url), or a Solana page's last signature. */
  cursor: optionalParam(
    z
      .string()
      .max(128)
      .regex(/^[A-Za-z0-9_-]+$/, 'must be a cursor this endpoint returned'),
  ),
  /** The seed's onramp filter: this server records no onramp purchases, so only its absence is served. */
  onramp: optionalParam(z.string().max(32)),
  /** The seed's cache option: `false` asks for an answer no cache kept. */
  cache: optionalParam(z.enum(['true', 'false'])),
})

const EvmAccount = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be an EVM address: 0x and 40 hex digits')
  .transform((value) => value.toLowerCase())

type Row = {
  tx_hash: string
  log_index: number
  sub_index: number
  block_number: string
  tx_index: number
  mined_at: Date | string
  status: 'confirmed' | 'failed'
  kind: (typeof transferKinds)[number]
  token: string | null
  token_id: string | null
  tx_from: string
  from_address: string
  to_address: string
  amount: string
  name: string | null
  symbol: string | null
  decimals: number | null
  is_spam: boolean
}

/**
 * One page of `address`'s transactions on `chainId`, newest first: every
 * transaction in which it sent or received a token, with those transfers.
 */
export async function readHistory(
  db: Db,
  {
    projectId,
    chainId,
    address,
    cursor,
    listedTokens = [],
  }: {
    projectId: string
    chainId: string
    address: string
    cursor?: { block: bigint; txIndex: number } | undefined
    /** The network's `TOKENS` addresses: their moves out of the account are always shown. */
    listedTokens?: readonly string[]
  },
): Promise<HistoryPage> {
  const after = cursor ? [cursor.block.toString(), cursor.txIndex] : [null, null]
  // The page's transactions first (keyset on block and position), then their transfers.
  // Each side reads its own index in order and stops early: a busy address (the zero
  // address, a router) costs a page, never a scan of all its rows. A transaction can
  // have many transfers, so each side takes distinct transactions, not rows.
  const side = (column: 'from_address' | 'to_address') => `(
       SELECT block_number, tx_index, tx_hash FROM (
         SELECT DISTINCT ON (block_number, tx_index) block_number, tx_index, tx_hash
         FROM history_transfers
         WHERE chain_id = $1 AND ${column} = $2
           AND ($3::bigint IS NULL OR (block_number, tx_index) < ($3::bigint, $4::int))
         ORDER BY block_number DESC, tx_index DESC
       ) AS d ORDER BY block_number DESC, tx_index DESC LIMIT $5)`
  const keys = await db.query<{ block_number: string; tx_index: number; tx_hash: string }>(
    `SELECT DISTINCT block_number, tx_index, tx_hash FROM (
       ${side('from_address')} UNION ALL ${side('to_address')}
     ) AS mine
     ORDER BY block_number DESC, tx_index DESC
     LIMIT $5`,
    [chainId, address, ...after, historyPageSize + 1],
  )
  const page = keys.slice(0, historyPageSize)
  const last = page.at(-1)
  const next =
    keys.length > historyPageSize && last ? encodeCursor(last.block_number, last.tx_index) : null
  if (page.length === 0) return { data: [], next: null }
  // At most `maxTransfersPerTransaction` of each transaction, cut in SQL (an ERC-1155
  // batch of thousands of ids must not be read whole).
  const rows = await db.query<Row>(
    `SELECT t.tx_hash, t.log_index, t.sub_index, t.block_number::text AS block_number, t.tx_index,
       t.mined_at, t.status, t.kind, t.token, t.token_id, t.tx_from, t.from_address, t.to_address,
       t.amount::text AS amount, k.name, k.symbol, k.decimals,
       EXISTS (SELECT 1 FROM history_spam s
               WHERE s.chain_id = t.chain_id AND s.address = t.token
                 AND s.project_id IN ('', $4)) AS is_spam
     FROM unnest($2::text[]) AS page (tx_hash)
     CROSS JOIN LATERAL (
       SELECT * FROM history_transfers h
       WHERE h.chain_id = $1 AND h.tx_hash = page.tx_hash
         AND (h.from_address = $3 OR h.to_address = $3)
         -- A token's move out of the account that it did not send, of a token not
         -- listed for the network, or of nothing at all: address poisoning, not shown.
         AND NOT (h.kind = 'erc20' AND (h.amount = 0 OR (
           h.from_address = $3 AND h.tx_from <> $3 AND NOT (h.token = ANY($6::text[])))))
       ORDER BY h.log_index, h.sub_index
       LIMIT $5
     ) AS t
     LEFT JOIN history_tokens k ON k.chain_id = t.chain_id AND k.address = t.token
     ORDER BY t.block_number DESC, t.tx_index DESC, t.log_index, t.sub_index`,
    [
      chainId,
      page.map((key) => key.tx_hash),
      address,
      projectId,
      maxTransfersPerTransaction,
      listedTokens.map((token) => token.toLowerCase()),
    ],
  )
  const byHash = new Map<string, Row[]>()
  for (const row of rows) {
    const list = byHash.get(row.tx_hash) ?? []
    list.push(row)
    byHash.set(row.tx_hash, list)
  }
  const data: HistoryTransaction[] = page.flatMap(({ tx_hash }) => {
    const transfers = byHash.get(tx_hash)
    const first = transfers?.[0]
    if (!transfers || !first) return []
    return [
      {
        id: tx_hash,
        metadata: {
          minedAt: new Date(first.mined_at).toISOString(),
          chain: chainId,
          // A transaction's logs exist only if it succeeded: failed is its value transfer's status.
          status: transfers.some((row) => row.status === 'failed') ? 'failed' : 'confirmed',
          sentFrom: first.tx_from,
          blockNumber: first.block_number,
        },
        transfers: transfers.map((row) => toTransfer(row, address)),
      },
    ]
  })
  return { data, next }
}

function toTransfer(row: Row, address: string): HistoryTransfer {
  const out = row.from_address === address
  const into = row.to_address === address
  const nft = row.kind === 'erc721' || row.kind === 'erc1155'
  return {
    direction: out && into ? 'self' : out ? 'out' : 'in',
    kind: row.kind,
    amount: row.amount,
    token:
      row.token === null
        ? null
        : { address: row.token, name: row.name, symbol: row.symbol, decimals: row.decimals },
    tokenId: row.token_id,
    counterparty: out ? row.to_address : row.from_address,
    nft_info: nft ? { flags: { is_spam: row.is_spam } } : null,
  }
}

/**
 * `GET /account/:address/history?projectId=&chainId=&cursor=`: the seed's
 * transaction fetch (account, cursor, onramp, chainId, cache; answers `data`
 * and `next`), from the indexer's tables. A network the indexer does not
 * follow answers 404 `history_unavailable`, never an empty list that would
 * read as "no transactions".
 */
export function createHistoryRoutes({
  db,
  config,
  indexedChains,
}: {
  db: Db
  config: Config
  /** The networks with a history (`HISTORY_INDEXER`). */
  indexedChains: ReadonlySet<string>
}): Hono {
  const app = new Hono()
  app.get('/account/:address/history', async (c) => {
    const { project, query } = await readProjectQuery(c, db, HistoryQuery)
    const solana = query.chainId.startsWith('solana:')
    const address = parseInput(solana ? SolanaAddress : EvmAccount, c.req.param('address'), 'path')
    if (!indexedChains.has(query.chainId) || !project.features.history) {
      throw new HttpError(
        404,
        'history_unavailable',
        `This server keeps no transaction history for ${query.chainId}`,
      )
    }
    await enforceRateLimit(db, {
      key: `history-ip:${clientIp(c)}`,
      ...scaled(historyIpLimit, config.ipLimitScale),
      message: 'Too many history requests from this address',
    })
    const scoped = config.historyIndexer[query.chainId] === 'address'
    if (scoped) {
      await enforceRateLimit(db, {
        key: `history-scoped-ip:${clientIp(c)}`,
        ...scaled(scopedHistoryIpLimit, config.ipLimitScale),
        message: 'Too many history requests from this address on a network asked per page',
      })
      await enforceRateLimit(db, {
        key: `history-scoped-project:${project.id}`,
        ...scopedHistoryProjectLimit,
        message: 'Too many history requests for this project on networks asked per page',
      })
    }
    const { cursor, chainId } = query
    const rpcUrl = config.rpcUpstreams[chainId] as string
    const evmCursor = () =>
      cursor === undefined ? undefined : parseInput(EvmCursor, cursor, 'query')
    const readPage = (): Promise<HistoryPage> => {
      if (solana) {
        const before =
          cursor === undefined ? undefined : parseInput(SolanaSignature, cursor, 'query')
        return readSolanaHistory({ rpcUrl, chainId, address, before })
      }
      if (scoped)
        return readEvmAddressHistory({
          db,
          rpcUrl,
          chainId,
          projectId: project.id,
          address,
          cursor: evmCursor(),
        })
      const listedTokens = (config.tokenLists[chainId] ?? []).map((token) => token.address)
      return readHistory(db, {
        projectId: project.id,
        chainId,
        address,
        cursor: evmCursor(),
        listedTokens,
      })
    }
    // The seed's onramp filter: no onramp purchases are recorded here.
    const onramp = query.onramp !== undefined && query.onramp !== ''
    const body: HistoryPage = onramp ? { data: [], next: null } : await readPage()
    // An account's history is its own business: no shared cache keeps it.
    c.header('Cache-Control', 'private, no-store')
    return c.json(body)
  })
  return app
}
