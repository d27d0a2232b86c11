import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAnvilClients, devKey, type LocalAnvil, startAnvil } from '@porthole/dev-stack/anvil'
import { HistoryPage } from '@porthole/protocol/History'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type ApiProcess, baseEnv, startApiProcess } from '../../test/process.js'

let anvil: LocalAnvil
let dir: string
const processes: ApiProcess[] = []
const receiver = privateKeyToAccount(devKey(7)).address
const transfers = 12

beforeAll(async () => {
  ;[anvil, dir] = await Promise.all([startAnvil(), mkdtemp(join(tmpdir(), 'porthole-history-'))])
}, 60_000)

afterAll(async () => {
  await Promise.all(processes.map((api) => api.kill()))
  await anvil?.stop()
  if (dir) await rm(dir, { recursive: true, force: true })
})

/** Every transaction of `receiver` the API serves, following the cursor. */
async function served(api: ApiProcess): Promise<string[]> {
  const ids: string[] = []
  let cursor: string | null = null
  do {
    const query = new URLSearchParams({ projectId: 'porthole-dev', chainId: 'eip155:31337' })
    if (cursor) query.set('cursor', cursor)
    const response = await fetch(`${api.url}/account/${receiver}/history?${query}`)
    const page = HistoryPage.parse(await response.json())
    ids.push(...page.data.map((tx) => tx.id))
    cursor = page.next
  } while (cursor)
  return ids
}

test('an API killed mid-indexing (SIGKILL) and started again loses and repeats nothing', async () => {
  // 12 transfers, each after 250 empty blocks: about 3,000 blocks to read. Half are made
  // while the first API starts, the rest while the second does, so the kill lands midway.
  const { walletClient, publicClient } = createAnvilClients({
    rpcUrl: anvil.url,
    privateKey: devKey(6),
  })
  const hashes: Hex[] = []
  const make = async (count: number) => {
    for (let index = 0; index < count; index++) {
      await publicClient.request({ method: 'anvil_mine', params: ['0xfa'] } as never)
      hashes.push(await walletClient.sendTransaction({ to: receiver, value: BigInt(index + 1) }))
    }
    await publicClient.waitForTransactionReceipt({ hash: hashes.at(-1) as Hex })
  }

  const env = {
    ...baseEnv,
    PGLITE_DIR: dir,
    RPC_UPSTREAMS: JSON.stringify({ 'eip155:31337': anvil.url }),
    IP_LIMIT_SCALE: '1000',
  }
  const [first] = await Promise.all([startApiProcess(env), make(transfers / 2)])
  processes.push(first)
  // Killed once some, not all, are stored.
  await expect
    .poll(async () => (await served(first)).length, { interval: 20, timeout: 60_000 })
    .toBeGreaterThan(0)
  const before = (await served(first)).length
  await first.kill()
  expect(before).toBeLessThan(transfers)

  // It held the network's lease: the second takes over once that lapses (10 s).
  const [second] = await Promise.all([startApiProcess(env), make(transfers / 2)])
  processes.push(second)
  await expect
    .poll(async () => (await served(second)).length, { interval: 200, timeout: 60_000 })
    .toBe(transfers)
  const ids = await served(second)
  expect(new Set(ids).size).toBe(transfers)
  expect(ids).toEqual(hashes.map((hash) => hash.toLowerCase()).reverse())
}, 180_000)
