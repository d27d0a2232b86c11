/**
 * Red team, issue 13: the Solana RPC proxy against a hostile caller, on the
 * real local node (SECURITY.md 21, 24, 25): near-miss spellings of
 * requestAirdrop, a batch past the bound, a foreign Host, a text/plain
 * cross-site post of a signed transfer, config keys that would change what
 * the size bound reads.
 */
import { Solana } from '@porthole/chains'
import { createSolanaNode, type SolanaNode } from '@porthole/dev-stack/solanaNode'
import { freshSolanaAddress, solanaBalance } from '@porthole/dev-stack/solanaTransfers'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import { createApp } from '../app.js'
import { createProject } from '../projects/projects.js'
import { maxBatchSize, RpcErrorResponse } from './routes.js'
import { maxEncodedTransaction } from './solanaParams.js'

const local = Solana.localnet.caipNetworkId
const devnet = Solana.devnet.caipNetworkId

let node: SolanaNode
let testDb: TestDb
let app: Hono

beforeAll(async () => {
  node = await createSolanaNode({ port: 0 })
  // Devnet's upstream is the local node too: a public network whose node would
  // answer requestAirdrop.
  testDb = await createTestDb({ rpcUpstreams: { [local]: node.url, [devnet]: node.url } })
  await createProject(testDb.db, { id: 'evm-only', name: 'EVM only', networks: ['eip155:1'] })
  app = createApp({ config: testDb.config, db: testDb.db })
})

afterAll(async () => {
  await testDb?.close()
  await node?.close()
})

/** One request or a batch through the proxy, as the dev project (which offers Solana Local first). */
function proxy(body: unknown, chainId: string = local, projectId = 'porthole-dev') {
  return app.request(`/v1/?chainId=${chainId}&projectId=${projectId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

const call = (method: string, params?: unknown, id: number = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
})

describe('inv-24 red: what a hostile caller sends the Solana proxy', () => {
  test.each([
    'requestairdrop',
    'RequestAirdrop',
    ' requestAirdrop',
    'requestAirdrop\u0000',
    'getProgramAccounts',
    'setLogFilter',
    'minimumLedgerSlot',
  ])(
    '%j is refused (-32601, or -32600 for a name that is no method name) and nothing is airdropped',
    async (method) => {
      const receiver = freshSolanaAddress()
      const response = await proxy(call(method, [receiver, 10 ** 9]))
      expect(response.status).toBe(400)
      expect([-32600, -32601]).toContain(RpcErrorResponse.parse(await response.json()).error.code)
      expect(await solanaBalance(node.url, receiver)).toBe(0)
    },
  )

  test(`a batch of ${maxBatchSize + 1} is refused; ${maxBatchSize} pass (positive control)`, async () => {
    const batch = (count: number) =>
      Array.from({ length: count }, (_, index) => call('getSlot', [], index + 1))
    expect((await proxy(batch(maxBatchSize + 1))).status).toBe(400)
    expect((await proxy(batch(maxBatchSize))).status).toBe(200)
  })

  test('a base64 transaction declared base58 by a misspelt key is bounded as base58, and the node refuses it', async () => {
    // 1,680 characters: past base64's 1,644, within base58's 1,683.
    const response = await proxy(
      call('sendTransaction', ['A'.repeat(1680), { Encoding: 'base64' }]),
    )
    const answer = (await response.json()) as { result?: unknown; error?: unknown }
    expect(answer.result).toBeUndefined()
    expect(maxEncodedTransaction.base58).toBeGreaterThan(1680)
  })

  test('inv-25 a foreign Host gets nothing', async () => {
    const response = await app.request(
      `http://rebound.example/v1/?chainId=${local}&projectId=porthole-dev`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', host: 'rebound.example' },
        body: JSON.stringify(call('getSlot', [])),
      },
    )
    expect(response.status).toBe(421)
  })

  // The proxy is a public JSON-RPC endpoint (not in crossSite.ts's browserEndpoints, as
  // for EVM): a cross-site text/plain post is any internet caller, and can do only what
  // one can: a signed transaction is broadcast (anyone holding it could), nothing else.
  test('inv-21 a cross-site text/plain post gets only the allow list: no airdrop', async () => {
    const receiver = freshSolanaAddress()
    const response = await app.request(`/v1/?chainId=${local}&projectId=porthole-dev`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: 'https://evil.example' },
      body: JSON.stringify(call('requestAirdrop', [receiver, 10 ** 9])),
    })
    expect(response.status).toBe(400)
    expect(await solanaBalance(node.url, receiver)).toBe(0)
  })
})
