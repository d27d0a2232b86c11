/**
 * Pending transactions (issue 16): a send the node has not mined shows as
 * pending on Account and in Activity, survives a reload, and turns into a
 * mined transaction once its receipt is seen (the e2e project polls every
 * 2 s: `npm start`'s e2e set-up).
 *
 * Holding a transaction pending means turning the shared anvil's automine
 * off, which would stall every other test's sends: this file runs alone,
 * after all the others (playwright.config.ts's `alone` project).
 */
import { expect, test } from '@playwright/test'
import { anvil } from '@porthole/dev-stack/anvil'
import { installTestWallet } from '@porthole/dev-stack/testWallet'
import { parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { fillSend, hostState, openHost, openModal, widget } from './fixtures.ts'

const automine = (on: boolean) =>
  anvil.request({ method: 'evm_setAutomine' as never, params: [on] as never })

test('a pending send shows on Account and in Activity, survives a reload, and turns into a mined one', async ({
  page,
}) => {
  test.setTimeout(90_000)
  const key = generatePrivateKey()
  const address = privateKeyToAccount(key).address
  await anvil.request({
    method: 'anvil_setBalance' as never,
    params: [address, `0x${parseEther('10').toString(16)}`] as never,
  })
  await installTestWallet(page, { privateKey: key })
  await openHost(page)
  await openModal(page)
  const frame = widget(page)
  await frame
    .getByRole('list', { name: 'Connect a wallet' })
    .getByRole('button', { name: /Porthole Test Wallet/ })
    .click()
  await expect.poll(async () => (await hostState(page)).status).toBe('connected')

  const receiver = privateKeyToAccount(generatePrivateKey()).address
  await automine(false)
  try {
    await fillSend(page, { token: /^ETH/, amount: '0.5', receiver })
    await frame.getByRole('button', { name: 'Send', exact: true }).click()
    await expect(
      frame.getByRole('status').filter({ hasText: /Waiting for confirmation/ }),
    ).toBeVisible()

    // A reload: the pending send is still there.
    await page.reload()
    await expect.poll(async () => (await hostState(page)).status).toBe('connected')
    await openModal(page)
    await expect(frame.getByTestId('account-pending')).toHaveText('Pending transactions: 1')
    await frame.getByRole('button', { name: /^Activity/ }).click()
    const pending = frame.getByTestId('activity-pending')
    await expect(pending).toHaveCount(1)
    await expect(pending).toContainText('−0.5 ETH')
    const hash = (await pending.getAttribute('data-hash'))?.toLowerCase()
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/)

    // Mined: the next poll sees the receipt, the indexer has it, the row is a mined one.
    await anvil.request({ method: 'evm_mine' as never })
    await expect(frame.getByTestId('activity-pending')).toHaveCount(0, { timeout: 15_000 })
    const mined = frame.locator(`[data-testid="activity-row"][data-hash="${hash}"]`)
    await expect(mined).toBeVisible({ timeout: 15_000 })
    await expect(mined.getByTestId('activity-amount')).toHaveText('−0.5 ETH')
  } finally {
    await automine(true)
  }
})
