/**
 * The API under load (issue 14): the three answers every widget load reads,
 * the project's origins, its config and the first wallets page, each hit by
 * autocannon (50 connections) against an API child process of its own
 * (`apps/api/src/server.ts`, the dev project seeded; PGlite in a temporary
 * directory, then a throwaway PostgreSQL when it is installed), and against a bare Hono handler answering the same JSON in a
 * child process of its own (`bench/bareApi.ts`), endpoint by endpoint in the
 * same run. `BENCH_API_SECONDS` sets each run's length (10 s by default).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { origins } from '@porthole/dev-stack/stack'
import autocannon from 'autocannon'
import { baseEnv, startApiProcess, startLocalPostgres } from '../apps/api/test/process.ts'
import type { Record } from './rpc.ts'

const connections = 50
const seconds = Number(process.env.BENCH_API_SECONDS ?? 10)
/** Each answer's least share of the bare handler's rate, its p99 at most, in the same run. */
const ratioBudget = 0.15
const p99BudgetMs = 20

const endpoints = [
  { name: 'origins', path: '/projects/v1/origins?projectId=porthole-dev' },
  { name: 'config', path: '/appkit/v1/config?projectId=porthole-dev' },
  { name: 'getWallets', path: '/getWallets?projectId=porthole-dev&page=1&entries=40' },
]

type Load = { rate: number; p99: number; errors: number }

/** A second of load first, not counted: the JIT and the caches warm up. */
const warmUpSeconds = 1

/** autocannon against `url` for `duration` s, the widget's Origin on every request. */
async function load(url: string, duration = seconds): Promise<Load> {
  const result = await autocannon({
    url,
    connections,
    duration,
    headers: { origin: origins.widget },
  })
  return {
    rate: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  }
}

/** Starts `bench/bareApi.ts` serving `bodies` (path → JSON); resolves to its URL. */
async function startBare(file: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'bareApi.ts'), file],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  const url = await new Promise<string>((resolve, reject) => {
    let output = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const listening = /listening on (\S+)/.exec(output)
      if (listening?.[1]) resolve(listening[1])
    })
    child.once('exit', (code) => reject(new Error(`bench/bareApi.ts exited (${code})`)))
  })
  return { url, child }
}

/** Runs the load test on PGlite, then on PostgreSQL when it is installed, and records each answer's figures. */
export async function measureApi(record: Record) {
  console.log(
    `\nThe API under load (autocannon, ${connections} connections, ${seconds} s per run; an API child process against a bare Hono handler)`,
  )
  const dir = await mkdtemp(join(tmpdir(), 'porthole-bench-api-'))
  try {
    await measureOn('PGlite', { PGLITE_DIR: join(dir, 'data') }, dir, record)
    const pg = await startLocalPostgres()
    if (pg === undefined) {
      console.log('  PostgreSQL: not installed (initdb, postgres), not measured')
      return
    }
    try {
      await measureOn('PostgreSQL', { DATABASE_URL: pg.url }, dir, record)
    } finally {
      await pg.stop()
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

async function measureOn(
  database: string,
  env: { [name: string]: string },
  dir: string,
  record: Record,
) {
  const api = await startApiProcess({ ...baseEnv, ...env })
  let bare: ChildProcess | undefined
  try {
    const bodies: { [path: string]: unknown } = {}
    for (const { path } of endpoints) {
      const response = await fetch(`${api.url}${path}`)
      if (!response.ok) throw new Error(`GET ${path}: ${response.status}`)
      bodies[path.split('?')[0] as string] = await response.json()
    }
    const file = join(dir, 'bodies.json')
    await writeFile(file, JSON.stringify(bodies))
    const started = await startBare(file)
    bare = started.child
    const rows: { name: string; api: Load; bare: Load }[] = []
    for (const { name, path } of endpoints) {
      await load(`${started.url}${path}`, warmUpSeconds)
      const floor = await load(`${started.url}${path}`)
      await load(`${api.url}${path}`, warmUpSeconds)
      const measured = await load(`${api.url}${path}`)
      rows.push({ name, api: measured, bare: floor })
    }
    console.log(
      `  ${database.padEnd(12)} ${'API req/s'.padStart(10)} ${'bare req/s'.padStart(11)} ${'ratio'.padStart(6)} ${'API p99'.padStart(8)} ${'bare p99'.padStart(9)} ${'errors'.padStart(7)}`,
    )
    for (const row of rows) {
      console.log(
        `  ${row.name.padEnd(12)} ${row.api.rate.toFixed(0).padStart(10)} ${row.bare.rate.toFixed(0).padStart(11)} ${(row.api.rate / row.bare.rate).toFixed(2).padStart(6)} ${`${row.api.p99} ms`.padStart(8)} ${`${row.bare.p99} ms`.padStart(9)} ${String(row.api.errors).padStart(7)}`,
      )
    }
    for (const row of rows) {
      const name = `${row.name} on ${database}`
      record(`API ${name} (bare Hono ${row.bare.rate.toFixed(0)} req/s)`, row.api.rate, 'req/s')
      record(`  ${name} / bare Hono`, row.api.rate / row.bare.rate, '×', ratioBudget, {
        atLeast: true,
      })
      record(`  ${name} p99`, row.api.p99, 'ms', p99BudgetMs)
      record(`  ${name} errors`, row.api.errors, 'count', 0)
    }
  } finally {
    bare?.kill('SIGTERM')
    await api.stop()
  }
}
