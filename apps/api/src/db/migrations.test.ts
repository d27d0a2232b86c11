import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, seededDevProject, type TestDb } from '../../test/db.js'
import { RegistryError } from '../http/errors.js'
import { getProject } from '../projects/projects.js'
import {
  devProjectNetworks,
  readWalletRegistry,
  registryRdns,
  seed,
  walletRegistryDir,
} from '../projects/seed.js'
import { migrate, migrations } from './migrations.js'

// Not migrated: the tests below migrate it, then seed it, in order.
let testDb: TestDb
beforeAll(async () => {
  testDb = await createTestDb({}, { migrate: false })
})
afterAll(() => testDb?.close())

describe('migrate', () => {
  const versions = migrations.map((_, index) => index + 1)

  test('replicas migrating a fresh database at once apply each script exactly once', async () => {
    const connections = [testDb.db, await testDb.openReplica(), await testDb.openReplica()]
    const results = await Promise.all(connections.map(migrate))
    expect(results.flat().sort((a, b) => a - b)).toEqual(versions)
  })

  test('is idempotent: a second run applies nothing and the record stays whole', async () => {
    const { db } = testDb
    expect(await migrate(db)).toEqual([])
    expect(await migrate(db)).toEqual([])
    const rows = await db.query<{ version: number }>(
      'SELECT version FROM schema_migrations ORDER BY version',
    )
    expect(rows.map((row) => Number(row.version))).toEqual(versions)
    const tables = await db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
       WHERE table_schema = current_schema() ORDER BY table_name`,
    )
    expect(tables.map((row) => row.table_name)).toEqual([
      'analytics_events',
      'dev_outbox',
      'device_verifications',
      'devices',
      'email_otps',
      'email_send_throttle',
      'email_updates',
      'embedded_sessions',
      'farcaster_logins',
      'history_blocks',
      'history_cursors',
      'history_spam',
      'history_tokens',
      'history_transfers',
      'identities',
      'identity_links',
      'mail_budget_counts',
      'pow_challenges',
      'project_mail_budgets',
      'projects',
      'rate_limits',
      'rpc_budget_counts',
      'schema_migrations',
      'siwx_nonces',
      'siwx_sessions',
      'social_logins',
      'users',
      'wallet_images',
      'wallet_shares',
      'wallets',
    ])
  })

  test('script 2 gives every existing project the default network, eip155:1', async () => {
    const fresh = await createTestDb({}, { migrate: false })
    try {
      const [first, second] = migrations
      await fresh.db.exec(first ?? '')
      await fresh.db.query(
        `INSERT INTO projects (id, name, features) VALUES ('before', 'Before', '{}'::jsonb)`,
      )
      await fresh.db.exec(second ?? '')
      const rows = await fresh.db.query<{ networks: unknown }>(
        `SELECT networks FROM projects WHERE id = 'before'`,
      )
      expect(rows).toEqual([{ networks: ['eip155:1'] }])
      await expect(
        fresh.db.query(`UPDATE projects SET networks = NULL WHERE id = 'before'`),
      ).rejects.toThrow(/null/i)
    } finally {
      await fresh.close()
    }
  })

  test('script 5 keeps pending codes as login codes and keys codes by purpose', async () => {
    const fresh = await createTestDb({}, { migrate: false })
    try {
      for (const script of migrations.slice(0, 4)) await fresh.db.exec(script)
      await fresh.db.query(
        `INSERT INTO projects (id, name, features) VALUES ('before', 'Before', '{}'::jsonb)`,
      )
      await fresh.db.query(
        `INSERT INTO email_otps (project_id, email, salt, code_sha256, created_at, expires_at)
         VALUES ('before', 'a@example.com', 's', 'h', now(), now() + interval '10 minutes')`,
      )
      await fresh.db.exec(migrations[4] ?? '')
      expect(
        await fresh.db.query('SELECT purpose, email FROM email_otps WHERE project_id = $1', [
          'before',
        ]),
      ).toEqual([{ purpose: 'login', email: 'a@example.com' }])
      // One code per project, address and purpose.
      await fresh.db.query(
        `INSERT INTO email_otps (project_id, purpose, email, salt, code_sha256, created_at, expires_at)
         VALUES ('before', 'email-update-primary', 'a@example.com', 's', 'h', now(), now())`,
      )
      await expect(
        fresh.db.query(
          `INSERT INTO email_otps (project_id, email, salt, code_sha256, created_at, expires_at)
           VALUES ('before', 'a@example.com', 's', 'h', now(), now())`,
        ),
      ).rejects.toThrow(/duplicate key/)
      await expect(
        fresh.db.query(
          `INSERT INTO email_otps (project_id, purpose, email, salt, code_sha256, created_at, expires_at)
           VALUES ('before', 'reset-everything', 'b@example.com', 's', 'h', now(), now())`,
        ),
      ).rejects.toThrow(/check constraint/)
    } finally {
      await fresh.close()
    }
  })

  test('script 5 allows one wallet per user and one user per email', async () => {
    const { db } = testDb
    await db.query(
      `INSERT INTO users (id, email) VALUES ('u1', 'one@example.com'), ('u2', NULL), ('u3', NULL)`,
    )
    await expect(
      db.query(`INSERT INTO users (id, email) VALUES ('u4', 'one@example.com')`),
    ).rejects.toThrow(/duplicate key/)
    const share = `('u1', 'a', 'c', 'iv', 'k', '0x', 's')`
    const columns =
      '(user_id, auth_share, recovery_share_ciphertext, recovery_share_iv, recovery_share_key_id, evm_address, solana_address)'
    await db.query(`INSERT INTO wallet_shares ${columns} VALUES ${share}`)
    await expect(db.query(`INSERT INTO wallet_shares ${columns} VALUES ${share}`)).rejects.toThrow(
      /duplicate key/,
    )
    await db.query(`DELETE FROM users WHERE id IN ('u1', 'u2', 'u3')`)
    expect(await db.query(`SELECT 1 FROM wallet_shares WHERE user_id = 'u1'`)).toEqual([])
  })

  test('a failing script rolls back and records nothing', async () => {
    const { db } = testDb
    await expect(
      db.transaction(async (tx) => {
        await tx.exec('CREATE TABLE should_vanish (id int)')
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    const tables = await db.query(
      `SELECT 1 FROM information_schema.tables
       WHERE table_schema = current_schema() AND table_name = 'should_vanish'`,
    )
    expect(tables).toEqual([])
  })
})

describe('seed', () => {
  test('is idempotent: running it again keeps one row per wallet, image and project', async () => {
    const { db, config } = testDb
    await seed(db, config)
    await seed(db, config)
    const [counts] = await db.query<{ wallets: number; images: number; projects: number }>(
      `SELECT (SELECT count(*)::int FROM wallets) AS wallets,
              (SELECT count(*)::int FROM wallet_images) AS images,
              (SELECT count(*)::int FROM projects) AS projects`,
    )
    expect(counts).toEqual({ wallets: 113, images: 113, projects: 1 })
  })

  test('seeds the dev project with its origins, features and networks (local anvil first)', async () => {
    const project = await getProject(testDb.db, testDb.config.devProjectId)
    expect(project).toMatchObject({
      id: 'porthole-dev',
      name: 'Porthole dev',
      allowedOrigins: ['http://127.0.0.1:5170', 'http://localhost:5170'],
      ...seededDevProject,
      refusedNetworks: [],
    })
    expect(devProjectNetworks).toEqual(project?.networks)
  })

  test('resets the dev project to its seed', async () => {
    const { db, config } = testDb
    await db.query(
      `UPDATE projects SET name = 'changed', allowed_origins = '[]', networks = '["eip155:10"]'
       WHERE id = $1`,
      [config.devProjectId],
    )
    await seed(db, config)
    expect(await getProject(db, config.devProjectId)).toMatchObject({
      name: 'Porthole dev',
      allowedOrigins: ['http://127.0.0.1:5170', 'http://localhost:5170'],
      networks: seededDevProject.networks,
    })
  })

  test('with seedDevProject false, leaves the dev project alone and still seeds the registry', async () => {
    const { db, config } = testDb
    const off = { ...config, seedDevProject: false }
    await db.query(`UPDATE projects SET name = 'changed' WHERE id = $1`, [config.devProjectId])
    await db.query('DELETE FROM wallets WHERE position = 0')
    await seed(db, off)
    // Not reset...
    expect(await getProject(db, config.devProjectId)).toMatchObject({ name: 'changed' })
    // ...and not created either.
    await db.query('DELETE FROM projects WHERE id = $1', [config.devProjectId])
    await seed(db, off)
    expect(await getProject(db, config.devProjectId)).toBeUndefined()
    const [counts] = await db.query<{ wallets: number; images: number }>(
      `SELECT (SELECT count(*)::int FROM wallets) AS wallets,
              (SELECT count(*)::int FROM wallet_images) AS images`,
    )
    expect(counts).toEqual({ wallets: 113, images: 113 })
    // The default (true) brings it back.
    await seed(db, config)
    expect(await getProject(db, config.devProjectId)).toMatchObject({ name: 'Porthole dev' })
  })

  test('maps the registry as its README says, in the JSON order, inventing nothing', async () => {
    const raw = JSON.parse(await readFile(`${walletRegistryDir}/wallets.json`, 'utf8')) as Record<
      string,
      {
        name: string
        mobile: { native: string; universal: string }
        desktop: { native: string; universal: string }
        app: { browser: string }
      }
    >
    const rows = await testDb.db.query<Record<string, unknown>>(
      'SELECT * FROM wallets ORDER BY position',
    )
    expect(rows.map((row) => row.id)).toEqual(Object.keys(raw))
    for (const row of rows) {
      const source = raw[row.id as string]
      expect(source).toBeDefined()
      if (!source) continue
      expect(row.name).toBe(source.name)
      expect(row.image_id).toBe(row.id)
      expect(row.rdns).toBe(registryRdns[row.id as string] ?? null)
      expect(row.badge_type).toBeNull()
      expect(row.mobile_link).toBe(source.mobile.native || source.mobile.universal || null)
      expect(row.desktop_link).toBe(source.desktop.native || source.desktop.universal || null)
      expect(row.webapp_link).toBe(source.app.browser || null)
    }
    const registry = await readWalletRegistry()
    expect(registry).toHaveLength(113)
    expect(registry[0]).toMatchObject({ name: 'Rainbow', position: 0, mobile_link: 'rainbow:' })
  })

  test('writes the EIP-6963 rdns of the wallets registryRdns names, and restores it', async () => {
    const { db, config } = testDb
    await db.query(`UPDATE wallets SET rdns = 'com.example.stale' WHERE name = 'MetaMask'`)
    await seed(db, config)
    const rows = await db.query<{ name: string; rdns: string }>(
      'SELECT name, rdns FROM wallets WHERE rdns IS NOT NULL ORDER BY position',
    )
    expect(rows).toEqual([
      { name: 'Rainbow', rdns: 'me.rainbow' },
      { name: 'Trust Wallet', rdns: 'com.trustwallet.app' },
      { name: 'MetaMask', rdns: 'io.metamask' },
      { name: 'Ledger Live', rdns: 'com.ledger' },
      { name: 'Rabby', rdns: 'io.rabby' },
    ])
    // Every id in the table is a registry wallet: a typo would leave it unused.
    expect(rows).toHaveLength(Object.keys(registryRdns).length)
  })

  test.each([
    ['too many chains', { chains: Array.from({ length: 201 }, (_, i) => `eip155:${i + 1}`) }],
    ['an over-long name', { name: 'W'.repeat(201) }],
    ['an empty name', { name: '' }],
  ])('refuses a registry wallet the widget would refuse (%s), naming it', async (_, bad) => {
    const id = 'e'.repeat(64)
    const wallet = {
      id,
      name: 'Odd wallet',
      homepage: 'https://odd.example',
      chains: ['eip155:1'],
      app: { browser: '' },
      mobile: { native: '', universal: '' },
      desktop: { native: '', universal: '' },
      ...bad,
    }
    const dir = await mkdtemp(join(tmpdir(), 'porthole-registry-'))
    try {
      await writeFile(join(dir, 'wallets.json'), JSON.stringify({ [id]: wallet }))
      await expect(readWalletRegistry(dir)).rejects.toThrow(RegistryError)
      await expect(readWalletRegistry(dir)).rejects.toThrow(`wallet ${id} does not fit`)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  test('stores each logo byte for byte', async () => {
    const [wallet] = await testDb.db.query<{ id: string }>(
      'SELECT id FROM wallets ORDER BY position LIMIT 1',
    )
    const [image] = await testDb.db.query<{ bytes: Uint8Array; content_type: string }>(
      'SELECT bytes, content_type FROM wallet_images WHERE id = $1',
      [wallet?.id],
    )
    const file = await readFile(`${walletRegistryDir}/logo/${wallet?.id}.jpeg`)
    expect(image?.content_type).toBe('image/jpeg')
    expect(Buffer.from(image?.bytes ?? []).equals(file)).toBe(true)
  })
})
