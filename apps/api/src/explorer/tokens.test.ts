import { devSolanaToken } from '@porthole/dev-stack/stack'
import * as Api from '@porthole/protocol/Api'
import { TokenList } from '@porthole/protocol/Tokens'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import { createApp } from '../app.js'
import { configFromEnv, defaultTokenLists, memoryDir } from '../http/config.js'

/** The dev SPL token as `npm start` lists it for Solana Local (scripts/start.ts). */
const { chainId: solanaLocal, ...ptt } = devSolanaToken

const weth = {
  address: '0x4200000000000000000000000000000000000006',
  name: 'Wrapped Ether',
  symbol: 'WETH',
  decimals: 18,
}

let testDb: TestDb
let app: Hono

beforeAll(async () => {
  // As the server reads it: TOKENS replaces Base's list and adds Optimism's and Solana Local's.
  const { tokenLists } = configFromEnv({
    PGLITE_DIR: memoryDir,
    TOKENS: JSON.stringify({
      'eip155:8453': [weth],
      'eip155:10': [weth],
      [solanaLocal]: [ptt],
    }),
  })
  testDb = await createTestDb({ tokenLists })
  app = createApp({ config: testDb.config, db: testDb.db })
})
afterAll(() => testDb?.close())

async function getTokens(query: string) {
  const response = await app.request(`/tokens?${query}`)
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/application\/json/)
  return TokenList.parse(await response.json())
}

async function expectError(query: string, status: number, code: string, message?: RegExp) {
  const response = await app.request(`/tokens?${query}`)
  expect(response.status).toBe(status)
  const body = Api.ErrorBody.parse(await response.json())
  expect(body.error.code).toBe(code)
  if (message) expect(body.error.message).toMatch(message)
  return body
}

describe('GET /tokens', () => {
  test('serves the default list of a chain TOKENS does not name', async () => {
    const { tokens } = await getTokens('projectId=porthole-dev&chainId=eip155:1&clientId=abc')
    // The list itself is pinned in config.test.ts.
    expect(tokens).toEqual(defaultTokenLists['eip155:1'])
  })

  test.each([
    ['eip155:8453', [weth]],
    ['eip155:10', [weth]],
    [solanaLocal, [ptt]],
  ])('serves the TOKENS list of %s', async (chainId, expected) => {
    expect(await getTokens(`projectId=porthole-dev&chainId=${chainId}`)).toEqual({
      tokens: expected,
    })
  })

  test.each(['eip155:31337', 'eip155:137', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'])(
    'answers an empty list for %s, which has no tokens configured',
    async (chainId) => {
      expect(await getTokens(`projectId=porthole-dev&chainId=${chainId}`)).toEqual({ tokens: [] })
    },
  )

  test('checks the projectId first: missing 400, unknown 403', async () => {
    await expectError('chainId=eip155:1', 400, 'missing_project_id', /projectId.*required/)
    await expectError(
      'projectId=nobody&chainId=eip155:1',
      403,
      'unknown_project',
      /Unknown projectId 'nobody'/,
    )
  })

  test.each([
    ['a missing chainId', 'projectId=porthole-dev', /chainId/],
    ['a bare chain number', 'projectId=porthole-dev&chainId=1', /chainId: must be a CAIP-2/],
    ['a hex chain id', 'projectId=porthole-dev&chainId=0x1', /chainId: must be a CAIP-2/],
    ['an empty chainId', 'projectId=porthole-dev&chainId=', /chainId: must be a CAIP-2/],
    [
      'a repeated chainId',
      'projectId=porthole-dev&chainId=eip155:1&chainId=eip155:8453',
      /'chainId' is given more than once/,
    ],
    [
      'an unknown parameter',
      'projectId=porthole-dev&chainId=eip155:1&address=0x1',
      /Unrecognized key: "address"/,
    ],
  ])('refuses %s with a 400 JSON error', async (_, query, message) => {
    await expectError(query, 400, 'invalid_query', message)
  })
})
