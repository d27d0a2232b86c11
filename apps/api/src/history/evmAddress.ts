/**
 * An EVM account's history, address-scoped (`HISTORY_INDEXER` names the
 * network `"address"`): for networks too large to follow block by block.
 * Nothing is indexed ahead; each page is asked of the network's node when
 * the widget asks, scanning back from the cursor in windows of blocks with
 * `eth_getLogs` filtered by the account's topics (ERC-20 and ERC-721
 * `Transfer` from or to it, ERC-1155 `TransferSingle`/`TransferBatch` from or
 * to it), at most `maxWindows` windows a page.
 *
 * What logs cannot show is not shown: native ETH moved by a transaction
 * (a transaction has no log of its value; that needs an outside indexer or
 * traces), and failed transactions (they leave no logs).
 */
import {
  type HistoryPage,
  type HistoryTransaction,
  historyPageSize,
} from '@porthole/protocol/History'
import {
  type Address,
  createPublicClient,
  type Hash,
  http,
  type Log,
  type PublicClient,
  pad,
  toEventSelector,
  toHex,
} from 'viem'
import type { Db } from '../db/db.js'
import { HttpError } from '../http/errors.js'
import { encodeCursor } from './cursor.js'
import { decodeTransfer } from './indexer.js'
import { learnTokens } from './tokens.js'

/** Blocks per `eth_getLogs` window; most providers accept 2,000 to 10,000. */
export const defaultWindowBlocks = 2_000
/** Windows one page may scan before it answers what it found (and a cursor to go on). */
export const maxWindows = 10

const transfer = toEventSelector('Transfer(address,address,uint256)')
const single = toEventSelector('TransferSingle(address,address,address,uint256,uint256)')
const batch = toEventSelector('TransferBatch(address,address,address,uint256[],uint256[])')

const unavailable = (cause?: unknown) =>
  new HttpError(502, 'history_upstream', "The network's node did not answer the history", {
    cause,
  })

const clients = new Map<string, PublicClient>()
const clientFor = (rpcUrl: string) => {
  let client = clients.get(rpcUrl)
  if (!client) {
    client = createPublicClient({
      transport: http(rpcUrl, { batch: { batchSize: 50 }, retryCount: 1, timeout: 10_000 }),
    })
    clients.set(rpcUrl, client)
  }
  return client
}

/** One page of `address`'s token transfers on an address-scoped EVM network. */
export async function readEvmAddressHistory({
  db,
  rpcUrl,
  chainId,
  projectId,
  address,
  cursor,
  windowBlocks = defaultWindowBlocks,
}: {
  db: Db
  rpcUrl: string
  chainId: string
  projectId: string
  /** Lower case. */
  address: string
  /** Where the page before ended (exclusive): a transaction's block and position. */
  cursor?: { block: bigint; txIndex: number } | undefined
  windowBlocks?: number
}): Promise<HistoryPage> {
  const client = clientFor(rpcUrl)
  const account = pad(address as Address)
  let top: bigint
  try {
    top = cursor ? cursor.block : await client.getBlockNumber({ cacheTime: 0 })
  } catch (error) {
    throw unavailable(error)
  }
  const logs: Log[] = []
  let lowest = top + 1n
  for (let window = 0; window < maxWindows && lowest > 0n; window++) {
    const toBlock = lowest - 1n
    const fromBlock =
      toBlock - BigInt(windowBlocks) + 1n > 0n ? toBlock - BigInt(windowBlocks) + 1n : 0n
    try {
      // viem's getLogs filters by event arguments only: the account's topics go raw.
      const query = (topics: unknown[]) =>
        client.request({
          method: 'eth_getLogs',
          params: [{ fromBlock: toHex(fromBlock), toBlock: toHex(toBlock), topics }],
        } as never) as Promise<RpcLog[]>
      const found = await Promise.all([
        query([transfer, account]),
        query([transfer, null, account]),
        query([[single, batch], null, account]),
        query([[single, batch], null, null, account]),
      ])
      logs.push(...found.flat().map(fromRpc))
    } catch (error) {
      throw unavailable(error)
    }
    lowest = fromBlock
    const transactions = new Set(
      logs.filter((log) => !cursor || before(log, cursor)).map((log) => log.transactionHash),
    )
    if (transactions.size > historyPageSize) break
  }

  // The page: newest first, those after the cursor only, one entry per transaction.
  const byTransaction = new Map<Hash, Log[]>()
  const ordered = logs
    .filter(
      (log) => log.transactionHash && log.blockNumber !== null && (!cursor || before(log, cursor)),
    )
    .sort((a, b) =>
      a.blockNumber === b.blockNumber
        ? (b.transactionIndex ?? 0) - (a.transactionIndex ?? 0) ||
          (a.logIndex ?? 0) - (b.logIndex ?? 0)
        : (a.blockNumber ?? 0n) > (b.blockNumber ?? 0n)
          ? -1
          : 1,
    )
  for (const log of ordered) {
    const hash = log.transactionHash as Hash
    const list = byTransaction.get(hash) ?? []
    // The same log can match twice (from and to the account): once.
    if (!list.some((seen) => seen.logIndex === log.logIndex)) list.push(log)
    byTransaction.set(hash, list)
  }
  const hashes = [...byTransaction.keys()]
  const pageHashes = hashes.slice(0, historyPageSize)
  const last = byTransaction.get(pageHashes.at(-1) as Hash)?.[0]
  const next =
    hashes.length > historyPageSize && last
      ? encodeCursor(last.blockNumber as bigint, last.transactionIndex ?? 0)
      : lowest > 0n
        ? // Scanned down to `lowest` with room left: go on below it.
          encodeCursor(lowest, 0)
        : null

  const blocks = [
    ...new Set(pageHashes.map((hash) => byTransaction.get(hash)?.[0]?.blockNumber as bigint)),
  ]
  const tokens = [
    ...new Set(
      pageHashes.flatMap((hash) =>
        (byTransaction.get(hash) ?? []).map((log) => log.address.toLowerCase()),
      ),
    ),
  ]
  const [times, senders, metadata, spam] = await Promise.all([
    Promise.all(blocks.map((blockNumber) => client.getBlock({ blockNumber }))).catch((error) => {
      throw unavailable(error)
    }),
    Promise.all(pageHashes.map((hash) => client.getTransaction({ hash }))).catch((error) => {
      throw unavailable(error)
    }),
    // At most 20 contracts read per page: the rest are read on a later page.
    learnTokens(
      db,
      client,
      chainId,
      tokens.map((address) => ({ address, erc20: true })),
      20,
    ),
    db.query<{ address: string }>(
      `SELECT address FROM history_spam WHERE chain_id = $1 AND project_id IN ('', $2)
       AND address = ANY($3::text[])`,
      [chainId, projectId, tokens],
    ),
  ])
  const timeOf = new Map(times.map((block) => [block.number, block.timestamp]))
  const senderOf = new Map(senders.map((tx) => [tx.hash, tx.from.toLowerCase()]))
  const spamSet = new Set(spam.map((row) => row.address))

  const data: HistoryTransaction[] = pageHashes.flatMap((hash) => {
    const list = byTransaction.get(hash) ?? []
    const first = list[0]
    if (!first) return []
    const sentFrom = senderOf.get(hash) ?? address
    const transfers = list.flatMap((log) => {
      const decoded = decodeTransfer(log)
      if (!decoded) return []
      const from = decoded.from.toLowerCase()
      const to = decoded.to.toLowerCase()
      const token = log.address.toLowerCase()
      // As the indexed networks (routes.ts): nothing moved, or a move out the account did not send.
      if (
        decoded.kind === 'erc20' &&
        (decoded.moves[0]?.amount === 0n || (from === address && sentFrom !== address))
      )
        return []
      const known = metadata.get(token)
      const nft = decoded.kind !== 'erc20'
      return decoded.moves.slice(0, 100).map((move) => ({
        direction:
          from === address && to === address
            ? ('self' as const)
            : from === address
              ? ('out' as const)
              : ('in' as const),
        kind: decoded.kind,
        amount: move.amount.toString(),
        token: {
          address: token,
          name: known?.name ?? null,
          symbol: known?.symbol ?? null,
          decimals: known?.decimals ?? null,
        },
        tokenId: move.tokenId,
        counterparty: from === address ? to : from,
        nft_info: nft ? { flags: { is_spam: spamSet.has(token) } } : null,
      }))
    })
    if (transfers.length === 0) return []
    return [
      {
        id: hash.toLowerCase(),
        metadata: {
          minedAt: new Date(
            Number(timeOf.get(first.blockNumber as bigint) ?? 0n) * 1000,
          ).toISOString(),
          chain: chainId,
          status: 'confirmed' as const,
          sentFrom,
          blockNumber: String(first.blockNumber),
        },
        transfers,
      },
    ]
  })
  return { data, next }
}

/** A log as a node answers it (quantities in hex). */
type RpcLog = {
  address: Address
  topics: [Hash, ...Hash[]]
  data: Hash
  blockNumber: Hash
  blockHash: Hash
  transactionHash: Hash
  transactionIndex: Hash
  logIndex: Hash
  removed?: boolean
}

const fromRpc = (log: RpcLog): Log =>
  ({
    ...log,
    blockNumber: BigInt(log.blockNumber),
    transactionIndex: Number(log.transactionIndex),
    logIndex: Number(log.logIndex),
    removed: log.removed ?? false,
  }) as Log

const before = (log: Log, cursor: { block: bigint; txIndex: number }) =>
  (log.blockNumber as bigint) < cursor.block ||
  (log.blockNumber === cursor.block && (log.transactionIndex ?? 0) < cursor.txIndex)
