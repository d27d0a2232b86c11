/**
 * Test helpers that run the real thing in child processes: the API server
 * (`src/server.ts` through tsx) and, when its binaries are installed, a
 * throwaway PostgreSQL server, so tests can run two API replicas on one
 * database and kill one with SIGKILL. Tests only.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true

const apiDir = fileURLToPath(new URL('../', import.meta.url))

/** The dev outbox's token in these processes (a test value; random at each start otherwise). */
export const outboxToken = 'c2VydmVyLXRlc3Qtb3V0Ym94LXRva2Vu'

/** A development API process in these tests: the dev project seeded, codes in the dev outbox. */
export const baseEnv = {
  DEV_OUTBOX: 'true',
  DEV_OUTBOX_TOKEN: outboxToken,
  SMTP_URL: '',
  SEED_DEV_PROJECT: 'true',
}

/** The status of `GET <url>` sent with `Host: host` (fetch cannot set Host), as a rebinding browser would. */
export function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { headers: { host } }, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    sent.once('error', reject)
    sent.end()
  })
}

export type ApiProcess = {
  readonly url: string
  readonly pid: number
  /** Everything the process printed so far. */
  output(): string
  /** SIGKILL: no shutdown, no cleanup, as a crash or an OOM kill. Resolves once it is gone. */
  kill(): Promise<void>
  /** SIGTERM, the clean shutdown. Resolves once it has exited. */
  stop(): Promise<void>
}

/** How the API runs: its source through tsx, or (`built`) `node dist/server.js` as in production. */
const serverArgs = (built: boolean) =>
  built ? ['dist/server.js'] : ['--import', 'tsx', 'src/server.ts']

/**
 * Starts `src/server.ts` (or, `built`, `dist/server.js`) on a free port with
 * `env` (PGLITE_DIR or DATABASE_URL, …); resolves once it listens.
 */
export async function startApiProcess(
  env: Record<string, string>,
  { timeoutMs = 60_000, built = false } = {},
): Promise<ApiProcess> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env }
  if (env.DATABASE_URL === undefined) delete childEnv.DATABASE_URL
  const child = spawn(process.execPath, serverArgs(built), {
    cwd: apiDir,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the API did not start within ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const listening = /API listening on (http:\/\/\S+)/.exec(output)
      if (listening?.[1]) {
        clearTimeout(timer)
        resolve(listening[1])
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the API exited (${code}) before listening:\n${output}`))
    })
  })
  return {
    url,
    pid: child.pid ?? 0,
    output: () => output,
    kill: () => end(child, 'SIGKILL'),
    stop: () => end(child, 'SIGTERM'),
  }
}

/**
 * Runs `src/server.ts` with `env` (as `startApiProcess`) when it is expected
 * to refuse to start: resolves to its exit code and what it wrote to stdout
 * and stderr. Rejects (and kills it) if it starts listening instead.
 */
export async function runRefusedApiProcess(
  env: Record<string, string>,
  { timeoutMs = 60_000, built = false } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env }
  if (env.DATABASE_URL === undefined) delete childEnv.DATABASE_URL
  const child = spawn(process.execPath, serverArgs(built), {
    cwd: apiDir,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the API neither started nor exited within ${timeoutMs} ms:\n${stderr}`))
    }, timeoutMs)
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      if (/API listening on/.test(stdout)) {
        clearTimeout(timer)
        child.kill('SIGKILL')
        reject(new Error(`the API started:\n${stdout}`))
      }
    })
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** Resolves once `child` has exited, after sending it `signal` (unless `send` is false). */
function end(child: ChildProcess, signal: NodeJS.Signals, { send = true } = {}): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    if (send) child.kill(signal)
  })
}

/** A free TCP port on 127.0.0.1 (free when asked; good enough for a test). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

export type LocalPostgres = {
  /** `postgres://…@127.0.0.1:<port>/postgres` */
  readonly url: string
  stop(): Promise<void>
}

/**
 * A throwaway PostgreSQL server (initdb in a temporary directory, trust
 * authentication, 127.0.0.1 on a free port), or undefined when the binaries
 * are not installed. As root, PostgreSQL runs as the `postgres` user.
 */
export async function startLocalPostgres(): Promise<LocalPostgres | undefined> {
  const bin = await findPostgresBin()
  if (bin === undefined) return undefined
  const dir = await mkdtemp(join(tmpdir(), 'porthole-pg-'))
  await chmod(dir, 0o777)
  const data = join(dir, 'data')
  const asRoot = process.getuid?.() === 0
  const run = (command: string, args: string[]) =>
    asRoot
      ? { file: 'runuser', args: ['-u', 'postgres', '--', join(bin, command), ...args] }
      : { file: join(bin, command), args }
  const initdb = run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'])
  execFileSync(initdb.file, initdb.args, { stdio: 'ignore' })
  const port = await freePort()
  const server = run('postgres', [
    '-D',
    data,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${dir}`,
    '-c',
    'fsync=off',
  ])
  const child = spawn(server.file, server.args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`PostgreSQL did not start:\n${output}`)),
      30_000,
    )
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('ready to accept connections')) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`PostgreSQL exited (${code}):\n${output}`))
    })
  })
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      // pg_ctl signals the postmaster itself (runuser would not pass a signal on).
      const stop = run('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w'])
      const exited = end(child, 'SIGTERM', { send: false })
      execFileSync(stop.file, stop.args, { stdio: 'ignore' })
      await exited
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/**
 * The directory of `initdb` and `postgres`: `pg_config --bindir`, else the
 * newest `/usr/lib/postgresql/<version>/bin` (Debian, Ubuntu); undefined when
 * PostgreSQL is not installed.
 */
async function findPostgresBin(): Promise<string | undefined> {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim()
    if (existsSync(join(dir, 'initdb'))) return dir
  } catch {
    // No pg_config on the PATH: look where Debian and Ubuntu install the server.
  }
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = (await readdir(root)).sort((a, b) => Number(b) - Number(a))
  return versions
    .map((version) => join(root, version, 'bin'))
    .find((bin) => existsSync(join(bin, 'initdb')))
}
