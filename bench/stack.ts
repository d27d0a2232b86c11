/**
 * The built browser parts and the local stack, for `npm run bench` and
 * `npm run bench:peers`: built when missing (or with `--build`), started
 * unless one already runs.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ports } from '@porthole/dev-stack/stack'

export const root = join(import.meta.dirname, '..')

/** The newest modification time of the files under `dirs` (0 when none). */
function newest(dirs: readonly string[]): number {
  let latest = 0
  for (const dir of dirs) {
    const path = join(root, dir)
    if (!existsSync(path)) continue
    for (const entry of readdirSync(path, { recursive: true, withFileTypes: true }))
      if (entry.isFile())
        latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs)
  }
  return latest
}

/**
 * Builds the browser parts when a build is missing or older than their
 * sources (a stale widget measures old code, or fails against a newer API),
 * or when `--build` asks.
 */
export function ensureBuilt() {
  const outputs = [
    'packages/loader/dist/loader.js',
    'packages/loader/dist/loader-solana.js',
    'apps/widget/dist/.vite/manifest.json',
    'apps/secure-frame/dist/index.html',
  ].map((path) => join(root, path))
  const built = outputs.every((path) => existsSync(path))
  const sources = newest([
    'apps/widget/src',
    'apps/secure-frame/src',
    'packages/loader/src',
    'packages/protocol/src',
    'packages/chains/src',
  ])
  const fresh = built && outputs.every((path) => statSync(path).mtimeMs >= sources)
  if (fresh && !process.argv.includes('--build')) return
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' })
  if (build.status !== 0) throw new Error('The build failed.')
}

async function isUp(url: string) {
  try {
    return (await fetch(url)).ok
  } catch {
    return false
  }
}

/** Starts the stack (e2e settings) unless it runs; `stop` ends only one started here. */
export async function startStack(): Promise<{ stop(): void }> {
  if (await isUp(`http://127.0.0.1:${ports.demo}/health`)) {
    console.log('(using the stack that is already running)')
    return { stop() {} }
  }
  const child: ChildProcess = spawn(
    join(root, 'node_modules/.bin/tsx'),
    ['scripts/start.ts', '--no-build'],
    {
      cwd: root,
      env: { ...process.env, PORTHOLE_E2E: '1' },
      stdio: 'ignore',
      detached: true,
    },
  )
  const deadline = Date.now() + 120_000
  while (!(await isUp(`http://127.0.0.1:${ports.demo}/health`))) {
    if (Date.now() > deadline) throw new Error('The stack did not start.')
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return {
    stop() {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGTERM')
      } catch {
        child.kill('SIGTERM')
      }
    },
  }
}
