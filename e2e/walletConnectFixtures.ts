/** The WalletConnect e2e's shared steps: the pairing URI the widget's Connect view offers, and a pairing. */
import { expect, type Page } from '@playwright/test'
import { hostState, openHost, openModal, widget } from './fixtures.ts'

/** Connect → WalletConnect; resolves with the pairing URI the view offers. */
export async function pairingUri(page: Page): Promise<string> {
  const frame = widget(page)
  await frame
    .getByRole('list', { name: 'Connect a wallet' })
    .getByRole('button', { name: /WalletConnect/ })
    .click()
  await expect(frame.getByRole('dialog', { name: 'WalletConnect' })).toBeVisible()
  await expect(frame.getByRole('img', { name: 'WalletConnect pairing QR code' })).toBeVisible({
    timeout: 20_000,
  })
  const uri = await frame
    .getByRole('link', { name: 'Open in a desktop wallet' })
    .getAttribute('href')
  expect(uri).toMatch(/^wc:[0-9a-f]{64}@2\?/)
  return uri as string
}

/** Opens the demo host's modal and pairs `wallet` from its URI; resolves once the host sees a connection. */
export async function connectThroughPairing(
  page: Page,
  wallet: { pair(uri: string): Promise<void> },
): Promise<void> {
  await openHost(page)
  await openModal(page)
  await wallet.pair(await pairingUri(page))
  await expect
    .poll(async () => (await hostState(page)).status, { timeout: 20_000 })
    .toBe('connected')
}
