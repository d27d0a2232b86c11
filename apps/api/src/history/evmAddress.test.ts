import { createAnvilClients, devKey, type LocalAnvil, startAnvil } from '@porthole/dev-stack/anvil'
import {
  deployTestNft,
  deployTestToken,
  testNftAbi,
  testTokenAbi,
} from '@porthole/dev-stack/contracts'
import { HistoryPage } from '@porthole/protocol/History'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import { readEvmAddressHistory } from './evmAddress.js'

const chainId = 'eip155:31337'
let anvil: LocalAnvil
let testDb: TestDb
const sender = { key: devKey(3), address: privateKeyToAccount(devKey(3)).address }
const receiver = privateKeyToAccount(devKey(4)).address.toLowerCase()

beforeAll(async () => {
  ;[anvil, testDb] = await Promise.all([startAnvil(), createTestDb()])
}, 60_000)
afterAll(async () => {
  await Promise.all([anvil?.stop(), testDb?.close()])
})

const page = (cursor?: string | null, windowBlocks = 5) =>
  readEvmAddressHistory({
    db: testDb.db,
    rpcUrl: anvil.url,
    chainId,
    projectId: 'porthole-dev',
    address: receiver,
    windowBlocks,
    cursor: cursor
      ? (() => {
          const [block, txIndex] = Buffer.from(cursor, 'base64url').toString().split(':')
          return { block: BigInt(block ?? '0'), txIndex: Number(txIndex) }
        })()
      : undefined,
  })

describe('address-scoped EVM history (asked of the node per page)', () => {
  test("the account's token transfers, newest first, paged across windows with nothing lost or repeated", async () => {
    const { walletClient, publicClient } = createAnvilClients({
      rpcUrl: anvil.url,
      privateKey: sender.key,
    })
    const token = await deployTestToken({
      rpcUrl: anvil.url,
      privateKey: sender.key,
      symbol: 'ADDR',
      decimals: 6,
      mint: [{ to: sender.address, amount: 10_000_000n }],
    })
    const hashes: Hex[] = []
    for (let index = 0; index < 24; index++) {
      // Spread over blocks, so the scan crosses windows.
      await publicClient.request({ method: 'anvil_mine', params: ['0x3'] } as never)
      const hash = await walletClient.writeContract({
        address: token.address,
        abi: testTokenAbi,
        functionName: 'transfer',
        args: [receiver as Hex, BigInt(index + 1)],
      })
      await publicClient.waitForTransactionReceipt({ hash })
      hashes.push(hash)
    }
    const nft = await deployTestNft({
      rpcUrl: anvil.url,
      privateKey: sender.key,
      kind: 'erc721',
      name: 'Scoped',
      symbol: 'SCP',
    })
    const mint = await walletClient.writeContract({
      address: nft,
      abi: testNftAbi,
      functionName: 'mint',
      args: [receiver as Hex, 3n],
    })
    await publicClient.waitForTransactionReceipt({ hash: mint })
    // A native transfer: no log, so not seen in this mode (README says so).
    await walletClient.sendTransaction({ to: receiver as Hex, value: 5n })

    const seen: string[] = []
    let cursor: string | null | undefined
    let newest: ReturnType<typeof HistoryPage.parse> | undefined
    for (let request = 0; request < 40; request++) {
      const result = HistoryPage.parse(await page(cursor))
      newest ??= result
      seen.push(...result.data.map((tx) => tx.id))
      cursor = result.next
      if (!cursor) break
    }
    expect(cursor).toBeNull()
    expect(seen).toEqual([mint, ...[...hashes].reverse()])
    expect(newest?.data[0]?.transfers[0]).toMatchObject({
      direction: 'in',
      kind: 'erc721',
      tokenId: '3',
      token: { symbol: 'SCP' },
    })
    const first = HistoryPage.parse(await page(null, 10_000))
    expect(first.data).toHaveLength(20)
    expect(first.data[1]?.transfers[0]).toMatchObject({
      kind: 'erc20',
      amount: '24',
      token: { symbol: 'ADDR', decimals: 6 },
      counterparty: sender.address.toLowerCase(),
    })
    expect(first.data[1]?.metadata).toMatchObject({ chain: chainId, status: 'confirmed' })
  })

  test('a dead node is a 502', async () => {
    await expect(
      readEvmAddressHistory({
        db: testDb.db,
        rpcUrl: 'http://127.0.0.1:9',
        chainId,
        projectId: 'porthole-dev',
        address: receiver,
      }),
    ).rejects.toMatchObject({ status: 502, code: 'history_upstream' })
  })
})
