/**
 * SECURITY.md 18, strict parsing, for the host's chain requests (red team,
 * issue 15): `wallet_switchEthereumChain` and `wallet_addEthereumChain` take
 * one `{ chainId }` in EIP-3326's hex form, or -32602; a network the project
 * does not offer is 4902 for both; an offered one is switched to (added with
 * the widget's own parameters if the wallet lacks it). Nothing the host
 * wrote (another id form, a second entry, its own RPC URL or name) reaches
 * the wallet.
 */
import { expect, test } from '@playwright/test'
import { workerKey } from '@porthole/dev-stack/anvil'
import { installTestWallet } from '@porthole/dev-stack/testWallet'
import { hostState, openHost, openModal, testWalletRow } from '../fixtures.ts'

type ProviderWindow = Window & {
  Wallet: { provider: { request(args: { method: string; params?: unknown }): Promise<unknown> } }
}

test('inv-18 chain ids in any other form, extra entries and host-written chain parameters never reach the wallet', async ({
  page,
}) => {
  const wallet = await installTestWallet(page, { privateKey: workerKey(test.info().parallelIndex) })
  await openHost(page)
  await openModal(page)
  await testWalletRow(page).click()
  await expect.poll(async () => (await hostState(page)).status).toBe('connected')
  const ask = (method: string, params: unknown) =>
    page.evaluate(
      ({ method, params }) =>
        (window as unknown as ProviderWindow).Wallet.provider.request({ method, params }).then(
          () => 'ok',
          (error: { code?: number }) => error.code,
        ),
      { method, params },
    )
  const before = wallet.requests.length
  for (const method of ['wallet_addEthereumChain', 'wallet_switchEthereumChain'])
    for (const params of [
      [{ chainId: '8453' }],
      [{ chainId: '0x0001' }],
      [{ chainId: '0b1' }],
      [{ chainId: ' 0x1 ' }],
      [{ chainId: 1 }],
      [{ chainId: '0x1' }, { chainId: '0xa' }],
      { chainId: '0x1' },
    ])
      expect([method, params, await ask(method, params)]).toEqual([method, params, -32602])
  // Not offered (OP Mainnet): 4902 for both.
  expect(
    await ask('wallet_addEthereumChain', [
      { chainId: '0xa', rpcUrls: ['https://evil.example/rpc'] },
    ]),
  ).toBe(4902)
  expect(await ask('wallet_switchEthereumChain', [{ chainId: '0xA' }])).toBe(4902)
  expect(wallet.requests.slice(before)).toEqual([])

  // Offered (Sepolia, which the test wallet lacks): the widget's own parameters, not the host's.
  const added = await ask('wallet_addEthereumChain', [
    {
      chainId: '0xaa36a7',
      chainName: 'Ethereum Mainnet',
      rpcUrls: ['https://evil.example/rpc'],
      blockExplorerUrls: ['https://evil.example/scan'],
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    },
  ])
  expect(added).toBe('ok')
  expect((await hostState(page)).chainId).toBe('eip155:11155111')
  const sent = wallet.requests.slice(before)
  expect(sent.map(({ method }) => method)).toContain('wallet_addEthereumChain')
  expect(JSON.stringify(sent)).not.toContain('evil.example')
  expect(JSON.stringify(sent)).not.toContain('Ethereum Mainnet')
})
