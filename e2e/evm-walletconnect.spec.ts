/**
 * WalletConnect (issue 3): the widget's universal provider pairs with a real
 * `@reown/walletkit` wallet (in this Node process, signing with a viem account
 * on anvil) over the dev stack's local relay. Pair from the URI, sign and send
 * through the session, and an expired pairing replaced by a fresh one.
 */
import { expect, type Page, test } from '@playwright/test'
import { anvil, anvilUrl, walletConnectKey } from '@porthole/dev-stack/anvil'
import { relayUrl } from '@porthole/dev-stack/stack'
import { createTestWalletKit, type TestWalletKit } from '@porthole/dev-stack/walletKit'
import { type Hex, parseEther, verifyMessage } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { expectWidgetAccessible } from './axe.ts'
import { hostState, openHost, openModal, widget } from './fixtures.ts'
import { connectThroughPairing, pairingUri } from './walletConnectFixtures.ts'

type ProviderWindow = Window & {
  Wallet: { provider: { request(args: { method: string; params?: unknown }): Promise<unknown> } }
}

let kit: TestWalletKit | undefined

test.afterEach(async () => {
  await kit?.close()
  kit = undefined
})

const startKit = async () => {
  kit = await createTestWalletKit({
    relayUrl,
    rpcUrl: anvilUrl,
    privateKey: walletConnectKey(test.info().parallelIndex),
  })
  return kit
}

test('pairs with WalletKit over the local relay from the URI, then signs and sends through it', async ({
  page,
}) => {
  const wallet = await startKit()
  await connectThroughPairing(page, wallet)
  const state = await hostState(page)
  expect(state.address?.toLowerCase()).toBe(wallet.address.toLowerCase())
  expect(state.connector).toBe('WalletConnect')
  expect(state.open).toBe(false)

  // A signature through the host's provider, answered by the wallet over the relay.
  const message = `Porthole over WalletConnect ${Date.now()}`
  const signature = (await page.evaluate(
    ([hex, address]) =>
      (window as unknown as ProviderWindow).Wallet.provider.request({
        method: 'personal_sign',
        params: [hex, address],
      }),
    [`0x${Buffer.from(message).toString('hex')}`, wallet.address] as const,
  )) as Hex
  expect(await verifyMessage({ address: wallet.address, message, signature })).toBe(true)

  // A send from the modal, signed and sent by the wallet.
  const receiver = privateKeyToAccount(generatePrivateKey()).address
  await openModal(page)
  const frame = widget(page)
  await frame.getByRole('button', { name: 'Send', exact: true }).click()
  const select = frame.getByRole('combobox', { name: 'Token' })
  const native = select.locator('option').filter({ hasText: /^ETH/ })
  await select.selectOption((await native.getAttribute('value')) ?? '')
  await frame.getByRole('textbox', { name: 'Amount' }).fill('0.1')
  await frame.getByRole('textbox', { name: 'Receiver address' }).fill(receiver)
  await frame.getByRole('button', { name: 'Preview send' }).click()
  await frame.getByRole('button', { name: 'Send', exact: true }).click()
  await expect(frame.getByRole('dialog', { name: 'Account' })).toBeVisible({ timeout: 30_000 })
  expect(await anvil.getBalance({ address: receiver })).toBe(parseEther('0.1'))
  expect(wallet.requests.map(({ method }) => method)).toEqual(
    expect.arrayContaining(['personal_sign', 'eth_sendTransaction']),
  )

  // Disconnecting ends the session on both sides.
  await frame.getByRole('button', { name: 'Disconnect' }).click()
  await expect.poll(async () => (await hostState(page)).status).toBe('disconnected')
  await expect.poll(() => wallet.sessions().length).toBe(0)
})

test('a rejected pairing offers retry', async ({ page }) => {
  const wallet = await startKit()
  wallet.setBehaviour('reject')
  await openHost(page)
  await openModal(page)
  const uri = await pairingUri(page)
  await expectWidgetAccessible(page, 'ConnectingWalletConnect')
  await wallet.pair(uri)
  const frame = widget(page)
  await expect(frame.getByRole('alert')).toContainText('Connection declined', { timeout: 20_000 })
  await frame.getByRole('button', { name: 'Try again' }).click()
  wallet.setBehaviour('approve')
  await wallet.pair(await freshUri(page))
  await expect
    .poll(async () => (await hostState(page)).status, { timeout: 20_000 })
    .toBe('connected')
})

/** The URI the view shows once it has one. */
async function freshUri(page: Page): Promise<string> {
  const link = widget(page).getByRole('link', { name: 'Open in a desktop wallet' })
  await expect(link).toHaveAttribute('href', /^wc:/, { timeout: 20_000 })
  return (await link.getAttribute('href')) as string
}

test('an expired pairing is replaced by a fresh one, which pairs', async ({ page }) => {
  await page.clock.install()
  const wallet = await startKit()
  await openHost(page)
  await openModal(page)
  const first = await pairingUri(page)
  // 3 min 50 s later the URI has 10 s left: it counts as expired (SPEC 4).
  await page.clock.fastForward('03:51')
  const frame = widget(page)
  await expect(frame.getByRole('status').filter({ hasText: 'expired' })).toBeVisible({
    timeout: 20_000,
  })
  const link = frame.getByRole('link', { name: 'Open in a desktop wallet' })
  await expect(link).not.toHaveAttribute('href', first, { timeout: 20_000 })
  const second = await freshUri(page)
  expect(second).not.toBe(first)
  await wallet.pair(second)
  await expect
    .poll(async () => (await hostState(page)).status, { timeout: 20_000 })
    .toBe('connected')
})
