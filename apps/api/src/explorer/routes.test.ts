import { readFile } from 'node:fs/promises'
import * as Api from '@porthole/protocol/Api'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import { createApp } from '../app.js'
import { readWalletRegistry, walletRegistryDir } from '../projects/seed.js'

let testDb: TestDb
let app: Hono
let registry: Awaited<ReturnType<typeof readWalletRegistry>>

beforeAll(async () => {
  testDb = await createTestDb()
  app = createApp({ config: testDb.config, db: testDb.db })
  registry = await readWalletRegistry()
})
afterAll(() => testDb?.close())

const rainbow = '1ae92b26df02f0abca6304df07debccd18262fdf5fe82daa81593582dac9a369'
const trust = '4622a2b2d6af1c9844944291e5e7351a6aa24cd7b23099efac1b2fd875da31a0'
const metamask = 'c57ca95b47569778a828d19178114f4db188b89b763c899ba0be274e97267d96'

async function getWallets(params: Record<string, string>) {
  const query = new URLSearchParams({ projectId: 'porthole-dev', ...params })
  const response = await app.request(`/getWallets?${query}`)
  expect(response.status).toBe(200)
  return Api.WalletsPage.parse(await response.json())
}

async function expectError(path: string, status: number, code: string, message?: RegExp) {
  const response = await app.request(path)
  expect(response.status).toBe(status)
  const body = Api.ErrorBody.parse(await response.json())
  expect(body.error.code).toBe(code)
  if (message) expect(body.error.message).toMatch(message)
  return body
}

describe('GET /getWallets', () => {
  test('pages 40 wallets at a time in the registry order, with the total count', async () => {
    const pages = await Promise.all([1, 2, 3, 4].map((page) => getWallets({ page: String(page) })))
    expect(pages.map((page) => page.count)).toEqual([113, 113, 113, 113])
    expect(pages.map((page) => page.data.length)).toEqual([40, 40, 33, 0])
    expect(pages.flatMap((page) => page.data.map((wallet) => wallet.id))).toEqual(
      registry.map((wallet) => wallet.id),
    )
  })

  test('defaults to page 1 and serves the documented entry shape', async () => {
    const { data } = await getWallets({ entries: '4' })
    expect(data.map((wallet) => wallet.name)).toEqual([
      'Rainbow',
      'Trust Wallet',
      'Argent',
      'MetaMask',
    ])
    expect(data[0]).toEqual({
      id: rainbow,
      name: 'Rainbow',
      image_id: rainbow,
      rdns: 'me.rainbow',
      chains: ['eip155:1'],
      homepage: 'https://rainbow.me/',
      mobile_link: 'rainbow:',
      desktop_link: null,
      webapp_link: null,
      badge_type: null,
    })
  })

  test('serves the EIP-6963 rdns of the wallets seed.ts knows, null for the rest', async () => {
    const { data } = await getWallets({ include: `${metamask},${trust}`, entries: '100' })
    expect(data.find((wallet) => wallet.id === metamask)).toMatchObject({
      name: 'MetaMask',
      rdns: 'io.metamask',
    })
    expect(data.find((wallet) => wallet.id === trust)?.rdns).toBe('com.trustwallet.app')
    const argent = (await getWallets({ search: 'Argent' })).data[0]
    expect(argent).toMatchObject({ name: 'Argent', rdns: null })
  })

  test('serves up to 100 entries and refuses more', async () => {
    expect((await getWallets({ entries: '100' })).data).toHaveLength(100)
    await expectError(
      '/getWallets?projectId=porthole-dev&entries=101',
      400,
      'invalid_query',
      /entries/,
    )
  })

  test.each([
    ['entries=0', /entries/],
    ['entries=-1', /entries/],
    ['entries=4.5', /entries/],
    ['page=0', /page/],
    ['page=abc', /page/],
    ['page=1e3', /page/],
    ['badge_type=gold', /badge_type/],
    ['include=not-an-id', /include/],
    ['exclude=ABC', /exclude/],
    ['chains=mainnet', /chains/],
    [`search=${'a'.repeat(101)}`, /search/],
    ['unknown=1', /Unrecognized key/],
    ['__proto__=x', /Unrecognized key/],
    ['page=1&page=2', /more than once/],
    [`clientId=${'c'.repeat(129)}`, /clientId/],
  ])('refuses %s', async (params, message) => {
    await expectError(`/getWallets?projectId=porthole-dev&${params}`, 400, 'invalid_query', message)
  })

  test('accepts the clientId, st and sv every widget call carries', async () => {
    const { count } = await getWallets({ clientId: 'c-123', st: 'porthole', sv: 'widget-0.1.0' })
    expect(count).toBe(113)
  })

  test('treats an empty optional parameter as absent', async () => {
    const { count, data } = await getWallets({
      clientId: '',
      st: '',
      page: '',
      entries: '',
      search: '',
      badge_type: '',
      include: '',
      exclude: '',
      chains: '',
    })
    expect(count).toBe(113)
    expect(data).toHaveLength(40)
  })

  test('searches names case-insensitively, exact and prefix matches first', async () => {
    const { count, data } = await getWallets({ search: 'WALLET' })
    expect(count).toBe(data.length)
    expect(count).toBeGreaterThan(10)
    for (const wallet of data) expect(wallet.name.toLowerCase()).toContain('wallet')
    // "Wallet 3" starts with the search, so it comes before e.g. "Trust Wallet".
    const names = data.map((wallet) => wallet.name)
    const prefixed = names.filter((name) => name.toLowerCase().startsWith('wallet'))
    expect(prefixed.length).toBeGreaterThan(0)
    expect(names.slice(0, prefixed.length)).toEqual(prefixed)
    // The rest keep the registry's order.
    const rest = names.slice(prefixed.length)
    const order = registry.map((wallet) => wallet.name)
    expect(rest).toEqual([...rest].sort((a, b) => order.indexOf(a) - order.indexOf(b)))
  })

  test('puts an exact name match first', async () => {
    const { data } = await getWallets({ search: 'bitpay' })
    expect(data[0]?.name).toBe('BitPay')
    const { data: rainbowFirst } = await getWallets({ search: 'rainbow' })
    expect(rainbowFirst[0]?.id).toBe(rainbow)
  })

  test('accepts a search of any length, and treats LIKE wildcards literally', async () => {
    expect((await getWallets({ search: 'm' })).count).toBeGreaterThan(10)
    expect((await getWallets({ search: 'MetaMask' })).data.map((wallet) => wallet.id)).toEqual([
      metamask,
    ])
    expect((await getWallets({ search: '%' })).count).toBe(0)
    expect((await getWallets({ search: '_' })).count).toBe(0)
    expect((await getWallets({ search: 'zzzz-no-such-wallet' })).count).toBe(0)
    // An empty search does not filter.
    expect((await getWallets({ search: '' })).count).toBe(113)
  })

  test('include keeps only the listed wallets, in recommended order', async () => {
    const { count, data } = await getWallets({ include: `${metamask},${rainbow}` })
    expect(count).toBe(2)
    expect(data.map((wallet) => wallet.id)).toEqual([rainbow, metamask])
  })

  test('exclude drops the listed wallets', async () => {
    const { count, data } = await getWallets({ exclude: `${rainbow},${trust}`, entries: '2' })
    expect(count).toBe(111)
    expect(data.map((wallet) => wallet.name)).toEqual(['Argent', 'MetaMask'])
  })

  test('include and exclude combine', async () => {
    const { data } = await getWallets({ include: `${rainbow},${trust}`, exclude: rainbow })
    expect(data.map((wallet) => wallet.id)).toEqual([trust])
  })

  test('chains keeps wallets supporting any of the listed chains', async () => {
    const cosmos = registry.filter((wallet) =>
      wallet.chains.some((chain) => chain === 'cosmos:cosmoshub-4' || chain === 'eip155:42220'),
    )
    expect(cosmos.length).toBeGreaterThan(0)
    const { count, data } = await getWallets({
      chains: 'cosmos:cosmoshub-4,eip155:42220',
      entries: '100',
    })
    expect(count).toBe(cosmos.length)
    expect(data.map((wallet) => wallet.id)).toEqual(cosmos.map((wallet) => wallet.id))
    expect((await getWallets({ chains: 'eip155:999999' })).count).toBe(0)
  })

  test('badge_type=certified keeps only certified wallets (none in the seed); none does not filter', async () => {
    expect((await getWallets({ badge_type: 'certified' })).count).toBe(0)
    expect((await getWallets({ badge_type: 'none' })).count).toBe(113)
  })

  test('count is the number of matches before paging', async () => {
    const { count, data } = await getWallets({ search: 'wallet', entries: '3', page: '2' })
    expect(data).toHaveLength(3)
    expect(count).toBeGreaterThan(6)
  })
})

describe('inv-18 GET /getWallets serves only what the widget parses (Api.WalletsPage)', () => {
  test('the whole seeded registry satisfies Api.WalletEntry, served and stored', async () => {
    const pages = await Promise.all(
      [1, 2].map((page) => getWallets({ page: String(page), entries: '100' })),
    )
    const served = pages.flatMap((page) => page.data)
    expect(served.map((wallet) => wallet.id)).toEqual(registry.map((wallet) => wallet.id))
    const rows = await testDb.db.query(
      `SELECT id, name, image_id, rdns, chains, homepage, mobile_link, desktop_link, webapp_link, badge_type
       FROM wallets ORDER BY position`,
    )
    expect(rows).toHaveLength(registry.length)
    for (const row of rows) expect(Api.WalletEntry.safeParse(row).error).toBeUndefined()
  })

  test.each([
    ['an image id with a path', { image_id: '../../etc/passwd' }],
    ['an empty name', { name: '' }],
    ['a name over 200 characters', { name: 'W'.repeat(201) }],
  ])(
    'a row with %s (written by raw SQL) is a 500, never a body the widget refuses',
    async (_, bad) => {
      const id = 'f'.repeat(64)
      const row = { name: 'Odd wallet', image_id: null, ...bad }
      await testDb.db.query(
        `INSERT INTO wallets (id, position, name, image_id, chains) VALUES ($1, 9999, $2, $3, '{}')`,
        [id, row.name, row.image_id],
      )
      try {
        const onError = vi.fn()
        const strictApp = createApp({ config: testDb.config, db: testDb.db, onError })
        const response = await strictApp.request(`/getWallets?projectId=porthole-dev&include=${id}`)
        expect(response.status).toBe(500)
        expect(Api.ErrorBody.parse(await response.json()).error.code).toBe('internal_error')
        expect(onError).toHaveBeenCalledTimes(1)
      } finally {
        await testDb.db.query('DELETE FROM wallets WHERE id = $1', [id])
      }
    },
  )
})

describe('projectId checks', () => {
  test.each([
    '/getWallets',
    `/getWalletImage/${rainbow}`,
    '/public/getAssetImage/abc',
    '/appkit/v1/config',
    '/projects/v1/origins',
    '/getAnalyticsConfig',
    '/tokens',
  ])('%s without projectId answers 400', async (path) => {
    await expectError(path, 400, 'missing_project_id', /projectId.*required/)
    await expectError(`${path}?projectId=`, 400, 'missing_project_id')
  })

  test.each([
    '/getWallets',
    `/getWalletImage/${rainbow}`,
    '/appkit/v1/config',
    '/projects/v1/origins',
    '/getAnalyticsConfig',
    '/tokens',
  ])('%s with an unknown projectId answers 403', async (path) => {
    await expectError(
      `${path}?projectId=nobody`,
      403,
      'unknown_project',
      /Unknown projectId 'nobody'/,
    )
  })

  test('a malformed projectId answers 400 without echoing it', async () => {
    const body = await expectError(
      `/getWallets?projectId=${encodeURIComponent('<script>alert(1)</script>')}`,
      400,
      'invalid_project_id',
    )
    expect(body.error.message).not.toContain('<script>')
  })
})

describe('GET /getWalletImage/:id', () => {
  test('serves the logo as a cacheable jpeg', async () => {
    const response = await app.request(`/getWalletImage/${metamask}?projectId=porthole-dev`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('image/jpeg')
    expect(response.headers.get('cache-control')).toBe('public, max-age=86400')
    const file = await readFile(`${walletRegistryDir}/logo/${metamask}.jpeg`)
    expect(Buffer.from(await response.arrayBuffer()).equals(file)).toBe(true)
  })

  test('answers 304 to a matching If-None-Match', async () => {
    const first = await app.request(`/getWalletImage/${metamask}?projectId=porthole-dev`)
    const etag = first.headers.get('etag')
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/)
    const second = await app.request(`/getWalletImage/${metamask}?projectId=porthole-dev`, {
      headers: { 'If-None-Match': etag ?? '' },
    })
    expect(second.status).toBe(304)
    expect(await second.text()).toBe('')
  })

  test('answers 404 JSON for an unknown id', async () => {
    await expectError(
      `/getWalletImage/${'0'.repeat(64)}?projectId=porthole-dev`,
      404,
      'not_found',
      /No wallet image/,
    )
  })

  test.each(['abc', 'Z'.repeat(64), `${'a'.repeat(64)}0`, '..%2F..%2Fetc%2Fpasswd'])(
    'refuses the malformed id %s',
    async (id) => {
      await expectError(`/getWalletImage/${id}?projectId=porthole-dev`, 400, 'invalid_path', /64/)
    },
  )
})

describe('GET /public/get{Asset,Currency,Token}Image/:id', () => {
  test.each([
    ['getAssetImage', /asset/],
    ['getCurrencyImage', /currency/],
    ['getTokenImage', /token/],
  ])('%s answers 404 with a clear message', async (path, what) => {
    const body = await expectError(
      `/public/${path}/some-id?projectId=porthole-dev`,
      404,
      'not_found',
      what,
    )
    expect(body.error.message).toMatch(/no .* images yet/)
  })
})
