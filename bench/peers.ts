/**
 * `npm run bench:peers`: Porthole side by side with RainbowKit, ConnectKit
 * and Reown AppKit (each with wagmi) and the same React page without any,
 * served from loopback with every request off this machine aborted (each
 * peer shows its built-in wallet list offline). Interleaved, round robin, a
 * fresh browser context per visit; prints one table and checks issue 14's
 * ratio goals, exiting non-zero when one is missed.
 *
 *   BENCH_PEERS_RUNS=11   visits per page and case
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { origins } from '@porthole/dev-stack/stack'
import {
  framesHeap,
  hostCost,
  hostPairs,
  launch,
  type Subject,
  type Visit,
  visit,
} from './browser.ts'
import { buildPages, hostPages, type PageSource, servePages } from './hostPages.ts'
import { ensureBuilt, startStack } from './stack.ts'
import { median } from './stats.ts'

const runs = Number(process.env.BENCH_PEERS_RUNS ?? 11)
const peersDir = join(import.meta.dirname, 'peers')
const { subject: porthole } = hostPages.porthole
const { subject: bare } = hostPages.bare

/** A peer's page: its button opens a modal in the page; `list` says what is awaited there. */
const peer = (name: string, path: string, list: NonNullable<Subject['list']>) => ({
  source: { path, entry: join(peersDir, `src/${path}.tsx`) },
  subject: {
    name,
    url: porthole.url.replace('/porthole/', `/${path}/`),
    button: '#connect',
    list,
  },
})
const peers = [
  peer('RainbowKit', 'rainbowkit', { rows: '[data-testid^="rk-wallet-option-"]' }),
  // Offline it lists three wallets (MetaMask, Coinbase Wallet, Other Wallets), with
  // icons in `[data-shape]` boxes (its class names are hashed).
  peer('ConnectKit', 'connectkit', { rows: 'button[type="button"]:has(> [data-shape])', count: 3 }),
  // Offline its Connect view lists the email field, then Google, four social
  // logos and More, then Search Wallet: wallet and login rows, in shadow roots.
  peer('AppKit', 'appkit', { rows: 'wui-list-wallet, wui-list-button, wui-logo-select' }),
]
const rainbowKit = peers[0]?.subject as Subject

/** What each page's visits gave, by case. */
type Samples = { cold: Visit[]; warm: Visit[]; slow: Visit[] }

async function main() {
  if (!existsSync(join(peersDir, 'node_modules'))) {
    console.log('Installing the peers’ pages’ packages (bench/peers, once)…')
    const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
      cwd: peersDir,
      stdio: 'inherit',
    })
    if (install.status !== 0) throw new Error('npm ci in bench/peers failed.')
  }
  ensureBuilt()
  const dist = join(peersDir, 'dist')
  const sources: PageSource[] = [
    hostPages.porthole.source,
    hostPages.bare.source,
    ...peers.map(({ source }) => source),
  ]
  await buildPages(sources, dist)
  const stack = await startStack()
  const server = await servePages(dist)
  const browser = await launch()
  const subjects = [porthole, ...peers.map(({ subject }) => subject), bare]
  const samples = new Map<Subject, Samples>(
    subjects.map((subject) => [subject, { cold: [], warm: [], slow: [] }]),
  )
  let host: Awaited<ReturnType<typeof hostCost>>
  try {
    console.log(`${runs} runs, round robin over ${subjects.length} pages, a fresh context each.`)
    for (let run = 0; run < runs; run++) {
      // Round robin, starting one page further each run.
      const order = subjects.map((_, index) => subjects[(index + run) % subjects.length] as Subject)
      for (const subject of order) {
        const of = samples.get(subject) as Samples
        of.cold.push(await visit(browser, subject, { heap: true }))
        if (!subject.list) continue
        of.warm.push(await visit(browser, subject, { clickAfterLoad: 1500 }))
        of.slow.push(await visit(browser, subject, { cpuSlowdown: 4 }))
      }
      process.stdout.write(`  run ${run + 1}/${runs}\n`)
    }
    console.log(`The host page's cost: ${hostPairs} pairs of visits, with and without the snippet.`)
    host = await hostCost(browser, porthole, bare)
  } finally {
    await browser.close()
    server.close()
    stack.stop()
  }
  const missed = report(subjects, samples, host)
  if (missed.length) {
    console.log(`\nGoals missed:\n${missed.map((goal) => `  - ${goal}`).join('\n')}`)
    process.exitCode = 1
  } else console.log('\nAll goals met.')
}

const mib = (bytes: number) => bytes / 1024 / 1024

/** The figures of a table row, each a list of samples. */
function figures({ cold, warm, slow }: Samples) {
  const defined = (values: (number | undefined)[]) =>
    values.filter((value): value is number => value !== undefined)
  return {
    usable: cold.map((visit) => visit.usable),
    rendered: cold.map((visit) => visit.rendered),
    cold: defined(cold.map((visit) => visit.open)),
    interactive: defined(cold.map((visit) => visit.interactive)),
    warm: defined(warm.map((visit) => visit.open)),
    total: defined(cold.map((visit) => visit.total)),
    slow: defined(slow.map((visit) => visit.total)),
    page: cold.map((visit) => mib(visit.heap?.page ?? 0)),
    frames: cold.map((visit) => mib(framesHeap(visit))),
    heap: cold.map((visit) => mib((visit.heap?.page ?? 0) + framesHeap(visit))),
  }
}
type Figure = keyof ReturnType<typeof figures>

const columns: { figure: Figure; title: string; digits: number }[] = [
  { figure: 'usable', title: 'nav → Connect usable', digits: 0 },
  { figure: 'cold', title: 'cold click → list', digits: 0 },
  { figure: 'interactive', title: 'cold click → clickable', digits: 0 },
  { figure: 'warm', title: 'warm click → list', digits: 0 },
  { figure: 'total', title: 'nav → list', digits: 0 },
  { figure: 'slow', title: 'nav → list, 4× CPU', digits: 0 },
  { figure: 'page', title: 'heap page MiB', digits: 1 },
  { figure: 'frames', title: 'heap frames MiB', digits: 1 },
  { figure: 'heap', title: 'heap all MiB', digits: 1 },
]

/** Prints the table (medians, min–max) and the ratios; returns the goals missed. */
function report(
  subjects: Subject[],
  samples: Map<Subject, Samples>,
  host: Awaited<ReturnType<typeof hostCost>>,
): string[] {
  const of = (subject: Subject) => figures(samples.get(subject) as Samples)
  const cell = (values: number[], digits: number) =>
    values.length
      ? `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`
      : '–'
  const width = 22
  console.log(
    `\nMedian (min–max) of ${runs} runs; ms unless MiB. Heap: JS heap used after GC, at open.`,
  )
  console.log(['page'.padEnd(16), ...columns.map(({ title }) => title.padStart(width))].join(' '))
  for (const subject of subjects) {
    const row = of(subject)
    console.log(
      [
        subject.name.padEnd(16),
        ...columns.map(({ figure, digits }) => cell(row[figure], digits).padStart(width)),
      ].join(' '),
    )
  }
  const ours = of(porthole)
  const ratio = (figure: Figure, peer: Subject) => {
    const theirs = of(peer)[figure]
    return ours[figure].length && theirs.length ? median(ours[figure]) / median(theirs) : NaN
  }
  console.log('\nPorthole ÷ peer (medians)')
  for (const { subject } of peers)
    console.log(
      [
        subject.name.padEnd(16),
        ...columns.map(({ figure }) => `${ratio(figure, subject).toFixed(2)}×`.padStart(width)),
      ].join(' '),
    )
  const widget = ours.frames.length ? median(ours.frames) : 0
  const byOrigin = (origin: string) =>
    median(
      (samples.get(porthole) as Samples).cold.map((visit) => mib(visit.heap?.frames[origin] ?? 0)),
    )
  console.log(
    `\nPorthole's frames at open: widget ${byOrigin(origins.widget).toFixed(1)} MiB, secure frame ${byOrigin(origins.secure).toFixed(1)} MiB (together ${widget.toFixed(1)} MiB).`,
  )

  const missed: string[] = []
  const check = (goal: string, met: boolean, figures: string) => {
    console.log(`${met ? 'ok  ' : 'MISS'} ${goal}: ${figures}`)
    if (!met) missed.push(`${goal}: ${figures}`)
  }
  console.log('\nGoals (issue 14)')
  for (const figure of ['total', 'slow'] as const) {
    const value = ratio(figure, rainbowKit)
    check(
      `cold nav → list${figure === 'slow' ? ' at 4× CPU' : ''} ≤ 0.6× RainbowKit's`,
      value <= 0.6,
      `${value.toFixed(2)}×`,
    )
  }
  // The host's own button (rendered and enabled), whether or not `window.Wallet` is there
  // yet, from the pairs of visits of its own (the table's 11 visits are too few for 5 %).
  check(
    `host page: nav → Connect usable within 5 % of the bare page's (${host.withSnippet.length} pairs: ${median(host.withSnippet).toFixed(0)} against ${median(host.without).toFixed(0)} ms)`,
    host.cost <= 0.05,
    `${host.cost >= 0 ? '+' : ''}${(host.cost * 100).toFixed(1)} %`,
  )
  const heap = median(ours.page) - median(of(bare).page)
  check(
    "host page: JS heap within 0.5 MiB of the bare page's",
    heap <= 0.5,
    `${heap >= 0 ? '+' : ''}${heap.toFixed(2)} MiB`,
  )
  return missed
}

await main()
