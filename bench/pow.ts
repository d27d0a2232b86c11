/**
 * The proof of work's cost on a mid-range phone (SECURITY.md 22, issue 11 §4):
 * the secure frame's own solver (apps/secure-frame/src/lib/proofOfWork.ts) in
 * Debian's Chromium with the CPU slowed 4× (CDP
 * `Emulation.setCPUThrottlingRate`), solving fresh random challenges. Prints
 * the median solve time per difficulty the API asks for: measured at the
 * lower difficulties, and from the measured hash rate (median of a geometric
 * search: ln 2 · 2^bits hashes) at the higher ones, which take too long to
 * repeat here.
 *
 * Runs in `npm run bench` (bench/run.ts), or alone: `npx tsx bench/pow.ts`.
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Browser, chromium } from '@playwright/test'
import { buildSync } from 'esbuild'
import {
  powBaseDifficultyBits,
  powMaxDifficultyBits,
} from '../apps/api/src/auth/email/proofOfWork.ts'
import { chromiumArgs } from '../playwright.config.ts'
import { median } from './stats.ts'

const root = join(import.meta.dirname, '..')
/** CPU slowdown standing in for a mid-range phone. */
export const phoneCpuSlowdown = 4
/** The starting difficulty must be solved within this at the slowdown (median). */
export const baseSolveBudgetMs = 1000
/** The highest difficulty, at most this (median): a visitor still gets in. */
export const maxSolveBudgetMs = 30_000
/** Difficulties solved for real here, and how many challenges each. */
const measured = [
  { bits: powBaseDifficultyBits, runs: 15 },
  { bits: powBaseDifficultyBits + 1, runs: 9 },
  { bits: powBaseDifficultyBits + 2, runs: 5 },
] as const

type Record = (name: string, value: number, unit: string, budget?: number) => void

const origin = 'http://pow.bench'

/**
 * The solver as the frame ships it: its source bundled with what it imports
 * (@noble/hashes, @porthole/protocol), so the bench follows its imports.
 */
function solverModule(): string {
  const [bundle] = buildSync({
    entryPoints: [join(root, 'apps/secure-frame/src/lib/proofOfWork.ts')],
    absWorkingDir: join(root, 'apps/secure-frame'),
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
  }).outputFiles
  if (!bundle) throw new Error('esbuild wrote no solver bundle')
  return bundle.text
}

const page = `<!doctype html>
<script type="module">
import { solveProofOfWork } from '${origin}/proofOfWork.js'
window.solve = async (challenge, bits) => {
  const started = performance.now()
  const nonce = await solveProofOfWork(challenge, bits)
  return { ms: performance.now() - started, hashes: Number(nonce) + 1 }
}
window.ready = true
</script>`

/** Solves challenges at each difficulty in Chromium at 4× slowdown; records the medians. */
export async function measureProofOfWork(browser: Browser, record: Record): Promise<void> {
  console.log(`\nProof of work (the secure frame's solver, CPU ${phoneCpuSlowdown}× slower)`)
  const context = await browser.newContext()
  try {
    const tab = await context.newPage()
    const solver = solverModule()
    await tab.route(`${origin}/**`, (route) => {
      const path = new URL(route.request().url()).pathname
      if (path === '/') return route.fulfill({ contentType: 'text/html', body: page })
      if (path === '/proofOfWork.js')
        return route.fulfill({ contentType: 'text/javascript', body: solver })
      return route.fulfill({ status: 404 })
    })
    await tab.goto(`${origin}/`)
    await tab.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true)
    const cdp = await context.newCDPSession(tab)
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: phoneCpuSlowdown })

    let hashes = 0
    let elapsedMs = 0
    for (const { bits, runs } of measured) {
      const times: number[] = []
      for (let run = 0; run < runs; run++) {
        const challenge = randomBytes(18).toString('base64url')
        const solved = await tab.evaluate(
          ([challenge, bits]) =>
            (
              window as unknown as {
                solve(c: string, b: number): Promise<{ ms: number; hashes: number }>
              }
            ).solve(challenge, bits),
          [challenge, bits] as const,
        )
        times.push(solved.ms)
        hashes += solved.hashes
        elapsedMs += solved.ms
      }
      record(
        `PoW ${bits} bits: median solve (${runs} challenges)`,
        median(times),
        'ms',
        bits === powBaseDifficultyBits ? baseSolveBudgetMs : undefined,
      )
    }
    const rate = hashes / (elapsedMs / 1000)
    record('PoW hash rate', rate / 1000, 'kH/s')
    const last = measured.at(-1)?.bits ?? powBaseDifficultyBits
    for (let bits = last + 1; bits <= powMaxDifficultyBits; bits++)
      record(
        `PoW ${bits} bits: median solve (from the hash rate)`,
        ((Math.LN2 * 2 ** bits) / rate) * 1000,
        'ms',
        bits === powMaxDifficultyBits ? maxSolveBudgetMs : undefined,
      )
  } finally {
    await context.close()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs })
  let over = 0
  try {
    await measureProofOfWork(browser, (name, value, unit, budget) => {
      const verdict =
        budget === undefined ? '' : value <= budget ? `  ok (budget ${budget})` : '  OVER BUDGET'
      if (budget !== undefined && value > budget) over += 1
      console.log(`${name.padEnd(52)} ${value.toFixed(1).padStart(10)} ${unit}${verdict}`)
    })
  } finally {
    await browser.close()
  }
  process.exitCode = over > 0 ? 1 : 0
}
