/**
 * Account history (issue 16): how fast the indexer reads a local chain, and
 * how fast the API answers Activity's first page.
 *
 * - **Indexer blocks per second:** a private anvil with 4,000 blocks, a
 *   transfer in every 20th, read from block 0 by `createIndexer` into
 *   in-memory PGlite through anvil's JSON-RPC, batch by batch, as the API does.
 * - **First page:** `GET /account/:address/history` (Hono in-process, PGlite)
 *   for an account with 200 transactions, p50 and p99 of 200 calls, after the
 *   same for warm-up.
 */
import { performance } from 'node:perf_hooks'
import { createAnvilClients, devKey, startAnvil } from '@porthole/dev-stack/anvil'
import { privateKeyToAccount } from 'viem/accounts'
import { createApp } from '../apps/api/src/app.ts'
import { createIndexer } from '../apps/api/src/history/indexer.ts'
import { createTestDb } from '../apps/api/test/db.ts'
import type { Record } from './rpc.ts'
import { median } from './stats.ts'

const blocks = 4_000
const transferEvery = 20
const calls = 200
/** Budgets: a local chain read at least this fast; a page answered within this. */
const blocksPerSecondBudget = 1_000
const firstPageP99BudgetMs = 50

export async function measureHistory(record: Record): Promise<void> {
  console.log('\nAccount history')
  const [anvil, testDb] = await Promise.all([startAnvil(), createTestDb()])
  try {
    const receiver = privateKeyToAccount(devKey(7)).address
    const { walletClient, publicClient } = createAnvilClients({
      rpcUrl: anvil.url,
      privateKey: devKey(6),
    })
    let hash: `0x${string}` = '0x'
    for (let block = 0; block < blocks; block += transferEvery) {
      await publicClient.request({
        method: 'anvil_mine',
        params: [`0x${(transferEvery - 1).toString(16)}`],
      } as never)
      hash = await walletClient.sendTransaction({ to: receiver, value: BigInt(block + 1) })
    }
    await publicClient.waitForTransactionReceipt({ hash })
    const head = await publicClient.getBlockNumber()

    const indexer = createIndexer({
      db: testDb.db,
      chainId: 'eip155:31337',
      rpcUrl: anvil.url,
      start: 0n,
    })
    const started = performance.now()
    for (;;) {
      const result = await indexer.tick()
      if (result.state === 'idle') break
    }
    const seconds = (performance.now() - started) / 1000
    await indexer.stop()
    record(
      'indexer: blocks per second (anvil, PGlite)',
      Number(head) / seconds,
      'blocks/s',
      blocksPerSecondBudget,
      {
        atLeast: true,
      },
    )

    // The per-IP limit scaled out of the way: this measures the answer, not the limit.
    const fast = createApp({ config: { ...testDb.config, ipLimitScale: 1_000_000 }, db: testDb.db })
    const path = `/account/${receiver}/history?projectId=porthole-dev&chainId=eip155:31337`
    const time = async () => {
      const start = performance.now()
      const response = await fast.request(path)
      await response.arrayBuffer()
      if (!response.ok) throw new Error(`history answered ${response.status}`)
      return performance.now() - start
    }
    for (let call = 0; call < calls; call++) await time()
    const times: number[] = []
    for (let call = 0; call < calls; call++) times.push(await time())
    times.sort((a, b) => a - b)
    record('history: first page p50 (200 transactions)', median(times), 'ms')
    record(
      'history: first page p99 (200 transactions)',
      times[Math.floor(times.length * 0.99)] ?? Number.NaN,
      'ms',
      firstPageP99BudgetMs,
    )
  } finally {
    await Promise.all([anvil.stop(), testDb.close()])
  }
}
