/**
 * Red-team attacks on the transparent closed frame (loader: opacity 0 and
 * pointer-events none instead of visibility:hidden; widget: closed modal
 * inert; frame mounted after `load` or at the first call). SECURITY.md 6, 7
 * and 17, and focus handling, in Chromium.
 */
import { expect, type Page, test } from '@playwright/test'
import { freshEmail, loginWithEmail, secureFrameOf } from '../embeddedFixtures.ts'
import { expectFrameHidden, hostState, openHost, openModal, origins, widget } from '../fixtures.ts'

type Scope = {
  Wallet: {
    open(): Promise<void>
    close(): Promise<void>
    destroy(): void
    getState(): { open: boolean; view: string; status: string }
    provider: { request(args: { method: string; params?: unknown }): Promise<unknown> }
  }
  early?: Promise<string>
  earlyResult?: string
}

const frameSelector = 'iframe[title="Porthole wallet"]'
const frame = (page: Page) => page.locator(frameSelector)
const hostActive = (page: Page) =>
  page.evaluate(() => {
    const active = document.activeElement
    return active?.getAttribute('title') ?? active?.tagName ?? null
  })

/** The demo host, loaded, with the closed widget rendered in its frame. */
async function loadedHost(page: Page) {
  await openHost(page)
  await page.waitForFunction(() => document.readyState === 'complete')
  await expect(frame(page)).toHaveCount(1)
  await expect(widget(page).locator('[data-wallet-id]').first()).toBeAttached()
  await expectFrameHidden(page)
}

/** Forces the closed frame opaque and clickable, as a hostile host's stylesheet would. */
const forceVisible = (page: Page) =>
  page.addStyleTag({
    content: `${frameSelector}{opacity:1!important;pointer-events:auto!important;visibility:visible!important}`,
  })

test.describe('inv-07 the closed transparent frame', () => {
  test('a host forcing the closed frame opaque and clickable gets no click, focus or key into the widget', async ({
    page,
  }) => {
    await loadedHost(page)
    await forceVisible(page)
    await expect(frame(page)).toHaveCSS('opacity', '1')
    await expect(frame(page)).toHaveCSS('pointer-events', 'auto')
    const email = widget(page).getByPlaceholder('Email')
    const row = widget(page).locator('[data-wallet-id]').first()
    const emailBox = await email.boundingBox()
    const rowBox = await row.boundingBox()
    if (!emailBox || !rowBox) throw new Error('the closed modal is not laid out')
    // The visitor clicks where the email field is, then types.
    await page.mouse.click(emailBox.x + emailBox.width / 2, emailBox.y + emailBox.height / 2)
    await page.keyboard.type('victim@example.com')
    await page.keyboard.press('Enter')
    expect(await email.inputValue()).toBe('')
    expect(await email.evaluate((field) => document.activeElement === field)).toBe(false)
    // A wallet row and the backdrop.
    await page.mouse.click(rowBox.x + rowBox.width / 2, rowBox.y + rowBox.height / 2)
    await page.mouse.click(3, 3)
    // The host focuses the frame itself, then the visitor presses keys.
    await page.evaluate((selector) => document.querySelector<HTMLIFrameElement>(selector)?.focus(), frameSelector)
    for (const key of ['Tab', 'Tab', 'Enter', ' ', 'a', 'Escape']) await page.keyboard.press(key)
    expect(await email.inputValue()).toBe('')
    expect(
      await widget(page)
        .locator('body')
        .evaluate(() => {
          const active = document.activeElement
          return active === document.body || active === null ? 'body' : active.outerHTML.slice(0, 80)
        }),
    ).toBe('body')
    await page.waitForTimeout(500)
    const state = await hostState(page)
    expect(state.open).toBe(false)
    expect(state.view).toBe('Connect')
    expect(state.status).not.toBe('connecting')

    // Positive control: open, the same click and typing reach the field.
    await openModal(page)
    const openBox = await email.boundingBox()
    if (!openBox) throw new Error('no email field')
    await page.mouse.click(openBox.x + openBox.width / 2, openBox.y + openBox.height / 2)
    await page.keyboard.type('visitor@example.com')
    expect(await email.inputValue()).toBe('visitor@example.com')
  })

  test('IntersectionObserver v2 in the widget does not count the transparent frame as visible', async ({
    page,
  }) => {
    await loadedHost(page)
    const visible = () =>
      widget(page)
        .locator('body')
        .evaluate(
          () =>
            new Promise<boolean>((resolve) => {
              const observer = new IntersectionObserver(
                (entries) => {
                  observer.disconnect()
                  resolve((entries[0] as IntersectionObserverEntry & { isVisible: boolean }).isVisible)
                },
                { trackVisibility: true, delay: 100 } as IntersectionObserverInit,
              )
              observer.observe(document.body)
            }),
        )
    expect(await visible()).toBe(false)
    await openModal(page)
    // Control: open, the same observer reports it visible.
    expect(await visible()).toBe(true)
  })

  test('Tab and Shift+Tab around the whole page never land in the closed frame', async ({
    page,
  }) => {
    await loadedHost(page)
    await page.locator('body').click({ position: { x: 2, y: 2 } })
    for (const key of ['Tab', 'Shift+Tab']) {
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
      for (let presses = 0; presses < 8; presses++) {
        await page.keyboard.press(key)
        expect(await hostActive(page)).not.toBe('Porthole wallet')
      }
    }
  })

  test('focus does not stay in the closed frame after a modal opened with nothing focused closes', async ({
    page,
  }) => {
    await loadedHost(page)
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
    expect(await hostActive(page)).toBe('BODY')
    // A page opens the modal from its own code (not a click on a focusable control).
    await openModal(page)
    await page.keyboard.press('Escape')
    await expect.poll(async () => (await hostState(page)).open).toBe(false)
    await expectFrameHidden(page)
    // Where is the visitor's keyboard now?
    const where = await hostActive(page)
    const frameHasFocus = await widget(page)
      .locator('body')
      .evaluate(() => document.hasFocus())
    // The page is scrollable; Space / PageDown should scroll it.
    const before = await page.evaluate(() => scrollY)
    await page.keyboard.press('PageDown')
    await page.waitForTimeout(300)
    const after = await page.evaluate(() => scrollY)
    test.info().annotations.push({
      type: 'focus after close',
      description: JSON.stringify({ where, frameHasFocus, before, after }),
    })
    expect(where, 'focus left in the closed, transparent frame').not.toBe('Porthole wallet')
  })
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
  await page.goto(`${origins.demo}/`, { waitUntil: 'domcontentloaded' })
  return release
}

test.describe('inv-17 calls before the page has a body or has loaded', () => {
  test('open() before <body> with load held: the frame mounts at DOMContentLoaded or open() times out', async ({
    page,
  }) => {
    test.setTimeout(90_000)
    const release = await earlyHost(
      page,
      `if (document.body) throw new Error('body exists'); window.early = Wallet.open().then(() => 'opened', (e) => 'rejected: ' + e.message); window.early.then((r) => { window.earlyResult = r })`,
    )
    expect(await page.evaluate(() => document.readyState)).not.toBe('complete')
    // The body is there: nothing stops the frame from mounting now.
    await page.waitForTimeout(2_000)
    const mounted = await frame(page).count()
    const overflow = await page.evaluate(() => document.documentElement.style.overflow)
    // Past the loader's 20 s iframe load timeout.
    await page.waitForTimeout(21_000)
    const result = await page.evaluate(() => (window as unknown as Scope).earlyResult ?? 'pending')
    test.info().annotations.push({
      type: 'early open()',
      description: JSON.stringify({ mountedAfterDCL: mounted, overflow, after23s: result }),
    })
    release()
    await expect
      .poll(() => page.evaluate(() => (window as unknown as Scope).earlyResult ?? 'pending'))
      .toBe('opened')
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
    expect(outcome).not.toContain('opened')
    expect(outcome).not.toContain('answered')
    await page.waitForTimeout(500)
    await expect(frame(page)).toHaveCount(0)
  })
})

test.describe('inv-06 the secure frame under the closed modal', () => {
  test('after login, the closed modal makes the secure frame inert too', async ({ page }) => {
    await openHost(page)
    await loginWithEmail(page, freshEmail('inert-secure'))
    await page.evaluate(() => (window as unknown as Scope).Wallet.close())
    await expect.poll(async () => (await hostState(page)).open).toBe(false)
    await forceVisible(page)
    const secure = secureFrameOf(page)
    // Instrumentation in S (not a host capability): could anything there take focus?
    const focusable = await secure.evaluate(() => {
      const button = document.createElement('button')
      button.textContent = 'probe'
      document.body.append(button)
      button.focus()
      const result = document.activeElement === button
      button.remove()
      return result
    })
    expect(focusable).toBe(false)
  })
})
