import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAnvilClients, devKey, type LocalAnvil, startAnvil } from '@porthole/dev-stack/anvil'
import {
  deployTestNft,
  deployTestToken,
  testMultiTokenAbi,
  testNftAbi,
  testTokenAbi,
} from '@porthole/dev-stack/contracts'
import { type Address, getAddress, type Hex, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import { createIndexer, type Indexer, massMintRecipients } from './indexer.js'
import { readHistory } from './routes.js'

const chainId = 'eip155:31337'
let anvil: LocalAnvil
let testDb: TestDb
const sender = createAccount(1)
const receiver = privateKeyToAccount(devKey(2)).address
const lower = (address: Address) => address.toLowerCase()

function createAccount(index: number) {
  return { key: devKey(index), address: privateKeyToAccount(devKey(index)).address }
}

beforeAll(async () => {
  ;[anvil, testDb] = await Promise.all([startAnvil(), createTestDb()])
}, 60_000)

afterAll(async () => {
  await Promise.all([anvil?.stop(), testDb?.close()])
})

const clients = () => createAnvilClients({ rpcUrl: anvil.url, privateKey: sender.key })

async function send(to: Address, value: bigint, gas?: bigint): Promise<Hex> {
  const { walletClient, publicClient } = clients()
  const hash = await walletClient.sendTransaction({ to, value, ...(gas ? { gas } : {}) })
  await publicClient.waitForTransactionReceipt({ hash })
  return hash
}

const rpc = (method: string, params: unknown[] = []) =>
  clients().publicClient.request({ method, params } as never) as Promise<unknown>

/** Ticks until the indexer has read the head. */
async function catchUp(indexer: Indexer): Promise<void> {
  for (let step = 0; step < 100; step++) {
    const result = await indexer.tick()
    if (result.state === 'idle') return
    if (result.state === 'not-leader') throw new Error('The indexer lost its lease')
  }
  throw new Error('The indexer did not reach the head in 100 ticks')
}

const historyOf = (address: Address, cursor?: { block: bigint; txIndex: number }) =>
  readHistory(testDb.db, { projectId: 'dev', chainId, address: lower(address), cursor })

describe('the history indexer on anvil', () => {
  let indexer: Indexer
  beforeAll(() => {
    indexer = createIndexer({ db: testDb.db, chainId, rpcUrl: anvil.url, start: 0n, holder: 'a' })
  })
  afterAll(() => indexer.stop())

  test('stores native, ERC-20, ERC-721 and ERC-1155 transfers with their block time and status', async () => {
    const native = await send(receiver, parseEther('1.5'))
    const token = await deployTestToken({
      rpcUrl: anvil.url,
      privateKey: sender.key,
      name: 'History Token',
      symbol: 'HIST',
      decimals: 6,
      mint: [{ to: sender.address, amount: 5_000_000n }],
    })
    const { walletClient, publicClient } = clients()
    const erc20 = await walletClient.writeContract({
      address: token.address,
      abi: testTokenAbi,
      functionName: 'transfer',
      args: [receiver, 2_500_000n],
    })
    await publicClient.waitForTransactionReceipt({ hash: erc20 })
    const nft = await deployTestNft({
      rpcUrl: anvil.url,
      privateKey: sender.key,
      kind: 'erc721',
      name: 'Kittens',
      symbol: 'KIT',
    })
    const mint = await walletClient.writeContract({
      address: nft,
      abi: testNftAbi,
      functionName: 'mint',
      args: [receiver, 7n],
    })
    await publicClient.waitForTransactionReceipt({ hash: mint })
    const multi = await deployTestNft({
      rpcUrl: anvil.url,
      privateKey: sender.key,
      kind: 'erc1155',
    })
    const batch = await walletClient.writeContract({
      address: multi,
      abi: testMultiTokenAbi,
      functionName: 'mintBatch',
      args: [receiver, [1n, 2n], [10n, 20n]],
    })
    await publicClient.waitForTransactionReceipt({ hash: batch })
    // A value sent to a contract without a receive function reverts: a failed transfer.
    const failed = await send(nft, 1n, 100_000n)

    await catchUp(indexer)

    const { data, next } = await historyOf(receiver)
    expect(next).toBeNull()
    expect(data.map((tx) => tx.id)).toEqual([batch, mint, erc20, native])
    const byId = new Map(data.map((tx) => [tx.id, tx]))
    expect(byId.get(native)?.transfers).toEqual([
      {
        direction: 'in',
        kind: 'native',
        amount: parseEther('1.5').toString(),
        token: null,
        tokenId: null,
        counterparty: lower(sender.address),
        nft_info: null,
      },
    ])
    expect(byId.get(erc20)?.transfers[0]).toMatchObject({
      direction: 'in',
      kind: 'erc20',
      amount: '2500000',
      token: { address: lower(token.address), symbol: 'HIST', name: 'History Token', decimals: 6 },
    })
    expect(byId.get(mint)?.transfers[0]).toMatchObject({
      kind: 'erc721',
      tokenId: '7',
      amount: '1',
      token: { symbol: 'KIT', decimals: null },
      nft_info: { flags: { is_spam: false } },
    })
    expect(byId.get(batch)?.transfers.map((t) => [t.kind, t.tokenId, t.amount])).toEqual([
      ['erc1155', '1', '10'],
      ['erc1155', '2', '20'],
    ])
    // The block's own time, and the chain it came from.
    const block = await publicClient.getBlock({ blockTag: 'latest' })
    const minedAt = Date.parse(byId.get(batch)?.metadata.minedAt ?? '')
    expect(Math.abs(minedAt / 1000 - Number(block.timestamp))).toBeLessThan(60)
    expect(byId.get(native)?.metadata).toMatchObject({
      chain: chainId,
      status: 'confirmed',
      sentFrom: lower(sender.address),
    })

    const sent = await historyOf(sender.address)
    const failedTx = sent.data.find((tx) => tx.id === failed)
    expect(failedTx?.metadata.status).toBe('failed')
    expect(failedTx?.transfers[0]).toMatchObject({ direction: 'out', kind: 'native', amount: '1' })
    expect(sent.data.find((tx) => tx.id === native)?.transfers[0]?.direction).toBe('out')
  })

  test('pages on a cursor with nothing skipped or repeated', async () => {
    const payer = createAccount(3)
    const { walletClient, publicClient } = createAnvilClients({
      rpcUrl: anvil.url,
      privateKey: payer.key,
    })
    const fresh = privateKeyToAccount(devKey(9)).address
    const hashes: Hex[] = []
    for (let index = 0; index < 25; index++) {
      const hash = await walletClient.sendTransaction({ to: fresh, value: BigInt(index + 1) })
      hashes.push(hash)
    }
    await publicClient.waitForTransactionReceipt({ hash: hashes.at(-1) as Hex })
    await catchUp(indexer)

    const first = await historyOf(fresh)
    expect(first.data).toHaveLength(20)
    expect(first.next).not.toBeNull()
    const cursor = Buffer.from(first.next as string, 'base64url')
      .toString()
      .split(':')
    const second = await historyOf(fresh, {
      block: BigInt(cursor[0] as string),
      txIndex: Number(cursor[1]),
    })
    expect(second.next).toBeNull()
    const ids = [...first.data, ...second.data].map((tx) => tx.id)
    expect(ids.filter((id) => hashes.includes(id as Hex))).toEqual([...hashes].reverse())
  })

  test('an NFT minted to many accounts in one transaction is flagged as spam', async () => {
    const spam = await deployTestNft({
      rpcUrl: anvil.url,
      privateKey: sender.key,
      kind: 'erc721',
      name: 'Free Claim',
      symbol: 'CLAIM',
    })
    const recipients = Array.from(
      { length: massMintRecipients },
      (_, index) => getAddress(`0x${(index + 1).toString(16).padStart(40, '7')}`) as Address,
    )
    recipients[0] = receiver
    const { walletClient, publicClient } = clients()
    const hash = await walletClient.writeContract({
      address: spam,
      abi: testNftAbi,
      functionName: 'airdrop',
      args: [recipients, 100n],
    })
    await publicClient.waitForTransactionReceipt({ hash })
    await catchUp(indexer)
    const { data } = await historyOf(receiver)
    const airdrop = data.find((tx) => tx.id === hash)
    expect(airdrop?.transfers).toHaveLength(1)
    expect(airdrop?.transfers[0]?.nft_info).toEqual({ flags: { is_spam: true } })
    // The earlier single mint of another collection is not.
    expect(
      data.find((tx) => tx.transfers[0]?.kind === 'erc721' && tx.id !== hash)?.transfers[0],
    ).toMatchObject({ nft_info: { flags: { is_spam: false } } })
  })

  test('a reorganisation replaces what was read of the abandoned blocks', async () => {
    const watcher = privateKeyToAccount(devKey(8)).address
    const snapshot = (await rpc('evm_snapshot')) as Hex
    const abandoned = await send(watcher, 111n)
    await catchUp(indexer)
    expect((await historyOf(watcher)).data.map((tx) => tx.id)).toEqual([abandoned])

    await rpc('evm_revert', [snapshot])
    // The replacement chain grows past the old head, as a heavier fork would.
    await rpc('anvil_mine', ['0x3'])
    const kept = await send(watcher, 222n)
    await catchUp(indexer)
    const { data } = await historyOf(watcher)
    expect(data.map((tx) => tx.id)).toEqual([kept])
    expect(data[0]?.transfers[0]?.amount).toBe('222')
  })
})

describe('the lease', () => {
  test('one indexer per network among replicas; the next takes over when it stops, losing and repeating nothing', async () => {
    const chain = 'eip155:31337'
    const replica = await testDb.openReplica()
    // A fresh table state for a second network name over the same node.
    const other = 'eip155:31338'
    const first = createIndexer({
      db: testDb.db,
      chainId: other,
      rpcUrl: anvil.url,
      start: 0n,
      holder: 'first',
      batchBlocks: 5,
    })
    const second = createIndexer({
      db: replica,
      chainId: other,
      rpcUrl: anvil.url,
      start: 0n,
      holder: 'second',
      batchBlocks: 5,
    })
    expect((await first.tick()).state).toBe('indexed')
    expect(await second.tick()).toEqual({ state: 'not-leader' })
    // The first stops mid-way (as an API restarted): the second reads on from its cursor.
    await first.stop()
    await catchUp(second)
    await second.stop()
    const count = async (id: string) => {
      const [row] = await testDb.db.query<{ rows: number; distinct_rows: number }>(
        `SELECT count(*)::int AS rows,
           count(DISTINCT (tx_hash, log_index, sub_index))::int AS distinct_rows
         FROM history_transfers WHERE chain_id = $1`,
        [id],
      )
      return row
    }
    // The same transfers as the first network's indexer read block by block in larger batches.
    const [main, copy] = await Promise.all([count(chain), count(other)])
    expect(copy?.rows).toBe(main?.rows)
    expect(copy?.distinct_rows).toBe(copy?.rows)
    expect(copy?.rows).toBeGreaterThan(30)
  })
})

describe('a node started afresh', () => {
  test('another genesis block: what was stored of the old chain goes, and indexing starts over', async () => {
    const other = 'eip155:31338'
    const [before] = await testDb.db.query<{ rows: number }>(
      'SELECT count(*)::int AS rows FROM history_transfers WHERE chain_id = $1',
      [other],
    )
    expect(before?.rows).toBeGreaterThan(0)
    // As if the rows came from a chain whose genesis differed, plus one it never had.
    await testDb.db.query(
      `UPDATE history_cursors SET genesis_hash = '0xdead' WHERE chain_id = $1`,
      [other],
    )
    await testDb.db.query(
      `INSERT INTO history_transfers (chain_id, tx_hash, log_index, sub_index, block_number, tx_index,
         mined_at, status, kind, tx_from, from_address, to_address, amount)
       VALUES ($1, '0xgone', -1, 0, 1, 0, now(), 'confirmed', 'native', '0x1', '0x1', '0x2', 1)`,
      [other],
    )
    const fresh = createIndexer({
      db: testDb.db,
      chainId: other,
      rpcUrl: anvil.url,
      start: 0n,
      holder: 'fresh',
    })
    await catchUp(fresh)
    await fresh.stop()
    const rows = await testDb.db.query<{ tx_hash: string }>(
      'SELECT tx_hash FROM history_transfers WHERE chain_id = $1',
      [other],
    )
    expect(rows.map((row) => row.tx_hash)).not.toContain('0xgone')
    expect(rows).toHaveLength(before?.rows ?? -1)
  })
})

describe('a node that refuses large log ranges', () => {
  test('the range halves until the node answers, and nothing is lost', async () => {
    // In front of anvil: eth_getLogs over more than 4 blocks is refused, as providers cap answers.
    const refusing = createServer(async (request, response) => {
      let body = ''
      for await (const chunk of request) body += chunk
      const calls = JSON.parse(body) as { id: number; method: string; params: unknown[] }[] | object
      const list = Array.isArray(calls) ? calls : [calls]
      const answers = await Promise.all(
        list.map(async (call: { id: number; method: string; params: unknown[] }) => {
          const range =
            call.method === 'eth_getLogs' ? (call.params[0] as Record<string, Hex>) : null
          if (range && Number(range.toBlock) - Number(range.fromBlock) >= 4)
            return {
              jsonrpc: '2.0',
              id: call.id,
              error: { code: -32005, message: 'query returned more than 10000 results' },
            }
          const upstream = await fetch(anvil.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(call),
          })
          return upstream.json()
        }),
      )
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify(Array.isArray(calls) ? answers : answers[0]))
    })
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve))
    const { port } = refusing.address() as AddressInfo
    try {
      const indexer = createIndexer({
        db: testDb.db,
        chainId: 'eip155:31339',
        rpcUrl: `http://127.0.0.1:${port}`,
        start: 0n,
        holder: 'small',
        batchBlocks: 32,
      })
      const states = new Set<string>()
      for (let step = 0; step < 500; step++) {
        const result = await indexer.tick()
        states.add(result.state)
        if (result.state === 'idle') break
      }
      await indexer.stop()
      expect(states).toContain('smaller')
      expect(states).toContain('idle')
      const [copy, main] = await Promise.all(
        ['eip155:31339', 'eip155:31337'].map(async (id) => {
          const [row] = await testDb.db.query<{ rows: number }>(
            'SELECT count(*)::int AS rows FROM history_transfers WHERE chain_id = $1',
            [id],
          )
          return row?.rows
        }),
      )
      expect(copy).toBe(main)
    } finally {
      refusing.close()
    }
  })
})
