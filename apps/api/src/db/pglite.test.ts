import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { DatabaseLockedError } from '../http/errors.js'
import type { Db } from './db.js'
import { createPgliteDb } from './pglite.js'

const apiDir = fileURLToPath(new URL('../../', import.meta.url))

let dir: string
beforeAll(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'porthole-pglite-')), 'data')
})
afterAll(async () => {
  if (dir) await rm(join(dir, '..'), { recursive: true, force: true })
})

/** Runs `npm run project` (src/cli.ts) on the PGlite directory; resolves to its exit code and output. */
function cli(...argv: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, PGLITE_DIR: dir }
  delete env.DATABASE_URL
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...argv], {
    cwd: apiDir,
    env,
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, output }))
  })
}

describe('createPgliteDb on a directory', () => {
  test('one process at a time: a second opener gets a clear error, also from the CLI', async () => {
    const db: Db = await createPgliteDb(dir)
    try {
      expect(await readFile(`${dir}.lock`, 'utf8')).toBe(String(process.pid))
      await expect(createPgliteDb(dir)).rejects.toThrow(DatabaseLockedError)
      await expect(createPgliteDb(dir)).rejects.toThrow(/in use by process \d+/)
      const result = await cli('list')
      expect(result.code).toBe(1)
      expect(result.output).toMatch(/in use by process \d+ \(is the API server running\?\)/)
    } finally {
      await db.close()
    }
    await expect(readFile(`${dir}.lock`)).rejects.toThrow(/ENOENT/)
    // Spawns the CLI through tsx: slow on a loaded machine.
  }, 120_000)

  test('a lock left by a dead process is taken over; the CLI then works', async () => {
    await writeFile(`${dir}.lock`, '999999999')
    const created = await cli(
      'create',
      '--id',
      'from-cli',
      '--name',
      'From CLI',
      '--origin',
      'https://a.example',
    )
    expect(created.output).toContain("Created project 'from-cli'")
    expect(created.code).toBe(0)
    const listed = await cli('list')
    expect(listed.code).toBe(0)
    expect(listed.output).toContain('from-cli  From CLI')
  }, 120_000)
})
