/**
 * Host pages measured in Chromium, shared by `npm run bench` and
 * `npm run bench:peers`: one visit per fresh browser context, timed inside
 * the page and inside the frame that holds the wallet list (animation-frame
 * polling from document start, on the clock every frame of the browser
 * shares, reported to the harness through a binding: nothing is evaluated
 * in a frame while it boots), the JS heap of the page and of each cross-site frame, and the CPU
 * of every renderer throttled on demand.
 */
import {
  type Browser,
  type BrowserContext,
  type CDPSession,
  chromium,
  type Frame,
  type Page,
} from '@playwright/test'
import { chromiumArgs } from '../playwright.config.ts'
import { median } from './stats.ts'

export const launch = () =>
  chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs })

/** A host page with a Connect button that opens a wallet list. */
export type Subject = {
  name: string
  url: string
  /** The page's Connect button (CSS, in the top document). */
  button: string
  /** Usable only once `window.Wallet` is there too (Porthole's loader). */
  needsWallet?: boolean
  /**
   * The list's rows (CSS, searched through open shadow roots as well), in
   * the frame whose URL starts with `frameOrigin` (else the page). None: a
   * page without a modal (the bare page: its button does nothing).
   * `count`: the rows awaited, 4 unless the page shows fewer offline.
   * `shownFrame`: for a list in a frame the page keeps transparent until it
   * opens (Porthole's), that frame's element (CSS, in the top document): the
   * list is painted once its rows are laid out and the page shows the frame.
   * `interactiveRows`: the rows once they take a click (else `rows`).
   */
  list?: {
    rows: string
    frameOrigin?: string
    count?: number
    shownFrame?: string
    interactiveRows?: string
  }
}

/** Both in ms; `clickedAt` on the shared clock, `usable` from navigation start. */
type Marks = {
  rendered: number
  usable: number
  clickedAt: number
  navigationStart: number
}

/** What the page and the list's frame report through the binding, each once. */
type Report = 'clicked' | 'shown' | 'listed' | 'interactive'

/** What one visit measured, in ms and bytes. */
export type Visit = {
  /** Navigation start → the Connect button rendered and enabled: the host's own button usable. */
  rendered: number
  /** Navigation start → the Connect button usable (rendered, enabled, and `window.Wallet` where needed). */
  usable: number
  /** Click → the first four rows of the list painted (laid out, in a frame the page shows). */
  open?: number
  /** Click → the same rows taking clicks (Porthole's widget has taken the host's `open`). */
  interactive?: number
  /** Navigation start → the list painted. */
  total?: number
  /** JS heap used after a garbage collection, the page's and each cross-site frame's (by origin). */
  heap?: { page: number; frames: Record<string, number> }
}

export type VisitOptions = {
  /** Click when the button is first usable (cold) or this long after `load` (warm). */
  clickAfterLoad?: number
  /** CPU slowdown of every renderer: the page's and each cross-site frame's. */
  cpuSlowdown?: number
  /** Read the JS heaps once the list is painted. */
  heap?: boolean
}

/** One visit in a fresh context, every request off this machine aborted. */
export async function visit(
  browser: Browser,
  subject: Subject,
  options: VisitOptions = {},
): Promise<Visit> {
  const context = await browser.newContext()
  try {
    await blockRemote(context)
    // The page and the list's frame report through a binding: the harness never evaluates
    // in a frame while it boots (an evaluation injects Playwright's own script there, whose
    // parse a booting frame would pay for, and only a frame-hosted list like Porthole's).
    const reported = new Map<Report, { promise: Promise<unknown>; resolve(value: unknown): void }>()
    const reportOf = (kind: Report) => {
      let report = reported.get(kind)
      if (!report) {
        let resolve!: (value: unknown) => void
        const promise = new Promise<unknown>((settle) => {
          resolve = settle
        })
        report = { promise, resolve }
        reported.set(kind, report)
      }
      return report
    }
    await context.exposeBinding(reportBinding, ({ frame }, kind: Report, value: unknown) => {
      const listFrame = subject.list?.frameOrigin
      const top = frame === frame.page().mainFrame()
      const inListFrame = listFrame ? frame.url().startsWith(listFrame) : top
      const from = kind === 'clicked' || kind === 'shown' ? top : inListFrame
      if (from) reportOf(kind).resolve(value)
    })
    await context.addInitScript({
      content: script(watch, {
        button: subject.button,
        needsWallet: subject.needsWallet ?? false,
        rows: subject.list?.rows ?? null,
        count: subject.list?.count ?? 4,
        frameOrigin: subject.list?.frameOrigin ?? null,
        shownFrame: subject.list?.shownFrame ?? null,
        interactiveRows: subject.list?.interactiveRows ?? null,
        clickAfterLoad: options.clickAfterLoad ?? null,
        binding: reportBinding,
      }),
    })
    const page = await context.newPage()
    if (options.cpuSlowdown) await throttleEveryRenderer(page, options.cpuSlowdown)
    await page.goto(subject.url, { waitUntil: 'commit' })
    const marks = (await within(
      reportOf('clicked').promise,
      `${subject.name}'s Connect never became usable.`,
    )) as Marks
    const result: Visit = { rendered: marks.rendered, usable: marks.usable }
    if (subject.list) {
      const at = (kind: Report, what: string) =>
        within(reportOf(kind).promise, `The wallet list was never ${what}.`) as Promise<number>
      // Painted once both hold: rows laid out in a frame the page shows (a frame
      // that boots before the click lays them out before the page shows it).
      const listAt = Math.max(
        await at('listed', 'laid out'),
        subject.list.shownFrame ? await at('shown', 'shown') : 0,
      )
      result.open = listAt - marks.clickedAt
      result.total = listAt - marks.navigationStart
      result.interactive = (await at('interactive', 'interactive')) - marks.clickedAt
    } else {
      // Nothing opens: let the click's frame go by before reading the heap.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)))
    }
    if (options.heap) result.heap = await heaps(page)
    return result
  } finally {
    await context.close()
  }
}

/** Back-to-back visits for the host-cost figure, unless `BENCH_HOST_PAIRS` says otherwise. */
export const hostPairs = Number(process.env.BENCH_HOST_PAIRS ?? 41)

/**
 * What the snippet costs the host page: navigation start → the host's own
 * Connect rendered and enabled, on a page with the snippet against the same
 * page without it, in `pairs` pairs of back-to-back visits (which goes first
 * alternates), a fresh context each, the widget's list not awaited. On this
 * kind of machine the figure varies by ±15 % between visits of one page, so
 * the median of a table's 11 visits cannot tell a 5 % cost from none. The
 * pairs narrow that, at about a second a pair, but not to nothing: two copies
 * of the bare page measured this way came out 5.5 % and 4.1 % apart (README).
 */
export async function hostCost(
  browser: Browser,
  withSnippet: Subject,
  without: Subject,
  pairs = hostPairs,
): Promise<{ withSnippet: number[]; without: number[]; cost: number }> {
  const { list: _list, ...hostOnly } = withSnippet
  const samples = { withSnippet: [] as number[], without: [] as number[] }
  const sides = ['withSnippet', 'without'] as const
  for (let pair = 0; pair < pairs; pair++)
    for (const side of pair % 2 ? [...sides].reverse() : sides)
      samples[side].push((await visit(browser, side === 'without' ? without : hostOnly)).rendered)
  return { ...samples, cost: median(samples.withSnippet) / median(samples.without) - 1 }
}

/** The JS heap of a visit's cross-site frames together. */
export const framesHeap = (visit: Visit) =>
  Object.values(visit.heap?.frames ?? {}).reduce((sum, bytes) => sum + bytes, 0)

/**
 * A function and its argument as an init script's source. tsx keeps the
 * names of inner functions with calls to its `__name` helper, which the
 * page lacks: the source brings its own.
 */
const script = <T>(fn: (arg: T) => void, arg: T) =>
  `(() => { const __name = (target) => target; (${fn})(${JSON.stringify(arg)}) })()`

/** The binding (`context.exposeBinding`) through which `watch` reports the click's marks and the list's paint. */
const reportBinding = '__benchReport'

/**
 * The init script of every frame: in the page, polls each animation frame
 * for the Connect button usable, then clicks it there and then (or `clickAfterLoad`
 * ms after `load`); in the list's frame, polls each animation frame for four
 * rows laid out (`count` of them). No round trip to the harness sits between the two.
 */
function watch(options: {
  button: string
  needsWallet: boolean
  rows: string | null
  count: number
  frameOrigin: string | null
  shownFrame: string | null
  interactiveRows: string | null
  clickAfterLoad: number | null
  binding: string
}) {
  const clock = () => performance.timeOrigin + performance.now()
  const isTop = window === window.top
  const onEachFrame = (done: () => boolean) => {
    const poll = () => {
      if (!done()) requestAnimationFrame(poll)
    }
    requestAnimationFrame(poll)
  }
  const countRows = (selector: string) => {
    let count = 0
    const visit = (root: Document | ShadowRoot) => {
      for (const element of root.querySelectorAll(selector))
        if (element.getClientRects().length > 0) count++
      for (const element of root.querySelectorAll('*'))
        if (element.shadowRoot) visit(element.shadowRoot)
    }
    visit(document)
    return count
  }
  const watchRows = (rows: string, resolve: (at: number) => void) =>
    onEachFrame(() => {
      if (countRows(rows) < options.count) return false
      resolve(clock())
      return true
    })
  const watchList = (listed: (at: number) => void, interactive: (at: number) => void) => {
    const rows = options.rows
    if (rows === null) return
    watchRows(rows, listed)
    watchRows(options.interactiveRows ?? rows, interactive)
  }
  /** The list's frame shown by the page: not transparent, laid out. */
  const watchShown = (selector: string, resolve: (at: number) => void) =>
    onEachFrame(() => {
      const frame = document.querySelector(selector)
      if (!frame || frame.getClientRects().length === 0) return false
      if (Number(getComputedStyle(frame).opacity) === 0) return false
      resolve(clock())
      return true
    })
  let rendered: number | undefined
  const usableButton = () => {
    const button = document.querySelector<HTMLButtonElement>(options.button)
    if (!button || button.disabled || button.getClientRects().length === 0) return undefined
    rendered ??= performance.now()
    if (options.needsWallet && !(window as unknown as { Wallet?: unknown }).Wallet) return undefined
    return button
  }
  const clicked = new Promise<Marks>((resolve) => {
    if (!isTop) return
    const click = (usable: number) => {
      const button = usableButton()
      if (!button) return false
      const clickedAt = clock()
      button.click()
      resolve({
        rendered: rendered ?? usable,
        usable,
        clickedAt,
        navigationStart: performance.timeOrigin,
      })
      return true
    }
    onEachFrame(() => {
      if (!usableButton()) return false
      const usable = performance.now()
      if (options.clickAfterLoad === null) return click(usable)
      const later = () =>
        setTimeout(() => onEachFrame(() => click(usable)), options.clickAfterLoad ?? 0)
      if (document.readyState === 'complete') later()
      else addEventListener('load', later, { once: true })
      return true
    })
  })
  // The harness's binding, installed in every frame before this script runs.
  const report = (kind: 'clicked' | 'shown' | 'listed' | 'interactive', value: unknown) =>
    (window as unknown as Record<string, (kind: string, value: unknown) => void>)[
      options.binding
    ]?.(kind, value)
  const listed = (at: number) => report('listed', at)
  const interactive = (at: number) => report('interactive', at)
  const inListFrame = options.frameOrigin ? location.href.startsWith(options.frameOrigin) : isTop
  // In the page, from the click on; in a frame of its own, from its start.
  if (inListFrame && !isTop) watchList(listed, interactive)
  if (inListFrame && isTop) void clicked.then(() => watchList(listed, interactive))
  const shownFrame = options.shownFrame
  if (isTop && shownFrame !== null)
    void clicked.then(() => watchShown(shownFrame, (at) => report('shown', at)))
  void clicked.then((marks) => report('clicked', marks))
}

/** Any URL but loopback's and `*.localhost`'s (data: and blob: URLs are never routed). */
const remote = /^(?!(https?|wss?):\/\/(127\.0\.0\.1|localhost|[^/?#]*\.localhost)(:\d+)?([/?#]|$))/

/** Aborts every request that would leave this machine. */
export async function blockRemote(context: BrowserContext) {
  await context.route(remote, (route) => route.abort())
}

/** `promise`, or a rejection with `message` after 30 s. */
function within<T>(promise: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), 30_000)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** The JS heap used, after a garbage collection, in the page's renderer and each cross-site frame's. */
async function heaps(page: Page): Promise<NonNullable<Visit['heap']>> {
  const used = async (session: CDPSession) => {
    await session.send('HeapProfiler.collectGarbage')
    const { usedSize } = await session.send('Runtime.getHeapUsage')
    await session.detach()
    return usedSize
  }
  const pageHeap = await used(await page.context().newCDPSession(page))
  const frames: Record<string, number> = {}
  for (const frame of page.frames()) {
    // A frame with no document yet (its URL still empty) has nothing of its own to weigh.
    if (!URL.canParse(frame.url())) continue
    const session = await frameSession(frame)
    if (!session) continue
    // One renderer per site: frames of one origin share one heap.
    const origin = new URL(frame.url()).origin
    if (origin in frames) await session.detach()
    else frames[origin] = await used(session)
  }
  return { page: pageHeap, frames }
}

/** A CDP session of a cross-site frame (a renderer of its own); undefined for a frame in its parent's. */
async function frameSession(frame: Frame): Promise<CDPSession | undefined> {
  if (frame === frame.page().mainFrame()) return undefined
  try {
    return await frame.page().context().newCDPSession(frame)
  } catch {
    return undefined
  }
}

/**
 * Slows the CPU of the page's renderer, and of each cross-site frame's as
 * soon as Playwright reports the frame in it (an OOPIF has a CDP session, and
 * a throttle, of its own); a frame that moves to another site is throttled
 * again in its new renderer.
 */
async function throttleEveryRenderer(page: Page, rate: number) {
  const session = await page.context().newCDPSession(page)
  await session.send('Emulation.setCPUThrottlingRate', { rate })
  const throttled = new WeakMap<Frame, string>()
  page.on('framenavigated', async (frame) => {
    const origin = new URL(frame.url()).origin
    if (throttled.get(frame) === origin) return
    const frameSlow = await frameSession(frame)
    if (!frameSlow) return
    throttled.set(frame, origin)
    await frameSlow.send('Emulation.setCPUThrottlingRate', { rate }).catch(() => {})
  })
}
