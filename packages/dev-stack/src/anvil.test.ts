import { describe, expect, test } from 'vitest'
import { createAnvilClients, startAnvil } from './anvil.ts'

/** Anvil's second default dev account. */
const DEV_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'

describe('startAnvil', () => {
  test('starts a node on a free port with the chain id asked, and stops it', async () => {
    const anvil = await startAnvil({ chainId: 8453 })
    expect(anvil.url).toBe(`http://127.0.0.1:${anvil.port}`)
    const { publicClient } = createAnvilClients({
      rpcUrl: anvil.url,
      privateKey: DEV_KEY,
      chainId: 8453,
    })
    expect(await publicClient.getChainId()).toBe(8453)

    await anvil.stop()
    await expect(publicClient.getChainId()).rejects.toThrow()
    // A second stop has nothing left to wait for.
    await anvil.stop()
  })

  test('fails with what anvil wrote to stderr when it does not start', async () => {
    await expect(startAnvil({ chainId: -1 })).rejects.toThrow(
      /^anvil exited with .*unexpected argument '-1'/s,
    )
  })
})

describe('createAnvilClients', () => {
  test("binds the key's account and the node's chain (31337 unless told) to both clients", () => {
    const { account, publicClient, walletClient } = createAnvilClients({
      rpcUrl: 'http://127.0.0.1:8545',
      privateKey: DEV_KEY,
    })
    expect(account.address).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8')
    expect(walletClient.account).toBe(account)
    expect([publicClient.chain.id, walletClient.chain.id]).toEqual([31337, 31337])
    expect(publicClient.chain.rpcUrls.default.http).toEqual(['http://127.0.0.1:8545'])
  })
})
