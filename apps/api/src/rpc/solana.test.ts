/**
 * The RPC proxy on Solana networks, against the real local node
 * (`@porthole/dev-stack/solanaNode`, litesvm): what wallets and the widget
 * call reaches it; what a hostile host page may send instead is refused
 * before it does (SECURITY.md 24).
 */
import { Solana } from '@porthole/chains'
import { devSolanaKeypair } from '@porthole/dev-stack/solanaKeys'
import { createSolanaNode, type SolanaNode } from '@porthole/dev-stack/solanaNode'
import {
  freshSolanaAddress,
  solanaBalance,
  solanaTransferNow,
} from '@porthole/dev-stack/solanaTransfers'
import { devSolanaToken } from '@porthole/dev-stack/stack'
import { base58, base64 } from '@scure/base'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import { createApp } from '../app.js'
import { createProject } from '../projects/projects.js'
import { maxBatchSize, RpcErrorResponse } from './routes.js'
import { maxEncodedTransaction, maxSignaturesForAddress, solanaListLimits } from './solanaParams.js'

const local = Solana.localnet.caipNetworkId
const devnet = Solana.devnet.caipNetworkId
const payer = devSolanaKeypair(1)
const payerAddress = payer.publicKey.toBase58()

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

async function result(method: string, params?: unknown): Promise<unknown> {
  const response = await proxy(call(method, params))
  expect(response.status).toBe(200)
  const answer = (await response.json()) as { result?: unknown; error?: unknown }
  expect(answer.error).toBeUndefined()
  return answer.result
}

async function expectRefused(response: Response, status: number, code: number, message: RegExp) {
  expect(response.status).toBe(status)
  const body = RpcErrorResponse.parse(await response.json())
  expect(body.error).toEqual({ code, message: expect.stringMatching(message) })
}

/** A signed transfer of `lamports` from the payer to `to`, base64. */
const signedTransfer = (to: string, lamports: number) =>
  solanaTransferNow(node.url, { from: payerAddress, to, lamports, signer: payer })

describe('the proxy serves Solana Local from the real node', () => {
  test("the reads of web3.js's Connection and spl-token's getAccount/getMint reach it", async () => {
    const ata = (
      (await result('getTokenAccountsByOwner', [
        payerAddress,
        { mint: devSolanaToken.address },
        { encoding: 'jsonParsed' },
      ])) as { value: { pubkey: string; account: { data: unknown } }[] }
    ).value
    expect(ata).toHaveLength(1)
    const reads = [
      call('getLatestBlockhash', [{ commitment: 'confirmed' }], 1),
      call('getBalance', [payerAddress, { commitment: 'confirmed' }], 2),
      call('getAccountInfo', [devSolanaToken.address, { encoding: 'base64' }], 3),
      call('getAccountInfo', [ata[0]?.pubkey, { encoding: 'base64' }], 4),
      call('getMinimumBalanceForRentExemption', [165], 5),
      call('getSlot', [], 6),
      call('getBlockHeight', [], 7),
      call('getGenesisHash', [], 8),
      call('getTokenAccountBalance', [ata[0]?.pubkey], 9),
      call('getMultipleAccounts', [[payerAddress, devSolanaToken.address]], 10),
      call('getEpochInfo', [], 11),
      call('getRecentPrioritizationFees', [[payerAddress]], 12),
    ]
    const response = await proxy(reads)
    expect(response.status).toBe(200)
    const answers = (await response.json()) as { id: number; result?: unknown; error?: unknown }[]
    expect(answers.map((answer) => [answer.id, answer.error])).toEqual(
      reads.map((read) => [read.id, undefined]),
    )
    const byId = new Map(answers.map((answer) => [answer.id, answer.result]))
    expect(byId.get(2)).toMatchObject({ value: 1_000 * 10 ** 9 })
    expect(byId.get(8)).toBe('B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD7Aa66zX8vz37')
    expect(byId.get(9)).toMatchObject({ value: { amount: '1000000000000', decimals: 6 } })
  })

  test('a transfer is simulated, its fee read, sent and confirmed: the receiver gets exactly the amount', async () => {
    const receiver = freshSolanaAddress()
    const transaction = await signedTransfer(receiver, 1_234_567)
    // The message follows one signature count byte and one 64-byte signature.
    const message = base64.encode(base64.decode(transaction).subarray(1 + 64))
    expect(await result('getFeeForMessage', [message])).toMatchObject({ value: 5000 })
    const simulated = (await result('simulateTransaction', [
      transaction,
      { encoding: 'base64', sigVerify: true },
    ])) as { value: { err: unknown } }
    expect(simulated.value.err).toBeNull()
    const signature = await result('sendTransaction', [
      transaction,
      { encoding: 'base64', preflightCommitment: 'confirmed' },
    ])
    expect(signature).toBe(base58.encode(base64.decode(transaction).subarray(1, 65)))
    const statuses = (await result('getSignatureStatuses', [[signature]])) as {
      value: { err: unknown; confirmationStatus: string }[]
    }
    expect(statuses.value[0]).toMatchObject({ err: null, confirmationStatus: 'finalized' })
    expect(await result('getTransaction', [signature, { encoding: 'json' }])).toMatchObject({
      meta: { err: null },
    })
    expect(await solanaBalance(node.url, receiver)).toBe(1_234_567)
  })

  test('a project that does not offer Solana Local is refused it (403) and nothing moves', async () => {
    const receiver = freshSolanaAddress()
    const transaction = await signedTransfer(receiver, 1000)
    await expectRefused(
      await proxy(
        call('sendTransaction', [transaction, { encoding: 'base64' }]),
        local,
        'evm-only',
      ),
      403,
      -32602,
      /does not offer solana:B9Jv/,
    )
    expect(await solanaBalance(node.url, receiver)).toBe(0)
  })
})

describe('inv-24 a host page gets only the allow list, within a validator’s bounds', () => {
  test.each([local, devnet])(
    'requestAirdrop is never forwarded (%s): -32601, and the balance stays',
    async (chainId) => {
      const receiver = freshSolanaAddress()
      await expectRefused(
        await proxy(call('requestAirdrop', [receiver, 10 ** 9]), chainId),
        400,
        -32601,
        /'requestAirdrop' is not available/,
      )
      expect(await solanaBalance(node.url, receiver)).toBe(0)
    },
  )

  test.each([
    ['getProgramAccounts', ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA']],
    ['getBlock', [0]],
    ['getLargestAccounts', []],
    ['getTokenSupply', [devSolanaToken.address]],
    ['eth_chainId', []],
    ['signatureSubscribe', ['1']],
  ])('%s is not on the list: -32601', async (method, params) => {
    await expectRefused(
      await proxy(call(method, params)),
      400,
      -32601,
      new RegExp(`'${method}' is not available`),
    )
  })

  const keys = (count: number) => Array.from({ length: count }, () => freshSolanaAddress())
  const signatures = (count: number) =>
    Array.from({ length: count }, () => base58.encode(new Uint8Array(64).fill(9)))

  test.each([
    ['params given by name', 'getBalance', { pubkey: payerAddress }, /must be an array/],
    ['four params', 'getBalance', [payerAddress, {}, {}, {}], /must be an array of at most 3/],
    [
      'one account more than a validator reads',
      'getMultipleAccounts',
      [keys(solanaListLimits.getMultipleAccounts.max + 1)],
      /getMultipleAccounts takes at most 100 accounts/,
    ],
    [
      'one signature more than a validator reads',
      'getSignatureStatuses',
      [signatures(solanaListLimits.getSignatureStatuses.max + 1)],
      /getSignatureStatuses takes at most 256 signatures/,
    ],
    [
      'one fee account more than a transaction locks',
      'getRecentPrioritizationFees',
      [keys(solanaListLimits.getRecentPrioritizationFees.max + 1)],
      /at most 128 accounts/,
    ],
    [
      'a signature history over the limit',
      'getSignaturesForAddress',
      [payerAddress, { limit: maxSignaturesForAddress + 1 }],
      /a limit of at most 1000/,
    ],
    [
      'a signature history limit that is not a number',
      'getSignaturesForAddress',
      [payerAddress, { limit: '1e9' }],
      /must be a whole number/,
    ],
    [
      'a base64 transaction longer than a packet',
      'sendTransaction',
      ['A'.repeat(maxEncodedTransaction.base64 + 4), { encoding: 'base64' }],
      /one transaction of at most 1232 bytes \(1644 base64/,
    ],
    [
      'a base58 transaction longer than a packet',
      'simulateTransaction',
      ['1'.repeat(maxEncodedTransaction.base58 + 1)],
      /at most 1232 bytes \(1683 base58/,
    ],
    [
      'a message longer than a packet',
      'getFeeForMessage',
      ['A'.repeat(maxEncodedTransaction.base64 + 4)],
      /at most 1232 bytes/,
    ],
  ])('%s is refused with -32602', async (_, method, params, message) => {
    await expectRefused(await proxy(call(method, params)), 400, -32602, message)
  })

  test('one refused request refuses its whole batch: the transfer beside it is not sent', async () => {
    const receiver = freshSolanaAddress()
    const transaction = await signedTransfer(receiver, 1000)
    await expectRefused(
      await proxy([
        call('sendTransaction', [transaction, { encoding: 'base64' }], 1),
        call('getMultipleAccounts', [keys(101)], 2),
      ]),
      400,
      -32602,
      /at most 100 accounts/,
    )
    await expectRefused(
      await proxy([
        call('sendTransaction', [transaction, { encoding: 'base64' }], 1),
        call('requestAirdrop', [receiver, 1], 2),
      ]),
      400,
      -32601,
      /requestAirdrop/,
    )
    expect(await solanaBalance(node.url, receiver)).toBe(0)
  })

  test('at the bounds, the node answers', async () => {
    const accounts = (await result('getMultipleAccounts', [keys(100)])) as { value: unknown[] }
    expect(accounts.value).toHaveLength(100)
    const statuses = (await result('getSignatureStatuses', [signatures(256)])) as {
      value: unknown[]
    }
    expect(statuses.value).toHaveLength(256)
  })
})

/**
 * The review of issue 13, as a hostile caller: near-miss spellings of
 * requestAirdrop, a batch past the bound, a foreign Host, a text/plain
 * cross-site post of a signed transfer, config keys that would change what
 * the size bound reads (SECURITY.md 21, 24, 25).
 */
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
