/**
 * SECURITY.md 4, nested framing: the widget checks every ancestor's origin
 * (`location.ancestorOrigins`, which Chromium provides), not only its
 * parent's. The demo host, an allowed origin, framed by a page on a site the
 * project does not list, is refused with the unverified-domain alert naming
 * that site; the same host at top level gets the wallets.
 */
import { expect, type Frame, type Page, test } from '@playwright/test'
import { hostState, openHost, openModal, origins, widget } from '../fixtures.ts'

type WalletWindow = Window & {
  Wallet?: {
    getState(): unknown
    open(): Promise<void>
    provider: { request(args: { method: string }): Promise<unknown> }
  }
}

const hostTitle = 'Allowed host'

/** A page on the unlisted site whose only content is the allowed demo host, in a frame. */
async function frameAllowedHost(page: Page): Promise<Frame> {
  await page.goto(`${origins.evil}/attacker.html`)
  await page.evaluate(
    ({ src, title }) => {
      const iframe = document.createElement('iframe')
      iframe.title = title
      iframe.src = src
      iframe.style.width = '960px'
      iframe.style.height = '720px'
      document.body.replaceChildren(iframe)
    },
    { src: `${origins.demo}/`, title: hostTitle },
  )
  const element = await page.locator(`iframe[title="${hostTitle}"]`).elementHandle()
  const host = await element?.contentFrame()
  if (!host) throw new Error('The allowed host frame did not load')
  await host.waitForFunction(
    (origin) =>
      location.origin === origin && typeof (window as WalletWindow).Wallet?.getState === 'function',
    origins.demo,
  )
  return host
}

test.describe('inv-04 nested framing', () => {
  test('an allowed host framed by an unlisted site gets the unverified-domain alert naming that site', async ({
    page,
  }) => {
    const warnings: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'warning' && message.text().startsWith('[Porthole]'))
        warnings.push(message.text())
    })
    const host = await frameAllowedHost(page)
    await host.evaluate(() => (window as WalletWindow).Wallet?.open())
    const frame = page
      .frameLocator(`iframe[title="${hostTitle}"]`)
      .frameLocator('iframe[title="Porthole wallet"]')
    await expect(frame.getByRole('dialog', { name: 'Connect Wallet' })).toBeVisible()
    const alert = frame.getByRole('alert').filter({ hasText: 'Unverified domain' })
    await expect(alert).toBeVisible()
    await expect(alert).toContainText(`embedded in a page on ${origins.evil}`)
    await expect(alert).toContainText(`npm run project -- set-origins --id porthole-dev`)
    // No wallets, no secure frame.
    await expect(frame.getByRole('list')).toHaveCount(0)
    await expect(frame.getByRole('button', { name: /All wallets/ })).toHaveCount(0)
    await expect(frame.locator('iframe')).toHaveCount(0)
    // The site's developer is told which ancestor is refused.
    await expect
      .poll(() => warnings.join('\n'))
      .toContain(`Origin ${origins.demo} is framed by ${origins.evil}`)
    // And wallet features are refused to the framed host (4100, unauthorized).
    const code = await host.evaluate(() =>
      (window as WalletWindow).Wallet?.provider.request({ method: 'eth_accounts' }).then(
        () => null,
        (error: { code: number }) => error.code,
      ),
    )
    expect(code).toBe(4100)
  })

  test('the same host at top level shows the wallets', async ({ page }) => {
    await openHost(page)
    await openModal(page)
    const frame = widget(page)
    await expect(
      frame.getByRole('list', { name: 'Connect a wallet' }).locator('[data-wallet-id]'),
    ).toHaveCount(4)
    await expect(frame.getByRole('alert')).toHaveCount(0)
    expect((await hostState(page)).open).toBe(true)
  })
})
