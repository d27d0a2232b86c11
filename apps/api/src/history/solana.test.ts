import { devSolanaKeypair } from '@porthole/dev-stack/solanaKeys'
import { createSolanaNode, type SolanaNode } from '@porthole/dev-stack/solanaNode'
import {
  freshSolanaAddress,
  solanaRpc,
  solanaTransferNow,
} from '@porthole/dev-stack/solanaTransfers'
import { HistoryPage } from '@porthole/protocol/History'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import { createApp } from '../app.js'

const chainId = 'solana:B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD'
let node: SolanaNode
let testDb: TestDb
let app: Hono

beforeAll(async () => {
  ;[node, testDb] = await Promise.all([createSolanaNode(), createTestDb()])
  app = createApp({
    config: {
      ...testDb.config,
      rpcUpstreams: { ...testDb.config.rpcUpstreams, [chainId]: node.url },
      historyIndexer: { [chainId]: 'address' },
    },
    db: testDb.db,
  })
}, 60_000)

afterAll(async () => {
  await Promise.all([node?.close(), testDb?.close()])
})

const history = async (address: string, cursor?: string) => {
  const query = new URLSearchParams({ projectId: 'porthole-dev', chainId })
  if (cursor) query.set('cursor', cursor)
  const response = await app.request(`/account/${address}/history?${query}`)
  expect(response.status).toBe(200)
  return HistoryPage.parse(await response.json())
}

/** Sends `lamports` from dev account `index` to `to`; resolves with the signature. */
async function send(index: number, to: string, lamports: number): Promise<string> {
  const signer = devSolanaKeypair(index)
  const wire = await solanaTransferNow(node.url, {
    from: signer.publicKey.toBase58(),
    to,
    lamports,
    signer,
  })
  const { result, error } = await solanaRpc(node.url, 'sendTransaction', [
    wire,
    { encoding: 'base64' },
  ])
  if (typeof result !== 'string') throw new Error(`sendTransaction: ${error?.message}`)
  return result
}

describe('a Solana account history, asked of the node (address-scoped)', () => {
  test('SOL received and sent, newest first, the fee left out, paged on the last signature', async () => {
    const receiver = freshSolanaAddress()
    const signatures: string[] = []
    // The first pays the new account's rent; the others are small.
    for (let index = 0; index < 21; index++)
      signatures.push(await send(6, receiver, index === 0 ? 1_000_000 : 1_000 + index))
    const sender = devSolanaKeypair(6).publicKey.toBase58()

    const first = await history(receiver)
    expect(first.data.map((tx) => tx.id)).toEqual([...signatures].reverse().slice(0, 20))
    expect(first.data[0]?.transfers).toEqual([
      {
        direction: 'in',
        kind: 'native',
        amount: '1020',
        token: null,
        tokenId: null,
        counterparty: sender,
        nft_info: null,
      },
    ])
    expect(first.data[0]?.metadata).toMatchObject({
      chain: chainId,
      status: 'confirmed',
      sentFrom: sender,
    })
    expect(first.next).toBe(signatures[1])
    const second = await history(receiver, first.next ?? '')
    expect(second).toMatchObject({ next: null })
    expect(second.data.map((tx) => tx.id)).toEqual([signatures[0]])

    // The sender's side: out, by the amount alone (its 5000-lamport fee is not a transfer).
    const sent = await history(sender)
    expect(sent.data.find((tx) => tx.id === signatures[20])?.transfers[0]).toMatchObject({
      direction: 'out',
      amount: '1020',
      counterparty: receiver,
    })
  })

  test("pages asked of the node are limited per IP more tightly: the node's budget is the operator's", async () => {
    const limited = createApp({
      config: {
        ...testDb.config,
        ipLimitScale: 1,
        rpcUpstreams: { [chainId]: node.url },
        historyIndexer: { [chainId]: 'address' },
      },
      db: testDb.db,
    })
    const path = `/account/${freshSolanaAddress()}/history?projectId=porthole-dev&chainId=${chainId}`
    const statuses: number[] = []
    // One visitor of its own (the other tests' requests count against theirs).
    const visitor = { incoming: { socket: { remoteAddress: '192.0.2.77' } } }
    for (let request = 0; request < 21; request++)
      statuses.push((await limited.request(path, {}, visitor)).status)
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(200))
    expect(statuses[20]).toBe(429)
  })

  test('refuses an EVM address, a cursor that is no signature; a dead node is a 502', async () => {
    const base = `/account/${freshSolanaAddress()}/history?projectId=porthole-dev&chainId=${chainId}`
    expect(
      (
        await app.request(
          `/account/0x${'1'.repeat(40)}/history?projectId=porthole-dev&chainId=${chainId}`,
        )
      ).status,
    ).toBe(400)
    expect((await app.request(`${base}&cursor=abc`)).status).toBe(400)
    const dead = createApp({
      config: {
        ...testDb.config,
        rpcUpstreams: { [chainId]: 'http://127.0.0.1:9' },
        historyIndexer: { [chainId]: 'address' },
      },
      db: testDb.db,
    })
    const response = await dead.request(base)
    expect(response.status).toBe(502)
    expect(await response.json()).toMatchObject({ error: { code: 'history_upstream' } })
  })
})
