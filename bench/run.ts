/**
 * `npm run bench`: sizes and latencies, printed and compared with budgets.
 * Sizes are deterministic; latencies are medians over repeated runs in
 * Debian's Chromium against the local stack (started here unless one runs).
 * The RPC proxy's memory under attack and its throughput run against an API
 * child process of their own (`bench/rpc.ts`); `--rpc` runs only those. The
 * API under load runs against its own too (`bench/api.ts`); `--api` runs only it.
 * `--pages` runs only the open latencies and the React host page.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import type { Browser, Page } from '@playwright/test'
import { devKey } from '@porthole/dev-stack/anvil'
import { devSolanaKeypair } from '@porthole/dev-stack/solanaKeys'
import { installSolanaTestWallet } from '@porthole/dev-stack/solanaTestWallet'
import { origins, ports } from '@porthole/dev-stack/stack'
import { mailCount, waitForCode } from '@porthole/dev-stack/stackMail'
import { createStaticServer } from '@porthole/dev-stack/staticServer'
import { installTestWallet } from '@porthole/dev-stack/testWallet'
import { prefetchScriptFile } from '../apps/widget/runtimeConfig.mjs'
import { measureApi } from './api.ts'
import { framesHeap, hostCost, hostPairs, launch, type Visit, visit } from './browser.ts'
import { measureActivity, measureHistory } from './history.ts'
import {
  buildPages,
  hostPages,
  portholeFrame,
  portholeOpenRows,
  portholeRows,
  servePages,
} from './hostPages.ts'
import { measureProofOfWork } from './pow.ts'
import { measureRpcProxy } from './rpc.ts'
import { ensureBuilt, root, startStack } from './stack.ts'
import { median } from './stats.ts'

const runs = Number(process.env.BENCH_RUNS ?? 25)

/** A figure; its budget is a most, or with `atLeast` a least (a throughput). */
type Row = { name: string; value: number; unit: string; budget?: number; atLeast?: boolean }
const rows: Row[] = []
const withinBudget = (row: Row) =>
  row.budget === undefined || (row.atLeast ? row.value >= row.budget : row.value <= row.budget)
const record = (
  name: string,
  value: number,
  unit: string,
  budget?: number,
  { atLeast = false } = {},
) => {
  const row: Row =
    budget === undefined ? { name, value, unit } : { name, value, unit, budget, atLeast }
  rows.push(row)
  const verdict =
    budget === undefined
      ? ''
      : withinBudget(row)
        ? `  ok (budget ${atLeast ? 'at least ' : ''}${budget})`
        : `  OVER BUDGET (${atLeast ? 'at least ' : ''}${budget})`
  console.log(
    `${name.padEnd(52)} ${value.toFixed(unit === 'B' ? 0 : 1).padStart(10)} ${unit}${verdict}`,
  )
}

const sizes = (bytes: Buffer) => ({
  raw: bytes.length,
  gzip: gzipSync(bytes, { level: 9 }).length,
  brotli: brotliCompressSync(bytes).length,
})

type ManifestChunk = {
  file: string
  src?: string
  isEntry?: boolean
  imports?: string[]
  dynamicImports?: string[]
  css?: string[]
}

/** The entry chunk and everything it imports statically: the JS the Connect view needs. */
function initialChunks(manifest: Record<string, ManifestChunk>): string[] {
  const entry = Object.entries(manifest).find(([, chunk]) => chunk.isEntry)
  if (!entry) throw new Error('The widget manifest has no entry.')
  return chunksFrom(manifest, entry[0])
}

function measureSizes() {
  console.log('\nSizes')
  const loader = sizes(readFileSync(join(root, 'packages/loader/dist/loader.js')))
  record('loader.js raw', loader.raw, 'B')
  record('loader.js gzip', loader.gzip, 'B')
  // 5 KB: terser after esbuild (issue 13) made room for the BaseError (issue 12) and the
  // Wallet Standard's detection (issue 13).
  record('loader.js brotli', loader.brotli, 'B', 5 * 1024)
  const solana = sizes(readFileSync(join(root, 'packages/loader/dist/loader-solana.js')))
  // Loaded only on a page with a Wallet Standard wallet or app.
  record('loader-solana.js brotli', solana.brotli, 'B', 6 * 1024)

  const dist = join(root, 'apps/widget/dist')
  const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8'))
  // The prefetch script too: a file of its own (not in the manifest), named by the page.
  const prefetch = prefetchScriptFile(readFileSync(join(dist, 'index.html'), 'utf8'))
  const files = [...initialChunks(manifest), prefetch]
  const initial = sizes(Buffer.concat(files.map((file) => readFileSync(join(dist, file)))))
  record(
    `widget initial JS raw (${files.length - 1} chunk${files.length > 2 ? 's' : ''} and the prefetch script)`,
    initial.raw,
    'B',
  )
  // 60 KiB since issue 14 (140 KiB before: React, react-router and classic zod).
  record('widget initial JS gzip', initial.gzip, 'B', 60 * 1024)
  // 80 KB since issue 14 (Preact through preact/compat, zod/mini, every view but Connect lazy).
  record('widget initial JS brotli', initial.brotli, 'B', 80 * 1024)

  // The page itself, fetched at every load (no-cache): the first paint's markup and
  // the inlined stylesheet (src/firstPaint.tsx) make it paint before the JS runs.
  const page = sizes(readFileSync(join(dist, 'index.html')))
  record('widget page (index.html) raw', page.raw, 'B')
  record('widget page (index.html) brotli', page.brotli, 'B', 12 * 1024)

  // What using an EVM connector adds: the EVM layer (wagmi, viem) and its views,
  // then, for WalletConnect only, the universal provider.
  const loaded = new Set(files)
  const lazy = (src: string, base = loaded) => {
    const key = Object.keys(manifest).find((candidate) => candidate.endsWith(src))
    if (!key) throw new Error(`The widget manifest has no chunk for ${src}.`)
    const added = chunksFrom(manifest, key).filter((file) => !base.has(file))
    for (const file of added) base.add(file)
    return {
      count: added.length,
      ...sizes(Buffer.concat(added.map((file) => readFileSync(join(dist, file))))),
    }
  }
  // The views' chunk imports the EVM layer's statically.
  const evm = lazy('src/routes/evmViews.ts')
  record(
    `EVM connector JS gzip (wagmi, viem, views; ${evm.count} chunks)`,
    evm.gzip,
    'B',
    140 * 1024,
  )
  record('EVM connector JS raw', evm.raw, 'B')
  const walletConnect = lazy('@walletconnect/universal-provider/dist/index.js')
  record(
    `WalletConnect JS gzip (on top; ${walletConnect.count} chunks)`,
    walletConnect.gzip,
    'B',
    160 * 1024,
  )
  // What a Solana connection adds to the start-up JS alone (web3.js, spl-token;
  // Buffer is set up first): Solana code loads only when used (issue 13).
  const solanaBase = new Set(files)
  const solanaSetup = lazy('src/lib/chains/solana/buffer.ts', solanaBase)
  const solanaAdapter = lazy('src/lib/chains/solana/index.ts', solanaBase)
  record(
    `Solana connector JS gzip (web3.js, spl-token; ${solanaSetup.count + solanaAdapter.count} chunks)`,
    solanaSetup.gzip + solanaAdapter.gzip,
    'B',
    // 101 KiB at issue 13 (web3.js is most of it; @solana/kit would be smaller); 115 KiB
    // since issue 14, whose smaller start-up JS leaves more shared code to the first chain loaded.
    115 * 1024,
  )
}

/** A chunk and everything it imports statically. */
function chunksFrom(manifest: Record<string, ManifestChunk>, key: string): string[] {
  const files = new Set<string>()
  const visit = (name: string) => {
    const chunk = manifest[name]
    if (!chunk || files.has(chunk.file)) return
    files.add(chunk.file)
    for (const imported of chunk.imports ?? []) visit(imported)
  }
  visit(key)
  return [...files]
}

async function measureRoundTrip(browser: Browser) {
  const port = ports.benchPages
  const server = createStaticServer({ root: join(root, 'bench/pages') })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  try {
    const page = await browser.newPage()
    await page.goto(`http://127.0.0.1:${port}/parent.html?child=http://echo.localhost:${port}`)
    const samples = await page.evaluate(
      () => (window as unknown as { roundTrips: Promise<number[]> }).roundTrips,
    )
    record('postMessage round trip, cross-site (median of 500)', median(samples), 'ms')
    await page.close()
  } finally {
    server.close()
  }
}

/** Milliseconds on a clock shared by every frame of the browser. */
const now = (page: Page) => page.evaluate(() => performance.timeOrigin + performance.now())

/** The first animation frame, inside the widget frame, with four of `rows` laid out. */
async function rowsAt(page: Page, rows: string): Promise<number> {
  const find = () => page.frames().find((frame) => frame.url().startsWith(origins.widget))
  let frame = find()
  while (!frame) {
    await page.waitForEvent('framenavigated', { timeout: 20_000 })
    frame = find()
  }
  const handle = await frame.waitForFunction(
    (rows) => {
      const laidOut = [...document.querySelectorAll(rows)].filter(
        (row) => row.getClientRects().length > 0,
      )
      return laidOut.length >= 4 ? performance.timeOrigin + performance.now() : 0
    },
    rows,
    { polling: 'raf', timeout: 20_000 },
  )
  return (await handle.jsonValue()) as number
}

/** The first animation frame, in the page, where the widget's frame is shown (no longer transparent). */
async function frameShownAt(page: Page): Promise<number> {
  const handle = await page.waitForFunction(
    (selector) => {
      const frame = document.querySelector(selector)
      const shown = frame && Number(getComputedStyle(frame).opacity) > 0
      return shown ? performance.timeOrigin + performance.now() : 0
    },
    portholeFrame,
    { polling: 'raf', timeout: 20_000 },
  )
  return (await handle.jsonValue()) as number
}

/** When the list is painted: its rows laid out in the widget frame, and that frame shown by the page. */
const paintedAt = (page: Page) =>
  Promise.all([rowsAt(page, portholeRows), frameShownAt(page)]).then((times) => Math.max(...times))

async function measureOpen(browser: Browser) {
  console.log(`\nOpen latency: Wallet.open() to the wallet list painted (median of ${runs})`)
  const warm: number[] = []
  const warmInteractive: number[] = []
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto(`${origins.demo}/`)
  await page.waitForFunction(
    () =>
      typeof (window as unknown as { Wallet?: { getState?: unknown } }).Wallet?.getState ===
      'function',
  )
  // Pre-warmed: the hidden widget has rendered Connect with its data. Each
  // open comes after half a second of quiet, as a visitor's would (not in the
  // same instant as the close before it).
  const close = async () => {
    await page.keyboard.press('Escape')
    await page.waitForFunction(
      () =>
        !(window as unknown as { Wallet: { getState(): { open: boolean } } }).Wallet.getState()
          .open,
    )
  }
  // The app has rendered over the built page's first paint and taken one open.
  await page.evaluate(() =>
    (window as unknown as { Wallet: { open(): Promise<void> } }).Wallet.open(),
  )
  await close()
  for (let run = 0; run < runs; run++) {
    await page.waitForTimeout(500)
    // The rows are laid out in the transparent frame before open(): painted once it shows.
    await rowsAt(page, portholeRows)
    const shown = frameShownAt(page)
    const interactive = rowsAt(page, portholeOpenRows)
    // Timed where open() is called: not a harness round trip earlier.
    const start = await page.evaluate(() => {
      const calledAt = performance.timeOrigin + performance.now()
      void (window as unknown as { Wallet: { open(): Promise<void> } }).Wallet.open()
      return calledAt
    })
    warm.push((await shown) - start)
    warmInteractive.push((await interactive) - start)
    await page.keyboard.press('Escape')
    await page.waitForFunction(
      () =>
        !(window as unknown as { Wallet: { getState(): { open: boolean } } }).Wallet.getState()
          .open,
    )
  }
  await context.close()
  record('pre-warmed iframe: open() → list painted', median(warm), 'ms', 15)
  record('pre-warmed iframe: open() → list interactive', median(warmInteractive), 'ms')

  const cold: number[] = []
  for (let run = 0; run < Math.min(runs, 20); run++) {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${origins.demo}/`, { waitUntil: 'commit' })
    await page.waitForFunction(
      () =>
        typeof (window as unknown as { Wallet?: { open?: unknown } }).Wallet?.open === 'function',
      undefined,
      { polling: 'raf' },
    )
    const start = await page.evaluate(() => {
      const calledAt = performance.timeOrigin + performance.now()
      void (window as unknown as { Wallet: { open(): Promise<void> } }).Wallet.open()
      return calledAt
    })
    cold.push((await paintedAt(page)) - start)
    await context.close()
  }
  record('cold iframe (fresh context, open at loader start): painted', median(cold), 'ms', 1500)
}

/**
 * Porthole's React host page against the same page without the snippet,
 * interleaved, a fresh context each visit: navigation to the wallet list
 * when Connect is clicked the moment it is usable, the frames' JS heap at
 * open, and what the snippet costs the host page.
 */
async function measureHostPage(browser: Browser) {
  const pageRuns = Math.min(runs, 15)
  console.log(`\nA React host page, cold (median of ${pageRuns}, a fresh context each)`)
  const dist = join(root, 'bench/dist')
  await buildPages([hostPages.porthole.source, hostPages.bare.source], dist)
  const server = await servePages(dist)
  const porthole: Visit[] = []
  const bare: Visit[] = []
  let host: Awaited<ReturnType<typeof hostCost>>
  try {
    for (let run = 0; run < pageRuns; run++) {
      porthole.push(await visit(browser, hostPages.porthole.subject, { heap: true }))
      bare.push(await visit(browser, hostPages.bare.subject, { heap: true }))
    }
    // The host's own button rendered and enabled, whether or not `window.Wallet` is there
    // yet: from pairs of visits of their own, many more than the figures below.
    host = await hostCost(browser, hostPages.porthole.subject, hostPages.bare.subject)
  } finally {
    server.close()
  }
  const of = (visits: Visit[], figure: (visit: Visit) => number | undefined) =>
    median(visits.map((visit) => figure(visit) ?? Number.NaN))
  record(
    'nav → wallet list, clicked when Connect is usable',
    of(porthole, (v) => v.total),
    'ms',
    150,
  )
  record(
    'click → wallet list (the same visits)',
    of(porthole, (v) => v.open),
    'ms',
  )
  record(
    'click → wallet list clickable (the widget took the open)',
    of(porthole, (v) => v.interactive),
    'ms',
  )
  const kib = (bytes: number | undefined) => (bytes ?? 0) / 1024
  record(
    'JS heap at open: widget frame',
    of(porthole, (v) => kib(v.heap?.frames[origins.widget])),
    'KiB',
  )
  record(
    'JS heap at open: secure frame',
    of(porthole, (v) => kib(v.heap?.frames[origins.secure])),
    'KiB',
  )
  record(
    'JS heap at open: the frames together',
    of(porthole, (v) => kib(framesHeap(v))),
    'KiB',
    4096,
  )
  console.log(`  (the host page's cost: ${hostPairs} pairs of visits of their own)`)
  record('host page: nav → Connect usable', median(host.withSnippet), 'ms')
  record('the same page without Porthole: nav → Connect usable', median(host.without), 'ms')
  record('host page: Connect usable later than without Porthole', host.cost * 100, '%', 5)
  record(
    'host page: JS heap more than without Porthole',
    of(porthole, (v) => kib(v.heap?.page)) - of(bare, (v) => kib(v.heap?.page)),
    'KiB',
    512,
  )
}

/** Resolves (in the page) with the time the host first sees `connected`. */
const connectedAt = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const { Wallet } = window as unknown as {
          Wallet: { subscribe(listener: (state: { status: string }) => void): () => void }
        }
        const stop = Wallet.subscribe((state) => {
          if (state.status !== 'connected') return
          stop()
          resolve(performance.timeOrigin + performance.now())
        })
      }),
  )

/**
 * Click on a wallet of the host page in Connect to the host seeing
 * `connected`, then disconnect; `install` puts the wallet in the page.
 */
async function measureConnect(
  browser: Browser,
  {
    label,
    install,
    entry,
  }: { label: string; install(page: Page): Promise<unknown>; entry: RegExp },
) {
  const connectRuns = Math.min(runs, 15)
  console.log(`\nConnect latency with ${label} (median of ${connectRuns})`)
  const context = await browser.newContext()
  const page = await context.newPage()
  await install(page)
  await page.goto(`${origins.demo}/`)
  await page.waitForFunction(
    () => typeof (window as unknown as { Wallet?: { open?: unknown } }).Wallet?.open === 'function',
  )
  const widget = page.frameLocator('iframe[title="Porthole wallet"]')
  const samples: number[] = []
  for (let run = 0; run < connectRuns; run++) {
    await page.evaluate(
      () => void (window as unknown as { Wallet: { open(): Promise<void> } }).Wallet.open(),
    )
    const button = widget.getByRole('button', { name: entry })
    await button.waitFor()
    const connected = connectedAt(page)
    const start = await now(page)
    await button.click()
    samples.push((await connected) - start)
    await page.evaluate(() =>
      (window as unknown as { Wallet: { disconnect(): Promise<void> } }).Wallet.disconnect(),
    )
    await page.waitForFunction(
      () =>
        (window as unknown as { Wallet: { getState(): { status: string } } }).Wallet.getState()
          .status === 'disconnected',
    )
  }
  await context.close()
  record(`${label}: click to connected (includes the click round trip)`, median(samples), 'ms', 500)
}

/**
 * Email login of a new user, Continue to connected, without the mail's
 * delivery: (Continue → code view) + (code typed → connected). The second part
 * includes making the wallet (seed, shares, the API storing two of them).
 */
async function measureEmailLogin(browser: Browser) {
  const loginRuns = Math.min(runs, 5)
  console.log(`\nEmbedded wallet (median of ${loginRuns})`)
  const samples: number[] = []
  for (let run = 0; run < loginRuns; run++) {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${origins.demo}/`)
    await page.waitForFunction(
      () =>
        typeof (window as unknown as { Wallet?: { open?: unknown } }).Wallet?.open === 'function',
    )
    await page.evaluate(
      () => void (window as unknown as { Wallet: { open(): Promise<void> } }).Wallet.open(),
    )
    const widget = page.frameLocator('iframe[title="Porthole wallet"]')
    const email = `bench-${Date.now()}-${run}@example.com`
    await widget.getByPlaceholder('Email').fill(email)
    const since = await mailCount()
    const asked = await now(page)
    await widget.getByRole('button', { name: 'Continue' }).click()
    await widget.getByLabel('Code from the email').waitFor()
    const shown = await now(page)
    const code = await waitForCode(email, since)
    const connected = connectedAt(page)
    const typed = await now(page)
    await widget.getByLabel('Code from the email').fill(code)
    samples.push(shown - asked + ((await connected) - typed))
    if (run === loginRuns - 1) await measureApproval(page)
    await context.close()
  }
  record('email login, Continue → connected (mail excluded)', median(samples), 'ms', 3000)
}

/**
 * The approval path (SECURITY.md 7): 'Open approval window' clicked in the
 * secure frame → the window shows the request; and Approve clicked there →
 * the host holds the signature.
 */
async function measureApproval(page: Page) {
  const approvalRuns = Math.min(runs, 10)
  const frame = page
    .frameLocator('iframe[title="Porthole wallet"]')
    .frameLocator('iframe[title="Porthole secure frame"]')
  const opening: number[] = []
  const samples: number[] = []
  for (let run = 0; run < approvalRuns; run++) {
    const signed = page.evaluate(async (run) => {
      const { Wallet } = window as unknown as {
        Wallet: {
          provider: { request(args: { method: string; params?: unknown }): Promise<unknown> }
          getState(): { address: string }
        }
      }
      await Wallet.provider.request({
        method: 'personal_sign',
        params: [`0x${run.toString(16).padStart(2, '0')}`, Wallet.getState().address],
      })
      return performance.timeOrigin + performance.now()
    }, run)
    const open = frame.getByRole('button', { name: 'Open approval window' })
    await open.waitFor()
    const popupOpened = page.context().waitForEvent('page')
    const asked = await now(page)
    await open.click()
    const popup = await popupOpened
    const approve = popup.getByRole('button', { name: 'Approve' })
    await approve.waitFor()
    opening.push((await now(popup)) - asked)
    await expectEnabled(approve)
    const clicked = await now(popup)
    // The window closes itself on the decision, possibly before the click returns.
    await approve.click().catch((error: unknown) => {
      if (!popup.isClosed()) throw error
    })
    samples.push((await signed) - clicked)
    // The next request starts once this approval has gone (the modal closes).
    await page.waitForFunction(
      () =>
        !(window as unknown as { Wallet: { getState(): { open: boolean } } }).Wallet.getState()
          .open,
    )
  }
  record(
    `approval window: open click → request shown (median of ${approvalRuns})`,
    median(opening),
    'ms',
    1000,
  )
  record(
    `approval click → signature at the host (median of ${approvalRuns})`,
    median(samples),
    'ms',
    500,
  )
}

/** Waits until a button is enabled (the approval's arming delay). */
async function expectEnabled(locator: ReturnType<Page['locator']>) {
  const deadline = Date.now() + 10_000
  while (!(await locator.isEnabled())) {
    if (Date.now() > deadline) throw new Error('Approve never became enabled')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The flows after the list: connecting two kinds of wallet, email login, proof of work. */
async function measureFlows(browser: Browser) {
  await measureConnect(browser, {
    label: 'the injected test wallet',
    install: (page) => installTestWallet(page, { privateKey: devKey(8) }),
    entry: /Porthole Test Wallet/,
  })
  await measureConnect(browser, {
    label: 'a Wallet Standard (Solana) test wallet',
    install: (page) =>
      installSolanaTestWallet(page, { keypair: devSolanaKeypair(9), name: 'Solana Test Wallet' }),
    entry: /Solana Test Wallet/,
  })
  await measureEmailLogin(browser)
  await measureProofOfWork(browser, record)
  await measureActivity(browser, record, runs)
}

async function main() {
  // `npm run bench -- --rpc`: the RPC proxy's figures only (no build, no browser).
  if (process.argv.includes('--rpc')) {
    await measureRpcProxy(record)
    return finish()
  }
  // `npm run bench -- --activity`: Activity in the browser on the stack only.
  if (process.argv.includes('--activity')) {
    ensureBuilt()
    const stack = await startStack()
    const browser = await launch()
    try {
      await measureActivity(browser, record, runs)
    } finally {
      await browser.close()
      stack.stop()
    }
    return finish()
  }
  // `npm run bench -- --history`: the indexer and the history endpoint only.
  if (process.argv.includes('--history')) {
    await measureHistory(record)
    return finish()
  }
  // `npm run bench -- --api`: the API under load only (no build, no browser).
  if (process.argv.includes('--api')) {
    await measureApi(record)
    return finish()
  }
  // `npm run bench -- --pages`: the open latencies and the host page only.
  const pagesOnly = process.argv.includes('--pages')
  ensureBuilt()
  measureSizes()
  if (!pagesOnly) {
    await measureRpcProxy(record)
    await measureApi(record)
    await measureHistory(record)
  }
  const stack = await startStack()
  const browser = await launch()
  try {
    console.log('\nFloor')
    await measureRoundTrip(browser)
    await measureOpen(browser)
    await measureHostPage(browser)
    if (!pagesOnly) await measureFlows(browser)
  } finally {
    await browser.close()
    stack.stop()
  }
  finish()
}

function finish() {
  const over = rows.filter((row) => !withinBudget(row))
  console.log(
    over.length ? `\n${over.length} figure(s) over budget.` : '\nAll figures within budget.',
  )
  process.exitCode = over.length ? 1 : 0
}

await main()
