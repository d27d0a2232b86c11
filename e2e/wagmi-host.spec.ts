/**
 * The demo's wagmi host (apps/demo/wagmi.html, built from
 * apps/demo/src/wagmiHost.ts): wagmi's unchanged injected connector finds
 * Porthole by EIP-6963, connects through it (the modal opens, the visitor
 * picks the test wallet), and sends a transaction on anvil through it.
 */
import { expect, test } from '@playwright/test'
import { anvil, workerKey } from '@porthole/dev-stack/anvil'
import { origins } from '@porthole/dev-stack/stack'
import { installTestWallet } from '@porthole/dev-stack/testWallet'
import { parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { hostState, testWalletRow } from './fixtures.ts'

test('a wagmi host finds Porthole by EIP-6963, connects through it and sends a transaction', async ({
  page,
}) => {
  const wallet = await installTestWallet(page, { privateKey: workerKey(test.info().workerIndex) })
  await page.goto(`${origins.demo}/wagmi.html`)
  await expect
    .poll(() => page.evaluate(() => window.host?.connectors() ?? []))
    .toEqual(expect.arrayContaining(['xyz.porthole', 'dev.porthole.testwallet']))

  const connecting = page.evaluate(() => window.host.connect())
  await expect.poll(async () => (await hostState(page)).open).toBe(true)
  await testWalletRow(page).click()
  const accounts = await connecting
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
