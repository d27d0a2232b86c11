/**
 * SECURITY.md 4, with Connect painting before the origin check ends (issue
 * 14): the wallet list shows while the project's allowed origins are read,
 * but a wallet chosen then connects only once the check passes, and never
 * when it fails.
 */
import { type BrowserContext, expect, type Page, test } from '@playwright/test'
import { hostState, openHost, openModal, origins, widget } from '../fixtures.ts'

/** Holds the allowed-origins answer until `release()`, then answers `allowedOrigins` (or the real list). */
async function holdOriginCheck(context: BrowserContext, allowedOrigins?: string[]) {
  let release = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  await context.route(`${origins.api}/projects/v1/origins?*`, async (route) => {
    await released
    if (allowedOrigins === undefined) return route.continue()
    return route.fulfill({
      json: { allowedOrigins },
      headers: { 'access-control-allow-origin': '*' },
    })
  })
  return release
}

const firstWallet = (page: Page) =>
  widget(page)
    .getByRole('list', { name: 'Connect a wallet' })
    .locator('[data-wallet-id]')
    .first()
    .getByRole('button')

test.describe('inv-04 the wallet list before the origin check ends', () => {
  test('the wallets paint while the check runs; one chosen then connects once it passes', async ({
    page,
    context,
  }) => {
    const release = await holdOriginCheck(context)
    await openHost(page)
    await openModal(page)
    const list = widget(page).getByRole('list', { name: 'Connect a wallet' })
    await expect(list.locator('[data-wallet-id]')).toHaveCount(4)
    await expect(list).toHaveAttribute('aria-busy', 'true')
    await firstWallet(page).click()
    // Nothing happens while the origin is unchecked.
    await page.waitForTimeout(500)
    expect((await hostState(page)).view).toBe('Connect')
    release()
    await expect.poll(async () => (await hostState(page)).view).toBe('ConnectingWalletConnect')
  })

  test('a wallet chosen while the check runs is never connected when the host is refused', async ({
    page,
    context,
  }) => {
    const release = await holdOriginCheck(context, ['https://shop.example'])
    await openHost(page)
    await openModal(page)
    await expect(
      widget(page).getByRole('list', { name: 'Connect a wallet' }).locator('[data-wallet-id]'),
    ).toHaveCount(4)
    await firstWallet(page).click()
    release()
    await expect(
      widget(page).getByRole('alert').filter({ hasText: 'Unverified domain' }),
    ).toBeVisible()
    await expect(widget(page).getByRole('list', { name: 'Connect a wallet' })).toHaveCount(0)
    await page.waitForTimeout(500)
    expect((await hostState(page)).view).toBe('Connect')
    expect((await hostState(page)).status).toBe('disconnected')
  })
})
