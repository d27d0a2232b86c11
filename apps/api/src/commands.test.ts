import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runProjectCommand } from './commands.js'
import { createTestDb, type TestDb } from './db/testing.js'
import { getProject } from './projects.js'

let testDb: TestDb
beforeAll(async () => {
  testDb = await createTestDb()
})
afterAll(() => testDb?.close())

async function run(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runProjectCommand(argv, {
    db: testDb.db,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('npm run project -- create', () => {
  test('creates a project with validated, canonical origins', async () => {
    const result = await run(
      'create',
      '--id',
      'acme',
      '--name',
      'Acme shop',
      '--origin',
      'https://Shop.Acme.example/',
      '--origin',
      'https://*.b.example',
    )
    expect(result).toMatchObject({ code: 0, err: '' })
    expect(result.out).toContain("Created project 'acme'")
    expect(result.out).toContain('https://shop.acme.example')
    expect(await getProject(testDb.db, 'acme')).toMatchObject({
      name: 'Acme shop',
      allowedOrigins: ['https://shop.acme.example', 'https://*.b.example'],
      features: { email: false, analytics: true },
    })
  })

  test('refuses a public-suffix wildcard and creates nothing', async () => {
    const result = await run(
      'create',
      '--id',
      'risky',
      '--name',
      'R',
      '--origin',
      'https://*.vercel.app',
    )
    expect(result.code).toBe(1)
    expect(result.err).toMatch(/vercel\.app is a public suffix/)
    expect(await getProject(testDb.db, 'risky')).toBeUndefined()
  })

  test('refuses a duplicate id', async () => {
    await run('create', '--id', 'twice', '--name', 'One')
    const result = await run('create', '--id', 'twice', '--name', 'Two')
    expect(result.code).toBe(1)
    expect(result.err).toMatch(/already exists/)
    expect((await getProject(testDb.db, 'twice'))?.name).toBe('One')
  })

  test.each([
    [['create', '--name', 'No id'], /--id is required/],
    [['create', '--id', 'x'], /--name is required/],
    [['create', '--id', 'bad id', '--name', 'X'], /id: must be/],
    [['create', '--id', 'x', '--name', 'X', '--bogus'], /Unknown option '--bogus'/],
    [['create', '--id'], /--id/],
    [['launch'], /Unknown command 'launch'/],
  ])('refuses %j with a usage error', async (argv, message) => {
    const result = await run(...argv)
    expect(result.code).toBe(1)
    expect(result.err).toMatch(message)
  })
})

describe('npm run project -- set-origins', () => {
  test('replaces the origins', async () => {
    await run('create', '--id', 'movable', '--name', 'M', '--origin', 'https://old.example')
    const result = await run('set-origins', '--id', 'movable', '--origin', 'https://new.example')
    expect(result.code).toBe(0)
    expect((await getProject(testDb.db, 'movable'))?.allowedOrigins).toEqual([
      'https://new.example',
    ])
  })

  test('empties the list only with --clear', async () => {
    await run('create', '--id', 'clearable', '--name', 'C', '--origin', 'https://c.example')
    expect((await run('set-origins', '--id', 'clearable')).err).toMatch(/at least one --origin/)
    expect((await getProject(testDb.db, 'clearable'))?.allowedOrigins).toEqual([
      'https://c.example',
    ])
    expect((await run('set-origins', '--id', 'clearable', '--clear')).code).toBe(0)
    expect((await getProject(testDb.db, 'clearable'))?.allowedOrigins).toEqual([])
  })

  test('refuses an unknown project and a bad origin', async () => {
    expect(
      (await run('set-origins', '--id', 'ghost', '--origin', 'https://a.example')).err,
    ).toMatch(/No project with id 'ghost'/)
    await run('create', '--id', 'strict', '--name', 'S', '--origin', 'https://s.example')
    const result = await run('set-origins', '--id', 'strict', '--origin', 'https://s.example/path')
    expect(result.code).toBe(1)
    expect(result.err).toMatch(/remove the path/)
    expect((await getProject(testDb.db, 'strict'))?.allowedOrigins).toEqual(['https://s.example'])
  })
})

describe('npm run project -- list', () => {
  test('lists projects with origins and features', async () => {
    const result = await run('list')
    expect(result.code).toBe(0)
    expect(result.out).toContain('porthole-dev  Porthole dev')
    expect(result.out).toContain('http://127.0.0.1:5170')
    expect(result.out).toMatch(/features: email=false socials=- onramp=false/)
  })

  test('marks stored origins that are refused when read (inv-05), and never calls them dev hosts', async () => {
    await testDb.db.query(
      `INSERT INTO projects (id, name, allowed_origins, features)
       VALUES ('raw', 'Raw', '["https://*.vercel.app"]'::jsonb, '{}'::jsonb)`,
    )
    const result = await run('list')
    expect(result.out).toContain(
      'https://*.vercel.app  (refused, never served: set the origins again)',
    )
    expect(result.out).not.toMatch(/raw {2}Raw\n {2}origins: \(none: dev hosts only\)/)
  })

  test('help prints the usage', async () => {
    const result = await run('help')
    expect(result.code).toBe(0)
    expect(result.out).toMatch(/Usage: npm run project -- <command>/)
  })
})
