import { HistoryPage } from '@porthole/protocol/History'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import { createApp } from '../app.js'
import { createProject, setProjectFeatures } from '../projects/projects.js'
import { setProjectSpam } from './spam.js'

let testDb: TestDb
let app: Hono
const account = `0x${'Ab'.repeat(20)}`

beforeAll(async () => {
  testDb = await createTestDb()
  app = createApp({ config: testDb.config, db: testDb.db })
  // Two stored transactions of the account on the dev chain: a received one and a sent one.
  await testDb.db.query(
    `INSERT INTO history_transfers (chain_id, tx_hash, log_index, sub_index, block_number, tx_index,
       mined_at, status, kind, tx_from, from_address, to_address, amount)
     VALUES ('eip155:31337', $1, -1, 0, 5, 0, '2026-11-02T10:00:00Z', 'confirmed', 'native', $3, $3, $2, 7),
            ('eip155:31337', $4, -1, 0, 9, 1, '2026-11-20T10:00:00Z', 'failed', 'native', $2, $2, $3, 8)`,
    [`0x${'1'.repeat(64)}`, account.toLowerCase(), `0x${'c'.repeat(40)}`, `0x${'2'.repeat(64)}`],
  )
}, 60_000)

afterAll(() => testDb?.close())

const get = (path: string) => app.request(path)
const historyPath = (params: Record<string, string>, address = account) =>
  `/account/${address}/history?${new URLSearchParams({ projectId: 'porthole-dev', ...params })}`

describe('GET /account/:address/history', () => {
  test("answers the account's transactions newest first, private to it", async () => {
    const response = await get(historyPath({ chainId: 'eip155:31337' }))
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('private, no-store')
    const page = HistoryPage.parse(await response.json())
    expect(page.next).toBeNull()
    expect(page.data.map((tx) => [tx.metadata.status, tx.transfers[0]?.direction])).toEqual([
      ['failed', 'out'],
      ['confirmed', 'in'],
    ])
  })

  test('a network no indexer follows is a 404, not an empty history', async () => {
    const response = await get(historyPath({ chainId: 'eip155:1' }))
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ error: { code: 'history_unavailable' } })
  })

  test.each([
    ['a cursor it never gave', { chainId: 'eip155:31337', cursor: 'bm9wZQ' }, account],
    ['an address that is not one', { chainId: 'eip155:31337' }, '0x1234'],
    ['an unknown parameter', { chainId: 'eip155:31337', limit: '1000' }, account],
    ['no chain', {}, account],
  ])('refuses %s with a 400', async (_, params, address) => {
    const response = await get(historyPath(params as Record<string, string>, address))
    expect(response.status).toBe(400)
  })

  test('onramp purchases: none recorded here, an empty page', async () => {
    const response = await get(historyPath({ chainId: 'eip155:31337', onramp: 'coinbase' }))
    expect(HistoryPage.parse(await response.json())).toEqual({ data: [], next: null })
  })
})

describe("a project's spam list", () => {
  test('flags an NFT contract for that project only, and is refused a malformed entry', async () => {
    const collection = `0x${'d'.repeat(40)}`
    await testDb.db.query(
      `INSERT INTO history_transfers (chain_id, tx_hash, log_index, sub_index, block_number, tx_index,
         mined_at, status, kind, token, token_id, tx_from, from_address, to_address, amount)
       VALUES ('eip155:31337', $1, 0, 0, 12, 0, now(), 'confirmed', 'erc721', $2, '1', $2,
         '0x0000000000000000000000000000000000000000', $3, 1)`,
      [`0x${'3'.repeat(64)}`, collection, account.toLowerCase()],
    )
    await createProject(testDb.db, { id: 'other-shop', name: 'Other', allowedOrigins: [] })
    await setProjectFeatures(testDb.db, 'other-shop', { history: true })
    expect(
      await setProjectSpam(testDb.db, 'porthole-dev', {
        add: [`eip155:31337:${collection.toUpperCase().replace('0X', '0x')}`],
      }),
    ).toEqual([`eip155:31337:${collection}`])
    const flagged = async (projectId: string) => {
      const response = await get(
        `/account/${account}/history?projectId=${projectId}&chainId=eip155:31337`,
      )
      const page = HistoryPage.parse(await response.json())
      return page.data[0]?.transfers[0]?.nft_info?.flags.is_spam
    }
    expect(await flagged('porthole-dev')).toBe(true)
    expect(await flagged('other-shop')).toBe(false)
    await expect(
      setProjectSpam(testDb.db, 'porthole-dev', { add: ['eip155:31337:0x12'] }),
    ).rejects.toThrow(/must be a CAIP-10 contract/)
    await expect(setProjectSpam(testDb.db, 'nope', { add: [] })).rejects.toThrow(/No project/)
    expect(
      await setProjectSpam(testDb.db, 'porthole-dev', { remove: [`eip155:31337:${collection}`] }),
    ).toEqual([])
    expect(await flagged('porthole-dev')).toBe(false)
  })
})

describe('what a page holds, whatever the chain holds', () => {
  const insert = (rows: unknown[][]) =>
    testDb.db.query(
      `INSERT INTO history_transfers (chain_id, tx_hash, log_index, sub_index, block_number, tx_index,
         mined_at, status, kind, token, token_id, tx_from, from_address, to_address, amount)
       SELECT 'eip155:31337', * FROM unnest($1::text[], $2::int[], $3::int[], $4::bigint[], $5::int[],
         $6::timestamptz[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[],
         $13::text[], $14::numeric[])`,
      rows[0]?.map((_, column) => rows.map((row) => row[column])),
    )
  const victim = `0x${'5'.repeat(40)}`
  const stranger = `0x${'6'.repeat(40)}`
  const fakeToken = `0x${'7'.repeat(40)}`
  const page = async (address: string) =>
    HistoryPage.parse(
      await (
        await get(`/account/${address}/history?projectId=porthole-dev&chainId=eip155:31337`)
      ).json(),
    )

  test('address poisoning: a zero transfer, or a move out the account did not send of an unlisted token, is not shown', async () => {
    const hash = (digit: string) => `0x${digit.repeat(64)}`
    await insert([
      // Sent by a stranger's contract: "victim → lookalike" of a fake USDC.
      [
        hash('7'),
        0,
        0,
        20,
        0,
        '2026-11-20T00:00:00Z',
        'confirmed',
        'erc20',
        fakeToken,
        null,
        stranger,
        victim,
        stranger,
        '5',
      ],
      // A zero-amount transfer the victim "received".
      [
        hash('8'),
        0,
        0,
        21,
        0,
        '2026-11-20T00:00:00Z',
        'confirmed',
        'erc20',
        fakeToken,
        null,
        stranger,
        stranger,
        victim,
        '0',
      ],
      // A real one: sent by the victim.
      [
        hash('9'),
        0,
        0,
        22,
        0,
        '2026-11-20T00:00:00Z',
        'confirmed',
        'erc20',
        fakeToken,
        null,
        victim,
        victim,
        stranger,
        '3',
      ],
    ])
    const { data } = await page(victim)
    expect(data.map((tx) => tx.id)).toEqual([hash('9')])
  })

  test('a transaction moving thousands of NFTs to the account shows at most 100 of them', async () => {
    const many = `0x${'4'.repeat(64)}`
    await insert(
      Array.from({ length: 1_500 }, (_, index) => [
        many,
        0,
        index,
        30,
        0,
        '2026-11-21T00:00:00Z',
        'confirmed',
        'erc1155',
        fakeToken,
        String(index),
        stranger,
        '0x0000000000000000000000000000000000000000',
        stranger,
        '1',
      ]),
    )
    const { data } = await page(stranger)
    expect(data.find((tx) => tx.id === many)?.transfers).toHaveLength(100)
  })

  test("a cursor past the database's integers is a 400, not a 500", async () => {
    const cursor = Buffer.from('9999999999999999999:0').toString('base64url')
    const response = await get(historyPath({ chainId: 'eip155:31337', cursor }))
    expect(response.status).toBe(400)
  })

  test('a project with history off gets none', async () => {
    await createProject(testDb.db, { id: 'no-history', name: 'N', allowedOrigins: [] })
    const response = await get(
      `/account/${account}/history?projectId=no-history&chainId=eip155:31337`,
    )
    expect(response.status).toBe(404)
  })
})
