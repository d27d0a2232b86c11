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
 * - **Activity in the browser** (`--activity`, and in the full run): on the
 *   dev stack, the click on Account's Activity entry to its first row
 *   painted, on a freshly loaded page (nothing of the history cached).
 */

import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { Browser, Page } from '@playwright/test'
import { anvil, anvilUrl, createAnvilClients, devKey, startAnvil } from '@porthole/dev-stack/anvil'
import { origins, ports, projects } from '@porthole/dev-stack/stack'
import { installTestWallet } from '@porthole/dev-stack/testWallet'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
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

/**
 * Activity in the browser, on the dev stack: a fresh account with 25
 * incoming transfers (indexed by the stack's API), connected through the
 * injected test wallet; each run reloads the page (nothing cached), opens
 * Account, then times Activity's click to its first row shown (includes the
 * click's round trip from Node).
 */
/** An error naming what the widget showed instead (its text and a screenshot's path). */
async function stuck(page: Page, what: string): Promise<Error> {
  const path = join(tmpdir(), `porthole-bench-activity-${Date.now()}.png`)
  await page.screenshot({ path }).catch(() => {})
  const text: string = await page
    .frameLocator('iframe[title="Porthole wallet"]')
    .locator('body')
    .textContent({ timeout: 2_000 })
    .then((content) => content ?? '')
    .catch(() => '(the widget could not be read)')
  return new Error(
    `${what}. The widget showed: ${text.replace(/\s+/g, ' ').slice(0, 400)} (screenshot ${path})`,
  )
}

export async function measureActivity(
  browser: Browser,
  record: Record,
  runs: number,
): Promise<void> {
  const activityRuns = Math.min(runs, 7)
  console.log(`\nActivity (median of ${activityRuns})`)
  const fund = async (address: `0x${string}`) =>
    anvil.request({
      method: 'anvil_setBalance' as never,
      params: [address, '0x56bc75e2d63100000'] as never,
    })
  const walletKey = generatePrivateKey()
  const senderKey = generatePrivateKey()
  const wallet = privateKeyToAccount(walletKey).address
  await Promise.all([fund(wallet), fund(privateKeyToAccount(senderKey).address)])
  const sender = createAnvilClients({ rpcUrl: anvilUrl, privateKey: senderKey })
  let last: `0x${string}` = '0x'
  for (let index = 0; index < 25; index++)
    last = await sender.walletClient.sendTransaction({ to: wallet, value: BigInt(index + 1) })
  await sender.publicClient.waitForTransactionReceipt({ hash: last })
  const history = `http://127.0.0.1:${ports.api}/account/${wallet}/history?projectId=${projects.dev.id}&chainId=eip155:31337`
  for (let tries = 0; ; tries++) {
    const body = await (await fetch(history)).text()
    if (body.includes(last.toLowerCase())) break
    if (tries > 60) throw new Error('The stack did not index the bench transfers in 30 s')
    await new Promise((resolve) => setTimeout(resolve, 500))
  }

  const context = await browser.newContext()
  const page = await context.newPage()
  await installTestWallet(page, { privateKey: walletKey })
  const widget = page.frameLocator('iframe[title="Porthole wallet"]')
  const state = () =>
    page.evaluate(
      () =>
        (window as unknown as { Wallet: { getState(): { status: string } } }).Wallet.getState()
          .status,
    )
  const samples: number[] = []
  for (let run = 0; run <= activityRuns; run++) {
    await page.goto(`${origins.demo}/`)
    await page.waitForFunction(
      () =>
        typeof (window as unknown as { Wallet?: { open?: unknown } }).Wallet?.open === 'function',
    )
    const open = () =>
      page.evaluate(
        () => void (window as unknown as { Wallet: { open(): Promise<void> } }).Wallet.open(),
      )
    const connected = async (what: string) => {
      const deadline = Date.now() + 30_000
      while ((await state()) !== 'connected') {
        if (Date.now() > deadline) throw await stuck(page, what)
        await page.waitForTimeout(50)
      }
    }
    if (run === 0) {
      await open()
      await widget
        .getByRole('list', { name: 'Connect a wallet' })
        .getByRole('button', { name: /Porthole Test Wallet/ })
        .click()
      await connected('The test wallet did not connect')
    } else {
      // A reload reconnects the wallet: Account opens once it has.
      await connected('The test wallet did not reconnect after a reload')
    }
    await open()
    const entry = widget.getByRole('button', { name: /^Activity/ })
    await entry.waitFor({ timeout: 30_000 }).catch(async () => {
      throw await stuck(page, 'Account showed no Activity entry')
    })
    const start = performance.now()
    await entry.click()
    await widget.getByTestId('activity-row').first().waitFor()
    // The first run connects the wallet: not counted.
    if (run > 0) samples.push(performance.now() - start)
  }
  await context.close()
  record('Activity: click to first row (cold, 25 transactions)', median(samples), 'ms', 500)
}
