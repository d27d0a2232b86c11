/**
 * Red-team attacks on the loader's deferred start (SECURITY.md 17): calls made
 * before the page has a body or has loaded, and destroy() before load.
 */
import { expect, type Page, test } from '@playwright/test'
import { chromiumArgs } from '../../playwright.config.ts'
import { expectFrameHidden, origins } from '../fixtures.ts'

type Scope = {
  Wallet: {
    open(): Promise<void>
    destroy(): void
    provider: { request(args: { method: string; params?: unknown }): Promise<unknown> }
  }
  earlyResult?: string
}

const frame = (page: Page) => page.locator('iframe[title="Porthole wallet"]')

// The rewritten page is a route-fulfilled document, which Chromium puts in the
// public address space: let it load the loopback widget as the real page does.
test.use({
  launchOptions: {
    executablePath: '/usr/bin/chromium',
    args: chromiumArgs.map((arg) =>
      arg.startsWith('--disable-features=') ? `${arg},LocalNetworkAccessChecks` : arg,
    ),
  },
})

/** The demo page rewritten: loader.js runs synchronously in <head> (no body yet), then `head`; an image holds `load`. */
async function earlyHost(page: Page, head: string) {
  let release = () => {}
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  await page.route(`${origins.demo}/held.png`, async (route) => {
    await held
    await route.fulfill({ status: 404 })
  })
  await page.route(`${origins.demo}/`, async (route) => {
    const response = await route.fetch()
    let html = await response.text()
    html = html.replace('<script async src=', '<script src=')
    html = html.replace(
      '<script type="module" src="/demo.js"></script>',
      `<script type="module" src="/demo.js"></script><script>${head}</script>`,
    )
    html = html.replace('</main>', '</main><img src="/held.png" alt="">')
    await route.fulfill({ response, body: html })
  })
  page.on('pageerror', (error) => console.log('pageerror', error.message))
  await page.goto(`${origins.demo}/`, { waitUntil: 'domcontentloaded' })
  return release
}

const earlyResult = (page: Page) =>
  page.evaluate(() => (window as unknown as Scope).earlyResult ?? 'pending')

test.describe('inv-17 calls before the page has a body or has loaded', () => {
  test('open() before <body> with load held: the frame mounts once there is a body, or open() times out', async ({
    page,
  }) => {
    test.setTimeout(90_000)
    const release = await earlyHost(
      page,
      `if (document.body) throw new Error('body exists'); Wallet.open().then(() => 'opened', (e) => 'rejected: ' + e.message).then((r) => { window.earlyResult = r })`,
    )
    expect(await page.evaluate(() => document.readyState)).not.toBe('complete')
    await page.waitForTimeout(2_000)
    const mounted = await frame(page).count()
    const overflow = await page.evaluate(() => document.documentElement.style.overflow)
    // Past the loader's 20 s iframe load timeout.
    await page.waitForTimeout(21_000)
    const result = await earlyResult(page)
    console.log(
      'early open()',
      JSON.stringify({ mountedAfterDCL: mounted, overflow, after23s: result }),
    )
    release()
    await expect.poll(() => earlyResult(page)).toBe('opened')
    expect(result, 'open() waits on the page load with no timeout').not.toBe('pending')
  })

  test('a provider request after DOMContentLoaded but before load mounts the frame and is answered', async ({
    page,
  }) => {
    const release = await earlyHost(page, '')
    expect(await page.evaluate(() => document.readyState)).not.toBe('complete')
    await expect(frame(page)).toHaveCount(0)
    const answer = await page.evaluate(() =>
      (window as unknown as Scope).Wallet.provider.request({ method: 'eth_accounts' }).then(
        (result) => ({ result }),
        (error: { code?: number }) => ({ error: error.code }),
      ),
    )
    expect(answer).toEqual({ result: [] })
    await expect(frame(page)).toHaveCount(1)
    await expectFrameHidden(page)
    expect(await page.evaluate(() => document.readyState)).not.toBe('complete')
    release()
  })

  test('destroy() before <body>, then load: no frame, and later calls reject', async ({ page }) => {
    const release = await earlyHost(page, 'Wallet.destroy()')
    release()
    await page.waitForFunction(() => document.readyState === 'complete')
    await page.waitForTimeout(500)
    await expect(frame(page)).toHaveCount(0)
    const outcome = await page.evaluate(() => {
      const { Wallet } = window as unknown as Scope
      return Promise.all([
        Wallet.open().then(
          () => 'opened',
          (error: Error) => error.name,
        ),
        Wallet.provider.request({ method: 'eth_accounts' }).then(
          () => 'answered',
          (error: Error) => error.name,
        ),
      ])
    })
    console.log('after destroy', outcome)
    expect(outcome).not.toContain('opened')
    expect(outcome).not.toContain('answered')
    await page.waitForTimeout(500)
    await expect(frame(page)).toHaveCount(0)
  })
})
