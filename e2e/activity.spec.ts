/**
 * Activity (issue 16): the account's history from the API's own indexer on
 * the dev stack's anvil. Each test uses a fresh account, funded with
 * `anvil_setBalance`, so its history holds only what the test made.
 */
import { expect, type Page, test } from '@playwright/test'
import { anvil, anvilUrl, createAnvilClients } from '@porthole/dev-stack/anvil'
import { deployTestNft, testNftAbi } from '@porthole/dev-stack/contracts'
import { ports, projects } from '@porthole/dev-stack/stack'
import { installTestWallet, type TestWallet } from '@porthole/dev-stack/testWallet'
import { type Address, getAddress, type Hex, parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { expectWidgetAccessible } from './axe.ts'
import { hostState, openHost, openModal, widget } from './fixtures.ts'

const fund = (address: Address) =>
  anvil.request({
    method: 'anvil_setBalance' as never,
    params: [address, `0x${parseEther('100').toString(16)}`] as never,
  })

/** A fresh funded account's clients on the dev anvil. */
async function freshSender() {
  const key = generatePrivateKey()
  await fund(privateKeyToAccount(key).address)
  return { key, ...createAnvilClients({ rpcUrl: anvilUrl, privateKey: key }) }
}

/** The demo host with a fresh account's test wallet, connected. */
async function connected(page: Page): Promise<TestWallet> {
  const key = generatePrivateKey()
  await fund(privateKeyToAccount(key).address)
  const wallet = await installTestWallet(page, { privateKey: key })
  await openHost(page)
  await openModal(page)
  await widget(page)
    .getByRole('list', { name: 'Connect a wallet' })
    .getByRole('button', { name: /Porthole Test Wallet/ })
    .click()
  await expect.poll(async () => (await hostState(page)).status).toBe('connected')
  return wallet
}

const thisMonth = () =>
  new Intl.DateTimeFormat('en-US', { month: 'long', year: 'numeric' }).format(new Date())

test.describe('Activity', () => {
  test('a transfer shows under its month with its amount; spam is hidden; scrolling crosses a page', async ({
    page,
  }) => {
    test.setTimeout(90_000)
    const sender = await freshSender()
    const wallet = await connected(page)
    const to = wallet.address as Address
    // 21 transfers: one more than a page, the newest 1.234 ETH.
    let last: Hex = '0x'
    for (let index = 0; index < 20; index++)
      last = await sender.walletClient.sendTransaction({ to, value: BigInt(index + 1) * 1000n })
    await sender.publicClient.waitForTransactionReceipt({ hash: last })
    const transfer = await sender.walletClient.sendTransaction({ to, value: parseEther('1.234') })
    // A spam collection: minted to 20 accounts in one transaction, this one among them.
    const spam = await deployTestNft({
      rpcUrl: anvilUrl,
      privateKey: sender.key,
      kind: 'erc721',
      name: 'Free Claim',
      symbol: 'CLAIM',
    })
    const recipients = Array.from({ length: 20 }, (_, index) =>
      getAddress(`0x${(index + 1).toString(16).padStart(40, 'a')}`),
    )
    recipients[0] = to
    const airdrop = await sender.walletClient.writeContract({
      address: spam,
      abi: testNftAbi,
      functionName: 'airdrop',
      args: [recipients, 1n],
    })
    await sender.publicClient.waitForTransactionReceipt({ hash: airdrop })

    // The indexer follows the chain about every second: wait until the API has the airdrop.
    const history = `http://127.0.0.1:${ports.api}/account/${to}/history?projectId=${projects.dev.id}&chainId=eip155:31337`
    await expect
      .poll(async () => JSON.stringify(await (await fetch(history)).json()), { timeout: 30_000 })
      .toContain(airdrop)

    const frame = widget(page)
    await openModal(page)
    await frame.getByRole('button', { name: /^Activity/ }).click()
    const dialog = frame.getByRole('dialog', { name: 'Activity' })
    const month = dialog.getByRole('region', { name: thisMonth() })
    const row = month.locator(`[data-hash="${transfer}"]`)
    await expect(row).toContainText('Received')
    await expect(row.getByTestId('activity-amount')).toHaveText('+1.234 ETH')
    // The airdrop's only transfer is spam: the transaction is not listed.
    await expect(dialog.locator(`[data-hash="${airdrop}"]`)).toHaveCount(0)
    // 22 transactions, 20 a page: the first page shows 19 (the airdrop is dropped here,
    // by the seed's rule), scrolling to its end loads the last 2.
    await expect(dialog.getByTestId('activity-row')).toHaveCount(19)
    await dialog.getByTestId('activity-row').last().scrollIntoViewIfNeeded()
    await expect(dialog.getByTestId('activity-row')).toHaveCount(21)
    await expect(dialog.getByTestId('activity-row').last()).toContainText('+<0.001 ETH')
    await expectWidgetAccessible(page, 'Activity')
  })

  test('an account with no transactions says so', async ({ page }) => {
    await connected(page)
    const frame = widget(page)
    await openModal(page)
    await frame.getByRole('button', { name: /^Activity/ }).click()
    await expect(frame.getByTestId('activity-empty')).toHaveText(
      'No transactions on this network yet',
    )
  })

  test('a failed fetch says so and retries', async ({ page }) => {
    await connected(page)
    let fail = true
    await page.route('**/account/*/history?**', (route) =>
      fail ? route.fulfill({ status: 503, body: '{}' }) : route.fallback(),
    )
    const frame = widget(page)
    await openModal(page)
    await frame.getByRole('button', { name: /^Activity/ }).click()
    await expect(frame.getByRole('alert')).toHaveText('Failed to fetch transactions')
    fail = false
    await frame.getByRole('button', { name: 'Try again' }).click()
    await expect(frame.getByTestId('activity-empty')).toBeVisible()
  })
})
