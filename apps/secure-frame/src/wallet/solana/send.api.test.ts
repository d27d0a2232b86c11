/**
 * `solana_signAndSendTransaction` against the real local Solana node through
 * the real API's RPC proxy (`createApp` over in-memory PGlite, called
 * in-process), with the frame's own API client: the embedded wallet's SOL
 * moves only after Approve, by exactly what was shown.
 */
import { devSolanaKeypair } from '@porthole/dev-stack/solanaKeys'
import { createSolanaNode, type SolanaNode } from '@porthole/dev-stack/solanaNode'
import {
  freshSolanaAddress,
  solanaBalance,
  solanaRpc,
  solanaTransferNow,
} from '@porthole/dev-stack/solanaTransfers'
import { UserRejectedError } from '@porthole/protocol/Errors'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { wallet } from '../../../test/rpcWallet.js'
import { createApi, type Fetch } from '../../lib/api.js'
import { handleRpc } from '../../rpc/policy.js'
import type { RequestApproval } from '../session.js'

/** The API's own modules, loaded at run time (see unlock.api.test.ts). */
type App = { request(url: string, init?: RequestInit): Response | Promise<Response> }
type TestDb = { db: unknown; config: unknown; close(): Promise<void> }
const apiSource = (file: string) => new URL(`../../../../api/${file}`, import.meta.url).href
const { createApp } = (await import(apiSource('src/app.ts'))) as {
  createApp(options: { config: unknown; db: unknown }): App
}
const { createTestDb } = (await import(apiSource('test/db.ts'))) as {
  createTestDb(overrides: {
    publicApiUrl: string
    rpcUpstreams: Record<string, string>
  }): Promise<TestDb>
}
const { createProject } = (await import(apiSource('src/projects/projects.ts'))) as {
  createProject(
    db: unknown,
    project: { id: string; name: string; networks: string[] },
  ): Promise<void>
}

const solanaLocal = 'solana:B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD'
const fee = 5000

let node: SolanaNode
let testDb: TestDb
let app: App

beforeAll(async () => {
  node = await createSolanaNode({ port: 0 })
  testDb = await createTestDb({
    publicApiUrl: 'http://api.test',
    rpcUpstreams: { [solanaLocal]: node.url },
  })
  await createProject(testDb.db, { id: 'evm-only', name: 'EVM only', networks: ['eip155:1'] })
  app = createApp({ config: testDb.config, db: testDb.db })
}, 60_000)

afterAll(async () => {
  await testDb?.close()
  await node?.close()
})

/** The frame's own client of the API, for `projectId`, in-process. */
function proxyOf(projectId: string) {
  const fetch: Fetch = async (url, init) => {
    // What the browser adds to the frame's requests: its origin (SECURITY.md 21).
    const headers = new Headers(init?.headers)
    headers.set('origin', 'http://secure.localhost:5172')
    return app.request(url, { ...init, headers })
  }
  return createApi({ apiUrl: 'http://api.test', projectId, fetch }).rpc
}

/** A logged-in embedded wallet whose RPC goes through the real proxy, funded with 1 SOL. */
async function localWallet(
  options: { decide?: RequestApproval; projectId?: string; lamports?: number } = {},
) {
  const { projectId = 'porthole-dev', lamports = 10 ** 9, decide } = options
  const result = await wallet({ ...(decide ? { decide } : {}), rpc: proxyOf(projectId) })
  const funder = devSolanaKeypair(3)
  const funding = await solanaTransferNow(node.url, {
    from: funder.publicKey.toBase58(),
    to: result.addresses.solana,
    lamports,
    signer: funder,
  })
  const sent = await solanaRpc(node.url, 'sendTransaction', [funding, { encoding: 'base64' }])
  expect(sent.error).toBeUndefined()
  return result
}

/** A transfer of `lamports` from the wallet to `to` on the node's latest blockhash, unsigned. */
const transferFrom = (from: string, to: string, lamports: number) =>
  solanaTransferNow(node.url, { from, to, lamports })

const signAndSend = (
  context: Awaited<ReturnType<typeof wallet>>['context'],
  params: unknown,
  options: { signal?: AbortSignal; onApproved?: () => void } = {},
) =>
  handleRpc(
    context,
    { method: 'solana_signAndSendTransaction', params: params as never, chainId: solanaLocal },
    { signal: options.signal ?? new AbortController().signal, onApproved: options.onApproved },
  )

describe('solana_signAndSendTransaction on Solana Local', () => {
  test('after Approve, the receiver gets exactly the amount and the wallet pays it and the fee', async () => {
    const { context, addresses, approvals } = await localWallet()
    const receiver = freshSolanaAddress()
    const params = {
      transaction: await transferFrom(addresses.solana, receiver, 123_456_789),
      sendOptions: { preflightCommitment: 'confirmed' },
    }
    const { signature } = (await signAndSend(context, params)) as { signature: string }
    expect(approvals).toEqual([
      expect.objectContaining({
        method: 'solana_signAndSendTransaction',
        params,
        chainId: solanaLocal,
        chainName: 'Solana Local',
        account: addresses.solana,
      }),
    ])
    expect(await solanaBalance(node.url, receiver)).toBe(123_456_789)
    expect(await solanaBalance(node.url, addresses.solana)).toBe(10 ** 9 - 123_456_789 - fee)
    const { result } = await solanaRpc(node.url, 'getSignatureStatuses', [[signature]])
    expect(result).toMatchObject({ value: [{ err: null }] })
  })

  test('a transfer the node refuses (more than the balance) answers its code, and nothing moves', async () => {
    const { context, addresses } = await localWallet({ lamports: 10_000_000 })
    const receiver = freshSolanaAddress()
    const params = { transaction: await transferFrom(addresses.solana, receiver, 10 ** 9) }
    await expect(signAndSend(context, params)).rejects.toMatchObject({ code: -32002 })
    expect(await solanaBalance(node.url, receiver)).toBe(0)
  })

  test('rejected (4001): nothing is sent', async () => {
    const { context, addresses } = await localWallet({
      decide: () => Promise.reject(new UserRejectedError()),
    })
    const receiver = freshSolanaAddress()
    const params = { transaction: await transferFrom(addresses.solana, receiver, 1000) }
    await expect(signAndSend(context, params)).rejects.toMatchObject({ code: 4001 })
    expect(await solanaBalance(node.url, receiver)).toBe(0)
  })

  test('inv-17 given up on as it is approved: not sent', async () => {
    const { context, addresses } = await localWallet()
    const receiver = freshSolanaAddress()
    const controller = new AbortController()
    const params = { transaction: await transferFrom(addresses.solana, receiver, 1000) }
    await expect(
      signAndSend(context, params, {
        signal: controller.signal,
        onApproved: () => controller.abort(),
      }),
    ).rejects.toMatchObject({ code: 4001 })
    expect(await solanaBalance(node.url, receiver)).toBe(0)
  })

  test('a bad preflight commitment is -32602 with no approval, and nothing moves', async () => {
    const { context, addresses, requestApproval } = await localWallet()
    const receiver = freshSolanaAddress()
    const params = {
      transaction: await transferFrom(addresses.solana, receiver, 1000),
      sendOptions: { preflightCommitment: 'fast' },
    }
    await expect(signAndSend(context, params)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^The preflight commitment must be one of processed/),
    })
    expect(requestApproval).not.toHaveBeenCalled()
    expect(await solanaBalance(node.url, receiver)).toBe(0)
  })

  test('a project that does not offer Solana Local: refused by the proxy before any approval', async () => {
    const { context, addresses, requestApproval, readShare } = await localWallet({
      projectId: 'evm-only',
    })
    const receiver = freshSolanaAddress()
    const params = { transaction: await transferFrom(addresses.solana, receiver, 1000) }
    await expect(signAndSend(context, params)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/does not offer solana:B9Jv/),
    })
    expect(requestApproval).not.toHaveBeenCalled()
    expect(readShare).not.toHaveBeenCalled()
    expect(await solanaBalance(node.url, receiver)).toBe(0)
  })
})
