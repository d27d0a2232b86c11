/**
 * PORTHOLE_ENV=production at start-up, in real API processes run as in
 * production: the built JavaScript (`node dist/server.js`, no tsx; built here
 * by scripts/build-servers.ts). Each development setting refused with one
 * line, a good configuration started.
 * Its own file so Vitest runs it beside the crash and replica tests of
 * `server.test.ts`, not after them.
 */

import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildServer } from '../../../scripts/build-servers.ts'
import {
  baseEnv,
  freePort,
  outboxToken,
  runRefusedApiProcess,
  startApiProcess,
  statusWithHost,
} from '../test/process.js'

describe('PORTHOLE_ENV=production refuses development settings at start-up, one line each', () => {
  const key = Buffer.alloc(32, 7).toString('base64')
  /**
   * A production start that works: a real key, no outbox, the dev project not
   * seeded, and every public URL and upstream set, in https.
   */
  const production = {
    PORTHOLE_ENV: 'production',
    SHARE_ENCRYPTION_KEY: key,
    PGLITE_DIR: 'memory://',
    DEV_OUTBOX: '',
    SMTP_URL: '',
    SEED_DEV_PROJECT: '',
    PUBLIC_API_URL: 'https://api.porthole.example',
    WIDGET_ORIGIN: 'https://widget.porthole.example',
    SECURE_FRAME_ORIGIN: 'https://secure.porthole.example',
    CORS_ORIGINS: 'https://widget.porthole.example,https://secure.porthole.example',
    RPC_UPSTREAMS: '{"eip155:1":"https://rpc.porthole.example"}',
    MAIL_FROM: 'Porthole <login@porthole.example>',
  }
  const https =
    'must be https (plain http only on a loopback name such as 127.0.0.1 or *.localhost)'
  /** A production API answers only its own names (SECURITY.md 25): 127.0.0.1 on a port chosen ahead, listed. */
  /** Each good start in a data directory of its own (production refuses memory://). */
  const startProduction = async (env: Record<string, string>) => {
    const port = await freePort()
    return startApiProcess(
      {
        ...production,
        PGLITE_DIR: join(dir, '..', `good-${port}`),
        ...env,
        PORT: String(port),
        API_HOSTS: `127.0.0.1:${port}`,
      },
      { built: true },
    )
  }
  let dir: string
  beforeAll(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'porthole-production-')), 'data')
    await buildServer('api')
  }, 60_000)
  afterAll(async () => {
    if (dir) await rm(join(dir, '..'), { recursive: true, force: true })
  })

  // Every refusal's line is checked in-process (http/config.test.ts, productionRefusals);
  // here, three kinds prove the built server's exit path: a setting left unset, a
  // plain-http URL, a database that would not survive a restart.
  test.each([
    [
      { SHARE_ENCRYPTION_KEY: '' },
      'PORTHOLE_ENV=production: SHARE_ENCRYPTION_KEY must be set (the public development key is refused)',
    ],
    [
      { PUBLIC_API_URL: 'http://api.porthole.example' },
      `PORTHOLE_ENV=production: PUBLIC_API_URL ${https}`,
    ],
    [
      { PGLITE_DIR: 'memory://' },
      'PORTHOLE_ENV=production: PGLITE_DIR must not be memory:// (every wallet, share and session would go at the next restart)',
    ],
  ])(
    '%j: exits 1 with the one line, before opening the database',
    async (env, line) => {
      // A data directory the refused start must not even create.
      const untouched = `${dir}-never`
      const { code, stdout, stderr } = await runRefusedApiProcess(
        { ...production, PGLITE_DIR: untouched, ...env },
        { built: true },
      )
      expect(code).toBe(1)
      expect(stderr).toBe(`${line}\n`)
      expect(stdout).toBe('')
      await expect(stat(untouched)).rejects.toThrow(/ENOENT/)
    },
    60_000,
  )

  test('refuses a project with email login while SMTP_URL is unset; starts once it is set', async () => {
    // A development start seeds the dev project, which has email login.
    const dev = await startApiProcess({ ...baseEnv, PGLITE_DIR: dir })
    await dev.stop()

    const refused = await runRefusedApiProcess({ ...production, PGLITE_DIR: dir }, { built: true })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toBe(
      "PORTHOLE_ENV=production: SMTP_URL must be set (email login is on for project 'porthole-dev')\n",
    )

    const api = await startProduction({ PGLITE_DIR: dir, SMTP_URL: 'smtp://127.0.0.1:2525' })
    try {
      expect(api.output()).toContain('Environment: production (PORTHOLE_ENV)')
      expect(api.output()).toContain('dev project: not seeded')
      expect(api.output()).not.toContain('SHARE_ENCRYPTION_KEY is unset')
      expect((await fetch(`${api.url}/health`)).status).toBe(200)
      // No dev outbox in production.
      expect((await fetch(`${api.url}/dev/outbox/${outboxToken}`)).status).toBe(404)
    } finally {
      await api.stop()
    }
  }, 120_000)

  test('a good production configuration starts; inv-25 it answers only its own names', async () => {
    const api = await startProduction({})
    try {
      expect(api.output()).toContain('Environment: production (PORTHOLE_ENV)')
      expect((await fetch(`${api.url}/health`)).status).toBe(200)
      const { port } = new URL(api.url)
      expect(api.output()).toContain(
        `Host names: api.porthole.example:443, 127.0.0.1:${port}; any other Host gets 421`,
      )
      // No loopback name but the one listed; no foreign name.
      expect(await statusWithHost(`${api.url}/health`, `localhost:${port}`)).toBe(421)
      expect(await statusWithHost(`${api.url}/health`, `attacker.example:${port}`)).toBe(421)
    } finally {
      await api.stop()
    }
  }, 60_000)

  test('the built CLI runs under node alone too', () => {
    const out = execFileSync(process.execPath, ['dist/cli.js', 'list'], {
      cwd: join(import.meta.dirname, '..'),
      env: { ...process.env, PGLITE_DIR: 'memory://', DATABASE_URL: '' },
      encoding: 'utf8',
    })
    expect(out).toBe('No projects.\n')
  }, 60_000)

  test('development allows all of it, with the warning about the key', async () => {
    const api = await startApiProcess({
      ...baseEnv,
      PGLITE_DIR: 'memory://',
      SEED_DEV_PROJECT: 'false',
    })
    try {
      expect(api.output()).toContain('Environment: development (PORTHOLE_ENV)')
      // On stderr, which may come after the line on stdout.
      await expect.poll(() => api.output()).toContain('SHARE_ENCRYPTION_KEY is unset')
      // inv-25: the loopback names on its own port (PORT=0 here), the outbox under its token.
      const { port } = new URL(api.url)
      expect(api.output()).toContain(
        `dev outbox at http://api.localhost:5173/dev/outbox/${outboxToken}`,
      )
      expect(await statusWithHost(`${api.url}/health`, `localhost:${port}`)).toBe(200)
      expect(await statusWithHost(`${api.url}/health`, `localhost:${Number(port) + 1}`)).toBe(421)
      const outbox = `${api.url}/dev/outbox/${outboxToken}`
      expect(await statusWithHost(outbox, `127.0.0.1:${port}`)).toBe(200)
      expect(await statusWithHost(outbox, `attacker.example:${port}`)).toBe(421)
      expect((await fetch(`${api.url}/dev/outbox`)).status).toBe(404)
    } finally {
      await api.stop()
    }
  }, 60_000)
})
