/**
 * The RPC proxy under the amplification attack of issue 11 §2 (SECURITY.md
 * 24), and its throughput for allowed reads. Loopback only, bounded in count
 * and time; never part of the test suite (on an unbounded proxy the attack
 * takes gigabytes).
 *
 * The API runs as a child process (`apps/api/src/server.ts`, PGlite in a
 * temporary directory) with a private anvil as the upstream of eip155:31337,
 * so its resident memory is measured alone: sampled from /proc every 10 ms.
 * The attacked project has heavy RPC calls turned on (the worst case: state
 * overrides reach the node); a project without them is refused before any
 * upstream call.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type LocalAnvil, startAnvil } from '@porthole/dev-stack/anvil'
import { createDb } from '../apps/api/src/db/db.ts'
import { migrate } from '../apps/api/src/db/migrations.ts'
import { configFromEnv } from '../apps/api/src/http/config.ts'
import { createProject, setProjectHeavyRpc } from '../apps/api/src/projects/projects.ts'
import { type ApiProcess, startApiProcess } from '../apps/api/test/process.ts'

/** Requests in flight at once in the attack, as in the issue. */
const attackConcurrency = 250
/** Rounds of `attackConcurrency` requests: 1,000 requests in all. */
const attackRounds = 4
/** Bytes the overriding contract returns: 8 MiB, a 16 MiB answer in hex. */
const attackAnswerBytes = 8 * 1024 * 1024
/** Clients reading `eth_blockNumber` back to back, and for how long. */
const readClients = 16
const readSeconds = 4
/**
 * The least allowed-read throughput of one API process on PGlite (each call:
 * the project, one statement of per-IP/prefix limits, one of the project
 * budget, the upstream). Measured on a busy 2-core machine: about 130 with
 * the limits, about 100 without (noise dominates there).
 */
const readBudgetPerSecond = 100

export type Record = (
  name: string,
  value: number,
  unit: string,
  budget?: number,
  options?: { atLeast?: boolean },
) => void

const contract = '0x00000000000000000000000000000000000000aa'
/** `PUSH4 size PUSH1 0 RETURN`: code that returns `size` zero bytes. */
const returnsBytes = (size: number) => `0x63${size.toString(16).padStart(8, '0')}6000f3`
/** The attack's request: about 300 bytes. */
const attackBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'eth_call',
  params: [
    { to: contract, gas: '0xffffffff' },
    'latest',
    { [contract]: { code: returnsBytes(attackAnswerBytes) } },
  ],
})

/** The resident set of a process, in bytes (Linux). */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]
  if (kib === undefined) throw new Error(`No VmRSS for process ${pid}`)
  return Number(kib) * 1024
}

/** Samples `pid`'s RSS every 10 ms until `stop` is called; resolves to the peak. */
function samplePeak(pid: number) {
  let peak = 0
  let running = true
  const done = (async () => {
    while (running) {
      peak = Math.max(peak, await rssOf(pid).catch(() => 0))
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    return peak
  })()
  return {
    stop: async () => {
      running = false
      return done
    },
  }
}

const mib = (bytes: number) => bytes / (1024 * 1024)

async function prepareDatabase(dir: string) {
  const db = await createDb(configFromEnv({ PGLITE_DIR: dir }))
  try {
    await migrate(db)
    await createProject(db, { id: 'bench-heavy', name: 'Heavy', networks: ['eip155:31337'] })
    await setProjectHeavyRpc(db, 'bench-heavy', true)
    await createProject(db, { id: 'bench', name: 'Default', networks: ['eip155:31337'] })
  } finally {
    await db.close()
  }
}

function post(api: ApiProcess, projectId: string, body: string) {
  return fetch(`${api.url}/v1/?chainId=eip155:31337&projectId=${projectId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  })
}

/** Status counts, e.g. `200×16 429×234`. */
function tally(statuses: number[]): string {
  const counts = new Map<number, number>()
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1)
  return [...counts]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ')
}

async function attack(api: ApiProcess, record: Record) {
  const read = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' })
  for (let i = 0; i < 20; i++) await (await post(api, 'bench-heavy', read)).text()
  await new Promise((resolve) => setTimeout(resolve, 500))
  const idle = await rssOf(api.pid)
  const sampler = samplePeak(api.pid)
  const statuses: number[] = []
  const started = performance.now()
  for (let round = 0; round < attackRounds; round++) {
    const answers = await Promise.all(
      Array.from({ length: attackConcurrency }, async () => {
        const response = await post(api, 'bench-heavy', attackBody)
        await response.arrayBuffer()
        return response.status
      }),
    )
    statuses.push(...answers)
  }
  const seconds = (performance.now() - started) / 1000
  const peak = await sampler.stop()
  // A project without heavy calls: each request refused before the upstream.
  const refused = await post(api, 'bench', attackBody)
  console.log(
    `  ${attackRounds} × ${attackConcurrency} concurrent eth_call with a state override returning ${mib(attackAnswerBytes)} MiB (${attackBody.length}-byte requests), ${seconds.toFixed(1)} s: ${tally(statuses)}; without heavy calls: ${refused.status}`,
  )
  record('API idle RSS', mib(idle), 'MiB')
  record('API peak RSS under the amplification attack', mib(peak), 'MiB')
  record('  peak over idle', mib(peak - idle), 'MiB', 150)
}

async function throughput(api: ApiProcess, record: Record) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' })
  const statuses: number[] = []
  const deadline = performance.now() + readSeconds * 1000
  await Promise.all(
    Array.from({ length: readClients }, async () => {
      while (performance.now() < deadline) {
        const response = await post(api, 'bench', body)
        await response.arrayBuffer()
        statuses.push(response.status)
      }
    }),
  )
  const ok = statuses.filter((status) => status === 200).length
  console.log(`  ${readClients} clients for ${readSeconds} s: ${tally(statuses)}`)
  record(
    `eth_blockNumber through the proxy (${readClients} clients)`,
    ok / readSeconds,
    'req/s',
    readBudgetPerSecond,
    { atLeast: true },
  )
}

/** Runs both measures against a fresh API process and anvil, then stops them. */
export async function measureRpcProxy(record: Record) {
  console.log('\nRPC proxy (API child process, PGlite, a private anvil upstream)')
  const dir = await mkdtemp(join(tmpdir(), 'porthole-bench-rpc-'))
  let anvil: LocalAnvil | undefined
  let api: ApiProcess | undefined
  try {
    await prepareDatabase(join(dir, 'data'))
    anvil = await startAnvil()
    api = await startApiProcess({
      PGLITE_DIR: join(dir, 'data'),
      RPC_UPSTREAMS: JSON.stringify({ 'eip155:31337': anvil.url }),
      // Every bench request comes from 127.0.0.1, as in the e2e stack.
      IP_LIMIT_SCALE: '1000',
      SMTP_URL: '',
    })
    await attack(api, record)
    await throughput(api, record)
  } finally {
    await api?.stop()
    await anvil?.stop()
    await rm(dir, { recursive: true, force: true })
  }
}
