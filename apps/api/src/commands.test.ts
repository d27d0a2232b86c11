import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../test/db.js'
import { createDbAdmin } from './admin/admin.js'
import { chargeMailBudget } from './auth/email/codes.js'
import { runProjectCommand } from './commands.js'
import { networkIds } from './projects/networks.js'
import { getProject } from './projects/projects.js'

let testDb: TestDb
beforeAll(async () => {
  testDb = await createTestDb()
})
afterAll(() => testDb?.close())

/** An upstream for every network Porthole knows. */
const everyUpstream = Object.fromEntries(networkIds.map((id) => [id, 'https://rpc.example']))

/** The command, in an environment whose RPC_UPSTREAMS are `rpcUpstreams` (every network by default). */
async function runWith(rpcUpstreams: Record<string, string>, ...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runProjectCommand(argv, {
    admin: createDbAdmin({ db: testDb.db, rpcUpstreams }),
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

const run = (...argv: string[]) => runWith(everyUpstream, ...argv)

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
      networks: ['eip155:1'],
    })
    expect(result.out).toContain('networks: eip155:1 (default)')
  })

  test('takes the networks from --networks, the first being the default', async () => {
    const result = await run(
      'create',
      '--id',
      'multichain',
      '--name',
      'M',
      '--networks',
      'eip155:8453,eip155:1',
      '--networks',
      'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    )
    expect(result).toMatchObject({ code: 0, err: '' })
    expect(result.out).toContain(
      'networks: eip155:8453 (default) eip155:1 solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    )
    expect((await getProject(testDb.db, 'multichain'))?.networks).toEqual([
      'eip155:8453',
      'eip155:1',
      'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    ])
  })

  test.each([
    ['eip155:1,eip155:424242', /Unknown network 'eip155:424242'\. Known networks .*eip155: 1 /],
    ['', /A project needs at least one network/],
    ['eip155-1', /'eip155-1' is not a CAIP-2 network id/],
  ])('refuses --networks %j and creates nothing', async (networks, message) => {
    const result = await run('create', '--id', 'netless', '--name', 'N', '--networks', networks)
    expect(result.code).toBe(1)
    expect(result.err).toMatch(message)
    expect(await getProject(testDb.db, 'netless')).toBeUndefined()
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

describe('npm run project -- set-networks', () => {
  test('replaces the networks, in the order given', async () => {
    await run('create', '--id', 'chains', '--name', 'C')
    const result = await run(
      'set-networks',
      '--id',
      'chains',
      '--networks',
      'eip155:31337, eip155:1,eip155:11155111',
    )
    expect(result).toMatchObject({ code: 0, err: '' })
    expect(result.out).toContain("Updated the networks of 'chains'.")
    expect(result.out).toContain('networks: eip155:31337 (default) eip155:1 eip155:11155111')
    expect((await getProject(testDb.db, 'chains'))?.networks).toEqual([
      'eip155:31337',
      'eip155:1',
      'eip155:11155111',
    ])
  })

  test('warns of each network the RPC proxy has no upstream for, naming the variable', async () => {
    const upstreams = { 'eip155:31337': 'http://127.0.0.1:8545' }
    const created = await runWith(upstreams, 'create', '--id', 'upstreams', '--name', 'U')
    expect(created.code).toBe(0)
    expect(created.err).toBe(
      `Warning: eip155:1 (Ethereum) has no RPC upstream: set it in the API's RPC_UPSTREAMS, e.g. RPC_UPSTREAMS='{"eip155:1":"https://…"}'. Until then the widget cannot read balances or send on it.`,
    )
    const set = await runWith(
      upstreams,
      'set-networks',
      '--id',
      'upstreams',
      '--networks',
      'eip155:31337,eip155:8453,solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    )
    expect(set.code).toBe(0)
    expect(set.err.split('\n').map((line) => line.split(' ').slice(0, 3).join(' '))).toEqual([
      'Warning: eip155:8453 (Base)',
      'Warning: solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp (Solana)',
    ])
    // The networks are set all the same: an upstream may be added after.
    expect((await getProject(testDb.db, 'upstreams'))?.networks).toHaveLength(3)
  })

  test.each([
    [
      'an unknown network',
      'eip155:1,eip155:999',
      /^Error: Unknown network 'eip155:999'\. Known networks \(CAIP-2 namespace: references\): eip155: 1 .* 31337; solana: 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp /,
    ],
    ['a Bitcoin network', 'bip122:000000000019d6689c085ae165831e93', /Unknown network 'bip122:/],
    ['an empty list', '', /^Error: A project needs at least one network/],
    ['an empty entry', 'eip155:1,', /^Error: '' is not a CAIP-2 network id/],
    ['a malformed id', 'ethereum', /^Error: 'ethereum' is not a CAIP-2 network id/],
    ['a CAIP-10 account', 'eip155:1:0xabc', /'eip155:1:0xabc' is not a CAIP-2 network id/],
  ])('refuses %s and keeps the stored list', async (_, networks, message) => {
    await run('create', '--id', 'steady', '--name', 'S', '--networks', 'eip155:8453')
    const result = await run('set-networks', '--id', 'steady', '--networks', networks)
    expect(result.code).toBe(1)
    expect(result.err).toMatch(message)
    expect((await getProject(testDb.db, 'steady'))?.networks).toEqual(['eip155:8453'])
  })

  test.each([
    [['set-networks', '--networks', 'eip155:1'], /--id is required/],
    [['set-networks', '--id', 'steady'], /--networks is required/],
    [['set-networks', '--id', 'steady', 'eip155:1'], /Unexpected argument 'eip155:1'/],
  ])('refuses %j with a usage error', async (argv, message) => {
    const result = await run(...argv)
    expect(result.code).toBe(1)
    expect(result.err).toMatch(message)
    expect(result.err).toMatch(/Usage: npm run project/)
  })

  test('refuses an unknown project', async () => {
    const result = await run('set-networks', '--id', 'ghost', '--networks', 'eip155:1')
    expect(result.code).toBe(1)
    expect(result.err).toMatch(/No project with id 'ghost'/)
  })
})

describe('npm run project -- list', () => {
  test('lists projects with origins and features', async () => {
    const result = await run('list')
    expect(result.code).toBe(0)
    expect(result.out).toContain('porthole-dev  Porthole dev')
    expect(result.out).toContain('http://127.0.0.1:5170')
    expect(result.out).toContain(
      'networks: eip155:31337 (default) eip155:1 eip155:11155111 eip155:8453',
    )
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

  test('marks stored networks that are unknown, and serves the default when none is left', async () => {
    await testDb.db.query(
      `INSERT INTO projects (id, name, features, networks)
       VALUES ('oldnet', 'Old', '{}'::jsonb, '["eip155:999"]'::jsonb)`,
    )
    const result = await run('list')
    expect(result.out).toMatch(
      /oldnet {2}Old\n.*\n {2}networks: eip155:1 \(default\) eip155:999 \(unknown, never served\)/,
    )
  })

  test('help prints the usage and the known networks', async () => {
    const result = await run('help')
    expect(result.code).toBe(0)
    expect(result.out).toMatch(/Usage: npm run project -- \[--api API_URL\] <command>/)
    expect(result.out).toMatch(/set-networks --id ID --networks NETWORK,\.\.\./)
    expect(result.out).toMatch(/\n {2}eip155: 1 11155111 .* 31337\n {2}solana: /)
  })
})

describe('npm run project -- set-features', () => {
  test('turns email on and sets the social logins, keeping the other features', async () => {
    await run('create', '--id', 'logins', '--name', 'L')
    const result = await run(
      'set-features',
      '--id',
      'logins',
      '--email',
      'true',
      '--socials',
      'google, github,google',
    )
    expect(result).toMatchObject({ code: 0, err: '' })
    expect(result.out).toContain("Updated the features of 'logins'.")
    expect((await getProject(testDb.db, 'logins'))?.features).toEqual({
      email: true,
      socials: ['google', 'github'],
      onramp: false,
      swaps: false,
      history: false,
      analytics: true,
    })
    // One at a time: the other stays as it was.
    await run('set-features', '--id', 'logins', '--socials', '')
    expect((await getProject(testDb.db, 'logins'))?.features).toMatchObject({
      email: true,
      socials: [],
    })
    await run('set-features', '--id', 'logins', '--email', 'false')
    expect((await getProject(testDb.db, 'logins'))?.features).toMatchObject({
      email: false,
      socials: [],
    })
  })

  test("spam: flags and unflags contracts, listing the project's flags", async () => {
    await run('create', '--id', 'spammy', '--name', 'S')
    const contract = `eip155:1:0x${'e'.repeat(40)}`
    const added = await run('spam', '--id', 'spammy', '--add', contract, '--add', contract)
    expect(added).toMatchObject({ code: 0, err: '' })
    expect(added.out).toContain("'spammy' flags 1 contract(s) as spam:")
    expect(added.out).toContain(contract)
    const bad = await run('spam', '--id', 'spammy', '--add', 'eip155:1:nope')
    expect(bad.code).not.toBe(0)
    expect(bad.err).toMatch(/must be a CAIP-10 contract/)
    const removed = await run('spam', '--id', 'spammy', '--remove', contract)
    expect(removed.out).toContain("'spammy' flags no contract as spam.")
  })

  test('turns Activity on and sets the pending transactions polling, then turns polling off', async () => {
    await run('create', '--id', 'activity', '--name', 'A')
    const on = await run(
      'set-features',
      '--id',
      'activity',
      '--history',
      'true',
      '--pending-poll-ms',
      '30000',
    )
    expect(on).toMatchObject({ code: 0, err: '' })
    expect((await getProject(testDb.db, 'activity'))?.features).toMatchObject({
      history: true,
      pendingTransactionsPollMs: 30_000,
      email: false,
    })
    await run('set-features', '--id', 'activity', '--pending-poll-ms', 'off')
    expect((await getProject(testDb.db, 'activity'))?.features).toMatchObject({
      history: true,
      pendingTransactionsPollMs: null,
    })
  })

  test('turns analytics off and on again, keeping the other features', async () => {
    await run('create', '--id', 'quiet', '--name', 'Q')
    const off = await run('set-features', '--id', 'quiet', '--analytics', 'false')
    expect(off).toMatchObject({ code: 0, err: '' })
    expect(off.out).toContain('analytics=false')
    expect((await getProject(testDb.db, 'quiet'))?.features).toMatchObject({
      analytics: false,
      email: false,
    })
    await run('set-features', '--id', 'quiet', '--analytics', 'true', '--email', 'true')
    expect((await getProject(testDb.db, 'quiet'))?.features).toMatchObject({
      analytics: true,
      email: true,
    })
  })

  test.each([
    [['set-features', '--id', 'logins', '--socials', 'google,myspace'], /Unknown social login/],
    [['set-features', '--id', 'logins', '--email', 'yes'], /--email must be true or false/],
    [
      ['set-features', '--id', 'logins'],
      /Give --email, --socials, --analytics, --history, --pending-poll-ms, --heavy-rpc or several/,
    ],
    [
      ['set-features', '--id', 'logins', '--pending-poll-ms', '999'],
      /--pending-poll-ms must be a number of milliseconds from 1000 to 3600000, or off/,
    ],
    [
      ['set-features', '--id', 'logins', '--pending-poll-ms', '4000000'],
      /polling must be 1000 to 3600000 ms, or off/,
    ],
    [['set-features', '--id', 'logins', '--history', 'on'], /--history must be true or false/],
    [['set-features', '--id', 'logins', '--analytics', 'off'], /--analytics must be true or false/],
    [['set-features', '--id', 'logins', '--heavy-rpc', 'yes'], /--heavy-rpc must be true or false/],
    [['set-features', '--email', 'true'], /--id is required/],
    [['set-features', '--id', 'nobody', '--email', 'true'], /No project with id 'nobody'/],
  ])('refuses %j and changes nothing', async (argv, message) => {
    await run('create', '--id', 'logins', '--name', 'L')
    const before = (await getProject(testDb.db, 'logins'))?.features
    const result = await run(...argv)
    expect(result.code).toBe(1)
    expect(result.err).toMatch(message)
    expect((await getProject(testDb.db, 'logins'))?.features).toEqual(before)
  })
})

describe('npm run project -- set-mail-budget, usage (inv-22: the operator is told)', () => {
  test('sets the budget, and usage shows it with the overflow and challenge counters', async () => {
    await run('create', '--id', 'mailer-co', '--name', 'Mailer Co')
    expect(await run('usage', '--id', 'mailer-co')).toEqual({
      code: 0,
      err: '',
      out: [
        'mailer-co  usage over today (UTC)',
        '  mail budget: 200 mails per 10 minutes (the default)',
        '  mails past the budget (with a proof of work): 0',
        '  proof-of-work challenges: 0 issued, 0 solved',
        '  RPC budget (60000 calls per 60 s) spent in 0 window(s); calls served past it: 0',
      ].join('\n'),
    })
    const set = await run('set-mail-budget', '--id', 'mailer-co', '--mails', '1')
    expect(set).toMatchObject({
      code: 0,
      out: "Set the mail budget of 'mailer-co' to 1 mails per 10 minutes.",
    })
    await chargeMailBudget(testDb.db, 'mailer-co', undefined)
    await chargeMailBudget(testDb.db, 'mailer-co', undefined)
    await expect(
      chargeMailBudget(testDb.db, 'mailer-co', { email: 'a@b.example', purpose: 'login' }),
    ).rejects.toMatchObject({ status: 428 })
    const usage = await run('usage', '--id', 'mailer-co', '--days', '7')
    expect(usage.out).toContain('usage over the last 7 days (UTC)')
    expect(usage.out).toContain('mail budget: 1 mails per 10 minutes\n')
    expect(usage.out).toContain('mails past the budget (with a proof of work): 1\n')
    expect(usage.out).toContain('proof-of-work challenges: 1 issued, 0 solved')
    expect((await run('set-mail-budget', '--id', 'mailer-co', '--default')).out).toContain(
      '200 mails per 10 minutes (the default)',
    )
  })

  test('refuses a bad budget, an unknown project, and both or neither option', async () => {
    expect((await run('set-mail-budget', '--id', 'mailer-co', '--mails', '0')).err).toMatch(
      /mail budget is a whole number of mails from 1/,
    )
    expect((await run('set-mail-budget', '--id', 'mailer-co', '--mails', 'lots')).err).toMatch(
      /--mails must be a whole number, not 'lots'/,
    )
    expect((await run('set-mail-budget', '--id', 'mailer-co')).err).toMatch(
      /Give either --mails N or --default/,
    )
    expect((await run('usage', '--id', 'nobody')).err).toMatch(/No project with the id 'nobody'/)
    expect((await run('usage', '--id', 'mailer-co', '--days', '0')).code).toBe(1)
  })
})

describe('npm run project -- set-features --heavy-rpc, usage (inv-24: heavy RPC calls are opt-in)', () => {
  test('turns heavy RPC calls on and off; list shows the setting', async () => {
    await run('create', '--id', 'heavy-co', '--name', 'Heavy Co')
    expect((await getProject(testDb.db, 'heavy-co'))?.heavyRpc).toBe(false)
    expect((await run('list')).out).toMatch(
      /heavy-co {2}Heavy Co\n(?:.*\n){3} {2}heavy RPC calls: off/,
    )
    const on = await run('set-features', '--id', 'heavy-co', '--heavy-rpc', 'true')
    expect(on).toMatchObject({ code: 0, err: '' })
    expect(on.out).toContain("Heavy RPC calls of 'heavy-co' are on.")
    expect(on.out).toContain('heavy RPC calls: on')
    expect((await getProject(testDb.db, 'heavy-co'))?.heavyRpc).toBe(true)
    // With a login change at once, both apply; the features are kept.
    await run('set-features', '--id', 'heavy-co', '--heavy-rpc', 'false', '--email', 'true')
    expect(await getProject(testDb.db, 'heavy-co')).toMatchObject({
      heavyRpc: false,
      features: { email: true },
    })
  })

  test('usage shows the windows in which the RPC budget was spent and the calls past it', async () => {
    await run('create', '--id', 'rpc-heavy-user', '--name', 'R')
    await testDb.db.query(
      `INSERT INTO rpc_budget_counts (project_id, day, windows_spent, overflow_calls)
       VALUES ($1, (now() AT TIME ZONE 'UTC')::date, 3, 1234),
              ($1, (now() AT TIME ZONE 'UTC')::date - 3, 2, 10)`,
      ['rpc-heavy-user'],
    )
    expect((await run('usage', '--id', 'rpc-heavy-user')).out).toContain(
      'spent in 3 window(s); calls served past it: 1234',
    )
    expect((await run('usage', '--id', 'rpc-heavy-user', '--days', '7')).out).toContain(
      'spent in 5 window(s); calls served past it: 1244',
    )
  })
})

describe('npm run project -- stats (issue 16: what the widget events tell a site owner)', () => {
  /** One stored event, `daysAgo` UTC days back (as POST /e stores it). */
  const insert = (event: string, clientId: string | null, daysAgo = 0, type = 'track') =>
    testDb.db.query(
      `INSERT INTO analytics_events
         (project_id, event_id, client_id, url, domain, client_timestamp, type, event, props, received_at)
       VALUES ('stats-co', gen_random_uuid(), $1, 'https://shop.example', 'shop.example', 0, $2, $3,
               '{}'::jsonb, now() - make_interval(days => $4))`,
      [clientId, type, event, daysAgo],
    )

  test('counts per event and per day, error reports, and the connect funnel by visitor', async () => {
    await run('create', '--id', 'stats-co', '--name', 'Stats Co')
    for (const client of ['a', 'b', 'c']) await insert('MODAL_OPEN', client)
    await insert('MODAL_OPEN', 'a')
    for (const client of ['a', 'b']) await insert('SELECT_WALLET', client)
    await insert('CONNECT_SUCCESS', 'a')
    await insert('UNCAUGHT_ERROR', 'b', 0, 'error')
    await insert('MODAL_OPEN', 'd', 2)
    // Outside the 7 days: not counted.
    await insert('MODAL_OPEN', 'e', 9)

    const { code, out, err } = await run('stats', '--id', 'stats-co')
    expect([code, err]).toEqual([0, ''])
    const lines = out.split('\n')
    expect(lines[0]).toBe('stats-co  widget events over the last 7 days (UTC)')
    expect(lines.slice(1, 4)).toEqual([
      '  MODAL_OPEN       5',
      '  SELECT_WALLET    2',
      '  CONNECT_SUCCESS  1',
    ])
    expect(lines).toContain('  error reports: 1')
    expect(lines).toContain(
      '  connect funnel (visitors): opened 4 → chose a wallet 2 (50 %) → connected 1 (25 %)',
    )
    const today = new Date().toISOString().slice(0, 10)
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10)
    expect(lines.slice(-2)).toEqual([
      `  ${twoDaysAgo}  MODAL_OPEN 1`,
      `  ${today}  CONNECT_SUCCESS 1, MODAL_OPEN 4, SELECT_WALLET 2`,
    ])
    expect((await run('stats', '--id', 'stats-co', '--days', '1')).out).toContain(
      'opened 3 → chose a wallet 2 (67 %) → connected 1 (33 %)',
    )
  })

  test('a stored name with control characters is printed escaped, never as terminal codes', async () => {
    await run('create', '--id', 'escaped-co', '--name', 'Escaped Co')
    await testDb.db.query(
      `INSERT INTO analytics_events
         (project_id, event_id, client_id, url, domain, client_timestamp, type, event, props)
       VALUES ('escaped-co', gen_random_uuid(), 'a', 'https://shop.example', 'shop.example', 0,
               'track', $1, '{}'::jsonb)`,
      ['X\u001b[2J\nFAKE 9999'],
    )
    const { out } = await run('stats', '--id', 'escaped-co')
    // No control character but the line breaks between lines.
    expect(Array.from(out).filter((char) => char < ' ' && char !== '\n')).toEqual([])
    expect(out).toContain('X\\u001b[2J\\u000aFAKE 9999')
    expect(out.split('\n').some((line) => line.startsWith('FAKE'))).toBe(false)
  })

  test('says so when there is nothing, and refuses a bad span or an unknown project', async () => {
    await run('create', '--id', 'quiet-co', '--name', 'Quiet Co')
    expect((await run('stats', '--id', 'quiet-co')).out).toContain('no events (is analytics on?')
    expect((await run('stats', '--id', 'quiet-co', '--days', '0')).err).toMatch(
      /--days must be a whole number from 1 to 366, not '0'/,
    )
    expect((await run('stats', '--id', 'nobody')).err).toMatch(/No project with the id 'nobody'/)
  })
})
