/**
 * The history indexer: follows one EVM network block by block through its
 * `RPC_UPSTREAMS` node and stores every transfer (native value, ERC-20,
 * ERC-721, ERC-1155) with its block time and status, for `GET
 * /account/:address/history` (routes.ts).
 *
 * - **Resumable.** A batch of blocks is written in one transaction with the
 *   cursor that says it was read: an API stopped mid-batch has written none
 *   of it and reads it again, so nothing is lost and nothing is stored twice
 *   (each transfer's key is its transaction hash and log index as well).
 * - **Reorganisations.** The hashes of the last `reorgDepth` blocks read are
 *   kept. Before each batch, the last one is compared with the chain's; when
 *   it differs, the indexer walks back to the newest block the chain still
 *   has, deletes everything after it and reads on from there.
 * - **One indexer per network** among any number of API replicas: a lease in
 *   the database (`history_cursors.lease_holder`, renewed each tick, expiring
 *   after `leaseMs`). A replica without it waits; one whose lease lapsed
 *   writes nothing (each batch checks it under the row lock).
 */

import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import {
  type Address,
  type Block,
  BlockNotFoundError,
  createPublicClient,
  decodeEventLog,
  type Hash,
  http,
  type Log,
  type PublicClient,
  parseAbi,
  type Transaction,
  zeroAddress,
} from 'viem'
import type { Db, Queryable } from '../db/db.js'
import { learnTokens } from './tokens.js'

/** Where a network's indexing starts the first time: a block number, or the head at that moment. */
export type StartBlock = bigint | 'latest'

export type IndexerOptions = {
  db: Db
  /** CAIP-2, `eip155:…`. */
  chainId: string
  /** The network's JSON-RPC URL (its `RPC_UPSTREAMS` entry). */
  rpcUrl: string
  start: StartBlock
  /** Most blocks read in one batch. */
  batchBlocks?: number
  /** How many of the newest blocks a reorganisation may replace. */
  reorgDepth?: number
  /** How long a lease lasts without renewal. */
  leaseMs?: number
  /** The wait between ticks once the head is reached. */
  pollMs?: number
  /** Errors of a tick (the next tick retries). */
  onError?: (error: unknown) => void
  /** This indexer's name in the lease; random by default. */
  holder?: string
  /** An upstream answering slower than this fails the tick. */
  timeoutMs?: number
}

export type TickResult =
  | { state: 'not-leader' }
  | { state: 'indexed'; from: bigint; to: bigint; transfers: number }
  | { state: 'reorg'; rewoundTo: bigint }
  | { state: 'idle'; head: bigint }
  /** The node refused the range's logs: the next batch is `blocks` long. */
  | { state: 'smaller'; blocks: number }

export type Indexer = {
  /** One step: lease, reorganisation check, one batch. Resolves with what it did. */
  tick(): Promise<TickResult>
  /** Ticks until stopped: at once while behind, every `pollMs` once at the head. */
  start(): void
  /** Stops ticking and gives the lease up; resolves once the current tick is over. */
  stop(): Promise<void>
}

export const defaultBatchBlocks = 100
export const defaultReorgDepth = 32
export const defaultLeaseMs = 10_000
export const defaultPollMs = 1_000
/** An NFT contract minting to this many different accounts in one transaction is flagged as spam (README). */
export const massMintRecipients = 20

/** ERC-20 and ERC-721 share `Transfer`'s signature; ERC-721 indexes the token id (4 topics). */
export const transferEvents = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
])
const erc721Transfer = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
])

export type TransferKind = 'native' | 'erc20' | 'erc721' | 'erc1155'

/** One token moved: a row of `history_transfers`. Addresses in lower case. */
export type TransferRow = {
  txHash: Hash
  /** -1 for the transaction's own value. */
  logIndex: number
  /** The position in an ERC-1155 batch; 0 otherwise. */
  subIndex: number
  blockNumber: bigint
  txIndex: number
  minedAt: Date
  status: 'confirmed' | 'failed'
  kind: TransferKind
  token: string | null
  tokenId: string | null
  txFrom: string
  from: string
  to: string
  amount: bigint
}

type FullBlock = Block<bigint, true, 'latest'>

/** The transfers of one block, given its logs (of the transfer events) and its value transactions' statuses. */
export function transfersOf(
  block: FullBlock,
  logs: readonly Log[],
  statuses: ReadonlyMap<Hash, { ok: boolean; contractAddress: Address | null }>,
): TransferRow[] {
  const minedAt = new Date(Number(block.timestamp) * 1000)
  const transactions = new Map<Hash, Transaction>(block.transactions.map((tx) => [tx.hash, tx]))
  const rows: TransferRow[] = []
  const base = (txHash: Hash) => {
    const tx = transactions.get(txHash)
    return {
      txHash,
      blockNumber: block.number as bigint,
      txIndex: tx?.transactionIndex ?? 0,
      minedAt,
      txFrom: (tx?.from ?? zeroAddress).toLowerCase(),
    }
  }
  for (const tx of block.transactions) {
    if (tx.value === 0n) continue
    const status = statuses.get(tx.hash)
    const to = tx.to ?? status?.contractAddress ?? null
    if (to === null) continue
    rows.push({
      ...base(tx.hash),
      logIndex: -1,
      subIndex: 0,
      status: status?.ok === false ? 'failed' : 'confirmed',
      kind: 'native',
      token: null,
      tokenId: null,
      from: tx.from.toLowerCase(),
      to: to.toLowerCase(),
      amount: tx.value,
    })
  }
  for (const log of logs) {
    if (log.transactionHash === null || log.logIndex === null || log.removed) continue
    const common = {
      ...base(log.transactionHash),
      logIndex: log.logIndex,
      status: 'confirmed' as const,
      token: log.address.toLowerCase(),
    }
    const decoded = decodeTransfer(log)
    if (decoded === null) continue
    for (const [subIndex, moved] of decoded.moves.entries()) {
      rows.push({
        ...common,
        subIndex,
        kind: decoded.kind,
        tokenId: moved.tokenId,
        from: decoded.from.toLowerCase(),
        to: decoded.to.toLowerCase(),
        amount: moved.amount,
      })
    }
  }
  return rows
}

type DecodedTransfer = {
  kind: Exclude<TransferKind, 'native'>
  from: Address
  to: Address
  moves: { tokenId: string | null; amount: bigint }[]
}

/** A transfer event, or null for a log that only looks like one (wrong topics or data). */
export function decodeTransfer(log: Pick<Log, 'topics' | 'data'>): DecodedTransfer | null {
  try {
    if (log.topics.length === 4 && log.data === '0x') {
      const { args } = decodeEventLog({ abi: erc721Transfer, ...log, strict: true })
      return {
        kind: 'erc721',
        from: args.from,
        to: args.to,
        moves: [{ tokenId: args.tokenId.toString(), amount: 1n }],
      }
    }
    const event = decodeEventLog({ abi: transferEvents, ...log, strict: true })
    switch (event.eventName) {
      case 'Transfer':
        return {
          kind: 'erc20',
          from: event.args.from,
          to: event.args.to,
          moves: [{ tokenId: null, amount: event.args.value }],
        }
      case 'TransferSingle':
        return {
          kind: 'erc1155',
          from: event.args.from,
          to: event.args.to,
          moves: [{ tokenId: event.args.id.toString(), amount: event.args.value }],
        }
      case 'TransferBatch': {
        const { ids, values } = event.args
        if (ids.length !== values.length) return null
        return {
          kind: 'erc1155',
          from: event.args.from,
          to: event.args.to,
          moves: ids.map((id, index) => ({
            tokenId: id.toString(),
            amount: values[index] ?? 0n,
          })),
        }
      }
    }
  } catch {
    return null
  }
}

/** NFT contracts that minted to `massMintRecipients` or more accounts in one transaction. */
export function massMinters(rows: readonly TransferRow[]): string[] {
  const recipients = new Map<string, Set<string>>()
  for (const row of rows) {
    if (row.kind !== 'erc721' && row.kind !== 'erc1155') continue
    if (row.from !== zeroAddress || row.token === null) continue
    const key = `${row.txHash} ${row.token}`
    const set = recipients.get(key) ?? new Set<string>()
    set.add(row.to)
    recipients.set(key, set)
  }
  const flagged = new Set<string>()
  for (const [key, set] of recipients) {
    if (set.size >= massMintRecipients) flagged.add(key.split(' ')[1] as string)
  }
  return [...flagged]
}

const lowerHex = (value: string) => value.toLowerCase()

export function createIndexer(options: IndexerOptions): Indexer {
  const {
    db,
    chainId,
    rpcUrl,
    start,
    batchBlocks = defaultBatchBlocks,
    reorgDepth = defaultReorgDepth,
    leaseMs = defaultLeaseMs,
    pollMs = defaultPollMs,
    onError,
    holder = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`,
    timeoutMs = 10_000,
  } = options
  /** The blocks of the next batch: `batchBlocks`, halved while the node refuses a range's logs. */
  let batchSize = batchBlocks
  const client: PublicClient = createPublicClient({
    transport: http(rpcUrl, { batch: { batchSize: 200 }, retryCount: 1, timeout: timeoutMs }),
  })

  /** Takes or renews the lease; resolves with the cursor when this indexer holds it. */
  async function lease(): Promise<bigint | null> {
    const [existing] = await db.query<{ next_block: string }>(
      'SELECT next_block FROM history_cursors WHERE chain_id = $1',
      [chainId],
    )
    if (!existing) {
      const first = start === 'latest' ? await client.getBlockNumber() : start
      await db.query(
        'INSERT INTO history_cursors (chain_id, next_block) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [chainId, first.toString()],
      )
    }
    const [row] = await db.query<{ next_block: string }>(
      `UPDATE history_cursors
       SET lease_holder = $2, lease_expires_at = now() + make_interval(secs => $3::double precision)
       WHERE chain_id = $1
         AND (lease_holder IS NULL OR lease_holder = $2 OR lease_expires_at < now())
       RETURNING next_block`,
      [chainId, holder, leaseMs / 1000],
    )
    return row ? BigInt(row.next_block) : null
  }

  /** Runs `write` under the cursor's row lock if this indexer still holds the lease at `expected`. */
  async function commit(expected: bigint, write: (tx: Queryable) => Promise<void>) {
    return db.transaction(async (tx) => {
      const [row] = await tx.query<{ next_block: string; lease_holder: string | null }>(
        'SELECT next_block, lease_holder FROM history_cursors WHERE chain_id = $1 FOR UPDATE',
        [chainId],
      )
      if (!row || row.lease_holder !== holder || BigInt(row.next_block) !== expected) return false
      await write(tx)
      return true
    })
  }

  /** The block to read from when the chain no longer has the last one read; null when it does. */
  async function findFork(next: bigint): Promise<bigint | null> {
    const stored = await db.query<{ number: string; hash: string }>(
      `SELECT number, hash FROM history_blocks
       WHERE chain_id = $1 AND number < $2 ORDER BY number DESC LIMIT $3`,
      [chainId, next.toString(), reorgDepth],
    )
    for (const [index, { number, hash }] of stored.entries()) {
      // Only a block the node says it lacks counts as gone: any other error fails the
      // tick (a rate-limited node must not rewind anything).
      const onChain = await client
        .getBlock({ blockNumber: BigInt(number) })
        .catch((error: unknown) => {
          if (error instanceof BlockNotFoundError) return null
          throw error
        })
      if (onChain?.hash?.toLowerCase() === hash) return index === 0 ? null : BigInt(number) + 1n
    }
    if (stored.length === 0) return null
    // Deeper than we keep: read the kept range again.
    return BigInt(stored.at(-1)?.number ?? next.toString())
  }

  async function rewind(expected: bigint, to: bigint): Promise<void> {
    await commit(expected, async (tx) => {
      await tx.query('DELETE FROM history_transfers WHERE chain_id = $1 AND block_number >= $2', [
        chainId,
        to.toString(),
      ])
      await tx.query('DELETE FROM history_blocks WHERE chain_id = $1 AND number >= $2', [
        chainId,
        to.toString(),
      ])
      await tx.query('UPDATE history_cursors SET next_block = $2 WHERE chain_id = $1', [
        chainId,
        to.toString(),
      ])
    })
  }

  async function statusesOf(blocks: readonly FullBlock[]) {
    const statuses = new Map<Hash, { ok: boolean; contractAddress: Address | null }>()
    const valued = blocks.flatMap((block) => block.transactions.filter((tx) => tx.value > 0n))
    const receipts = await Promise.all(
      valued.map((tx) => client.getTransactionReceipt({ hash: tx.hash })),
    )
    for (const receipt of receipts) {
      statuses.set(receipt.transactionHash, {
        ok: receipt.status === 'success',
        contractAddress: receipt.contractAddress ?? null,
      })
    }
    return statuses
  }

  /**
   * A node started afresh (a dev chain, a testnet reset) has another genesis
   * block: everything stored of the old chain goes, and indexing starts over.
   */
  let genesisChecked = false
  async function checkGenesis(next: bigint): Promise<boolean> {
    const genesis = (await client.getBlock({ blockNumber: 0n })).hash?.toLowerCase() ?? ''
    const [row] = await db.query<{ genesis_hash: string | null }>(
      'SELECT genesis_hash FROM history_cursors WHERE chain_id = $1',
      [chainId],
    )
    if (row?.genesis_hash === genesis) return true
    const first = start === 'latest' ? await client.getBlockNumber() : start
    return commit(next, async (tx) => {
      if (row?.genesis_hash) {
        for (const table of ['history_transfers', 'history_blocks', 'history_tokens'])
          await tx.query(`DELETE FROM ${table} WHERE chain_id = $1`, [chainId])
        await tx.query(`DELETE FROM history_spam WHERE chain_id = $1 AND project_id = ''`, [
          chainId,
        ])
      }
      await tx.query(
        'UPDATE history_cursors SET genesis_hash = $2, next_block = $3 WHERE chain_id = $1',
        [chainId, genesis, (row?.genesis_hash ? first : next).toString()],
      )
    })
  }

  async function tick(): Promise<TickResult> {
    const next = await lease()
    if (next === null) return { state: 'not-leader' }
    if (!genesisChecked) {
      if (!(await checkGenesis(next))) return { state: 'not-leader' }
      genesisChecked = true
      const [row] = await db.query<{ genesis_hash: string | null; next_block: string }>(
        'SELECT genesis_hash, next_block FROM history_cursors WHERE chain_id = $1',
        [chainId],
      )
      if (row && BigInt(row.next_block) !== next)
        return { state: 'reorg', rewoundTo: BigInt(row.next_block) }
    }
    const fork = await findFork(next)
    if (fork !== null) {
      await rewind(next, fork)
      return { state: 'reorg', rewoundTo: fork }
    }
    const head = await client.getBlockNumber({ cacheTime: 0 })
    if (head < next) return { state: 'idle', head }
    const size = BigInt(batchSize)
    const last = head < next + size - 1n ? head : next + size - 1n
    let logs: Log[]
    try {
      logs = (await client.getLogs({
        events: transferEvents,
        fromBlock: next,
        toBlock: last,
        strict: false,
      })) as Log[]
    } catch (error) {
      // Too many logs for the node (its own cap, a size or time limit): a smaller range,
      // down to one block; a single block the node cannot answer is an error.
      if (batchSize === 1) throw error
      batchSize = Math.max(1, Math.floor(batchSize / 2))
      return { state: 'smaller', blocks: batchSize }
    }
    const numbers: bigint[] = []
    for (let number = next; number <= last; number++) numbers.push(number)
    const blocks = await Promise.all(
      numbers.map((blockNumber) => client.getBlock({ blockNumber, includeTransactions: true })),
    )
    // The batch must extend what was read: a block replaced meanwhile is the next tick's reorg.
    const [stored] = await db.query<{ hash: string }>(
      'SELECT hash FROM history_blocks WHERE chain_id = $1 AND number = $2',
      [chainId, (next - 1n).toString()],
    )
    if (stored && blocks[0]?.parentHash.toLowerCase() !== stored.hash) {
      return { state: 'reorg', rewoundTo: next }
    }
    const byBlock = new Map<bigint, Log[]>()
    for (const log of logs) {
      if (log.blockNumber === null) continue
      const list = byBlock.get(log.blockNumber) ?? []
      list.push(log)
      byBlock.set(log.blockNumber, list)
    }
    for (const [index, block] of blocks.entries()) {
      const blockLogs = byBlock.get(block.number as bigint) ?? []
      // Logs of a block that is not the one read (the chain moved between the calls): read again.
      if (blockLogs.some((log) => log.blockHash !== block.hash)) {
        return { state: 'reorg', rewoundTo: next }
      }
      if (index > 0 && block.parentHash !== blocks[index - 1]?.hash) {
        return { state: 'reorg', rewoundTo: next }
      }
    }
    const statuses = await statusesOf(blocks)
    const rows = blocks.flatMap((block) =>
      transfersOf(block, byBlock.get(block.number as bigint) ?? [], statuses),
    )
    const tokens = new Map<string, boolean>()
    for (const row of rows)
      if (row.token) tokens.set(row.token, tokens.get(row.token) === true || row.kind === 'erc20')
    await learnTokens(
      db,
      client,
      chainId,
      [...tokens].map(([address, erc20]) => ({ address, erc20 })),
    )
    const written = await commit(next, async (tx) => {
      await insertTransfers(tx, chainId, rows)
      for (const contract of massMinters(rows)) {
        await tx.query(
          `INSERT INTO history_spam (project_id, chain_id, address, reason)
           VALUES ('', $1, $2, 'mass-mint') ON CONFLICT DO NOTHING`,
          [chainId, contract],
        )
      }
      await tx.query(
        `INSERT INTO history_blocks (chain_id, number, hash)
         SELECT $1, unnest($2::bigint[]), unnest($3::text[]) ON CONFLICT DO NOTHING`,
        [chainId, blocks.map((block) => String(block.number)), blocks.map((b) => lowerHex(b.hash))],
      )
      await tx.query('DELETE FROM history_blocks WHERE chain_id = $1 AND number < $2', [
        chainId,
        (last - BigInt(reorgDepth)).toString(),
      ])
      await tx.query('UPDATE history_cursors SET next_block = $2 WHERE chain_id = $1', [
        chainId,
        (last + 1n).toString(),
      ])
    })
    if (!written) return { state: 'not-leader' }
    // A batch that went through: the range grows back towards its size.
    batchSize = Math.min(batchBlocks, batchSize * 2)
    return { state: 'indexed', from: next, to: last, transfers: rows.length }
  }

  let running = false
  let timer: NodeJS.Timeout | undefined
  let current: Promise<unknown> = Promise.resolve()

  // Reorganisations one after another (a node whose answers disagree with each other)
  // wait longer each time and are reported, so a faulty node is not asked in a loop.
  let reorgsInARow = 0
  const loop = () => {
    if (!running) return
    current = tick().then(
      (result) => {
        reorgsInARow = result.state === 'reorg' ? reorgsInARow + 1 : 0
        if (reorgsInARow >= 3)
          onError?.(
            new Error(
              `${reorgsInARow} reorganisations in a row at block ${'rewoundTo' in result ? result.rewoundTo : '?'}`,
            ),
          )
        // Behind: at once. A first reorganisation: at once; the next ones back off.
        const backoff = Math.min(pollMs * 2 ** (reorgsInARow - 1), 60_000)
        const wait =
          result.state === 'indexed' || result.state === 'smaller'
            ? 0
            : result.state === 'reorg'
              ? reorgsInARow === 1
                ? 0
                : backoff
              : pollMs
        if (running) timer = setTimeout(loop, wait)
      },
      (error: unknown) => {
        onError?.(error)
        if (running) timer = setTimeout(loop, Math.max(pollMs, 5_000))
      },
    )
  }

  return {
    tick,
    start() {
      if (running) return
      running = true
      loop()
    },
    async stop() {
      running = false
      clearTimeout(timer)
      await current.catch(() => undefined)
      await db
        .query(
          `UPDATE history_cursors SET lease_holder = NULL, lease_expires_at = NULL
           WHERE chain_id = $1 AND lease_holder = $2`,
          [chainId, holder],
        )
        .catch(() => undefined)
    },
  }
}

/** Stores `rows`; a row already stored (same transaction, log and position) is left as it is. */
async function insertTransfers(
  tx: Queryable,
  chainId: string,
  rows: readonly TransferRow[],
): Promise<void> {
  // In slices, so one statement's parameters stay far below PostgreSQL's 65,535.
  const slice = 500
  for (let offset = 0; offset < rows.length; offset += slice) {
    const part = rows.slice(offset, offset + slice)
    const column = <T>(pick: (row: TransferRow) => T) => part.map(pick)
    await tx.query(
      `INSERT INTO history_transfers (chain_id, tx_hash, log_index, sub_index, block_number,
         tx_index, mined_at, status, kind, token, token_id, tx_from, from_address, to_address, amount)
       SELECT $1, * FROM unnest($2::text[], $3::int[], $4::int[], $5::bigint[], $6::int[],
         $7::timestamptz[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[],
         $13::text[], $14::text[], $15::numeric[])
       ON CONFLICT DO NOTHING`,
      [
        chainId,
        column((row) => row.txHash.toLowerCase()),
        column((row) => row.logIndex),
        column((row) => row.subIndex),
        column((row) => row.blockNumber.toString()),
        column((row) => row.txIndex),
        column((row) => row.minedAt.toISOString()),
        column((row) => row.status),
        column((row) => row.kind),
        column((row) => row.token),
        column((row) => row.tokenId),
        column((row) => row.txFrom),
        column((row) => row.from),
        column((row) => row.to),
        column((row) => row.amount.toString()),
      ],
    )
  }
}
