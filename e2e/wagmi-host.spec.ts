/**
 * The demo's wagmi host (apps/demo/wagmi.html, built from
 * apps/demo/src/wagmiHost.ts): wagmi's unchanged injected connector finds
 * Porthole by EIP-6963, connects through it (the modal opens, the visitor
 * picks the test wallet), and sends a transaction on anvil through it.
 */
import { expect, type Page, test } from '@playwright/test'
import { anvil, workerKey } from '@porthole/dev-stack/anvil'
import { origins } from '@porthole/dev-stack/stack'
import { installTestWallet } from '@porthole/dev-stack/testWallet'
import { parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { hostState, testWalletRow } from './fixtures.ts'

/** The test wallet in the page, the wagmi host, wagmi's connect through Porthole → the test wallet. */
async function connectWagmiHost(page: Page) {
  const wallet = await installTestWallet(page, { privateKey: workerKey(test.info().parallelIndex) })
  await page.goto(`${origins.demo}/wagmi.html`)
  await expect
    .poll(() => page.evaluate(() => window.host?.connectors() ?? []))
    .toEqual(expect.arrayContaining(['xyz.porthole', 'dev.porthole.testwallet']))
  const connecting = page.evaluate(() => window.host.connect())
  await expect.poll(async () => (await hostState(page)).open).toBe(true)
  await testWalletRow(page).click()
  return { wallet, accounts: await connecting }
}

test('a wagmi host finds Porthole by EIP-6963, connects through it and sends a transaction', async ({
  page,
}) => {
  const { wallet, accounts } = await connectWagmiHost(page)
  expect(accounts.map((account) => account.toLowerCase())).toEqual([wallet.address.toLowerCase()])

  const receiver = privateKeyToAccount(generatePrivateKey()).address
  const sent = await page.evaluate(
    ([to, value]) => window.host.send(to as `0x${string}`, BigInt(value)),
    [receiver, parseEther('0.3').toString()] as const,
  )
  expect(sent.status).toBe('success')
  expect(await anvil.getBalance({ address: receiver })).toBe(parseEther('0.3'))
  expect(wallet.requests.map(({ method }) => method)).toContain('eth_sendTransaction')
})

test("a network the site's wagmi has but the project does not offer: 4902 with 'Unsupported chain', the wallet is never asked to add it", async ({
  page,
}) => {
  const { wallet } = await connectWagmiHost(page)

  const failure = await page.evaluate(() => window.host.switchTo(10))
  // wagmi's injected connector answers a 4902 by adding the chain; Porthole refuses the add
  // with the same 4902 (not the wallet's answer). wagmi wraps whatever the add says in its
  // UserRejectedRequestError: the 4902 and the copy are its cause.
  expect(failure).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        code: 4902,
        message: expect.stringContaining('Unsupported chain: chain ID 0xa is not among this site'),
      }),
    ]),
  )
  const methods = wallet.requests.map(({ method }) => method)
  expect(methods).not.toContain('wallet_addEthereumChain')
  expect(methods).not.toContain('wallet_switchEthereumChain')
  expect((await hostState(page)).chainId).toBe('eip155:31337')
})
