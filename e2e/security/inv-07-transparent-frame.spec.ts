/**
 * Red-team attacks on the transparent closed frame (loader: opacity 0 and
 * pointer-events none instead of visibility:hidden; widget: closed modal
 * inert; frame mounted after `load` or at the first call). SECURITY.md 6, 7
 * and 17, and focus handling, in Chromium.
 */
import { expect, type Page, test } from '@playwright/test'
import { freshEmail, loginWithEmail, secureFrameOf } from '../embeddedFixtures.ts'
import { expectFrameHidden, hostState, openHost, openModal, widget } from '../fixtures.ts'

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
    await page.evaluate(
      (selector) => document.querySelector<HTMLIFrameElement>(selector)?.focus(),
      frameSelector,
    )
    for (const key of ['Enter', ' ', 'a', 'Escape']) {
      await page.keyboard.press(key)
      expect(await hostActive(page)).toBe('Porthole wallet')
    }
    expect(await email.inputValue()).toBe('')
    expect(
      await widget(page)
        .locator('body')
        .evaluate(() => {
          const active = document.activeElement
          return active === document.body || active === null
            ? 'body'
            : active.outerHTML.slice(0, 80)
        }),
    ).toBe('body')
    // Tab from the focused closed frame goes back to the page, never into the modal.
    await page.keyboard.press('Tab')
    console.log('after Tab from the closed frame, host focus:', await hostActive(page))
    expect(await email.evaluate((field) => document.activeElement === field)).toBe(false)
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
                  resolve(
                    (entries[0] as IntersectionObserverEntry & { isVisible: boolean }).isVisible,
                  )
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
    console.log('focus after close', JSON.stringify({ where, frameHasFocus, before, after }))
    test.info().annotations.push({
      type: 'focus after close',
      description: JSON.stringify({ where, frameHasFocus, before, after }),
    })
    // Control (what visibility:hidden did before the change): Chromium moves focus out of a hidden frame.
    const control = await page.evaluate(async (selector) => {
      const iframe = document.querySelector<HTMLIFrameElement>(selector)
      if (!iframe) return null
      iframe.style.visibility = 'hidden'
      await new Promise((resolve) => setTimeout(resolve, 100))
      const active = document.activeElement?.tagName ?? null
      iframe.style.visibility = ''
      return active
    }, frameSelector)
    console.log('with visibility:hidden, host focus:', control)
    expect(where, 'focus left in the closed, transparent frame').not.toBe('Porthole wallet')
  })
})

test.describe('inv-06 the secure frame under the closed modal', () => {
  test('after login, the closed modal makes the secure frame inert too', async ({ page }) => {
    await openHost(page)
    await loginWithEmail(page, freshEmail('inert'))
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
