/**
 * Accessibility beyond axe's rules (issue 14): every flow by keyboard alone
 * from the host's own Connect button (a wallet, send, network, disconnect;
 * email login with its code; approval in the secure frame and its window;
 * sign-in), focus kept in the modal while open and given back to the host's
 * button on close, no motion under `prefers-reduced-motion`, text at 200 %
 * without loss; and axe on the views no other flow shows.
 */
import { expect, type Frame, type Locator, type Page, test } from '@playwright/test'
import { workerKey } from '@porthole/dev-stack/anvil'
import { mailCount, waitForCode } from '@porthole/dev-stack/stackMail'
import { installTestWallet } from '@porthole/dev-stack/testWallet'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { expectPageAccessible, expectWidgetAccessible } from './axe.ts'
import {
  freshEmail,
  pendingOutcome,
  secureFrame,
  secureFrameOf,
  startRequest,
} from './embeddedFixtures.ts'
import { hostState, openHost, origins, scanQr, testWalletRow, widget } from './fixtures.ts'

const hostButton = (page: Page) => page.getByRole('button', { name: 'Connect', exact: true })

function widgetFrameOf(page: Page): Frame {
  const frame = page.frames().find((candidate) => candidate.url().startsWith(origins.widget))
  if (!frame) throw new Error('The widget frame is not loaded')
  return frame
}

/** Whether `target` has the keyboard focus: its document's active element, in a focused window. */
const hasFocus = (target: Locator) =>
  target.evaluate((element) => element === document.activeElement && document.hasFocus())

/** Presses `key` until `target` has focus (at most `max` times). */
async function pressUntilFocused(page: Page, target: Locator, key = 'Tab', max = 25) {
  for (let presses = 0; presses < max; presses++) {
    if ((await target.count()) && (await hasFocus(target))) return
    await page.keyboard.press(key)
  }
  await expect.poll(() => hasFocus(target), { timeout: 1_000 }).toBe(true)
}

/** The host's button, focused, opens the modal with Enter; the view's first control has focus. */
async function openByKeyboard(page: Page) {
  await hostButton(page).focus()
  await page.keyboard.press('Enter')
  await expect.poll(async () => (await hostState(page)).open).toBe(true)
  await expect(widget(page).getByRole('dialog')).toBeVisible()
  await expect(page.locator('iframe[title="Porthole wallet"]')).toBeFocused()
}

/** The modal closed and the host's button has focus again. */
async function expectClosedToHost(page: Page) {
  await expect.poll(async () => (await hostState(page)).open).toBe(false)
  await expect(hostButton(page)).toBeFocused()
}

/**
 * Presses `key` round the card: focus visits each control once, never leaves
 * the dialog nor reaches the host page, and comes back where it started.
 * Answers the number of stops.
 */
async function cycleFocus(page: Page, key: 'Tab' | 'Shift+Tab'): Promise<number> {
  const frame = widgetFrameOf(page)
  const position = () =>
    frame.evaluate(() => {
      const dialog = document.querySelector('[role="dialog"]')
      const active = document.activeElement
      if (!dialog || !active || !dialog.contains(active)) return -1
      return Array.from(dialog.querySelectorAll('*')).indexOf(active)
    })
  const start = await position()
  expect(start).toBeGreaterThanOrEqual(0)
  const seen = new Set<number>()
  for (let presses = 1; presses <= 30; presses++) {
    await page.keyboard.press(key)
    expect(await page.evaluate(() => document.activeElement?.getAttribute('title'))).toBe(
      'Porthole wallet',
    )
    const now = await position()
    expect(now, 'focus left the dialog').toBeGreaterThanOrEqual(0)
    if (now === start) return presses
    expect(seen.has(now), 'focus came back before visiting every control').toBe(false)
    seen.add(now)
  }
  throw new Error(`${key} never brought focus back to where it started`)
}

test.describe('keyboard alone', () => {
  test('open, a wallet, send, switch network, disconnect; focus trapped, then back on the host button', async ({
    page,
  }) => {
    test.setTimeout(90_000)
    await installTestWallet(page, { privateKey: workerKey(test.info().parallelIndex) })
    await openHost(page)
    const frame = widget(page)

    await openByKeyboard(page)
    await expect(frame.getByRole('textbox', { name: 'Email' })).toBeFocused()
    // Tab wraps from the last control to the first, Shift+Tab the other way, same stops.
    const stops = await cycleFocus(page, 'Tab')
    expect(stops).toBeGreaterThan(4)
    expect(await cycleFocus(page, 'Shift+Tab')).toBe(stops)
    await page.keyboard.press('Escape')
    await expectClosedToHost(page)

    await openByKeyboard(page)
    await pressUntilFocused(page, testWalletRow(page))
    await page.keyboard.press('Enter')
    await expect.poll(async () => (await hostState(page)).status).toBe('connected')
    await expectClosedToHost(page)

    // Send: Account → Send; the token by arrow key, amount, receiver, Enter, then Send.
    await openByKeyboard(page)
    await expect(frame.getByRole('dialog', { name: 'Account' })).toBeVisible()
    await pressUntilFocused(page, frame.getByRole('button', { name: 'Send', exact: true }))
    await page.keyboard.press('Enter')
    const token = frame.getByRole('combobox', { name: 'Token' })
    await expect(token).toBeFocused()
    await page.keyboard.press('ArrowDown')
    await expect(token).toHaveValue('native')
    await page.keyboard.press('Tab')
    await page.keyboard.type('0.01')
    await pressUntilFocused(page, frame.getByRole('textbox', { name: 'Receiver address' }))
    await page.keyboard.type(privateKeyToAccount(generatePrivateKey()).address)
    await page.keyboard.press('Enter')
    await expect(frame.getByRole('dialog', { name: 'Review Send' })).toBeVisible()
    await pressUntilFocused(page, frame.getByRole('button', { name: 'Send', exact: true }))
    await page.keyboard.press('Enter')
    await expect(
      frame.getByRole('status').filter({ hasText: 'Transaction confirmed' }),
    ).toBeVisible({ timeout: 30_000 })
    await expect(frame.getByRole('dialog', { name: 'Account' })).toBeVisible()

    // Switch network, then back on Account.
    await pressUntilFocused(page, frame.getByRole('button', { name: /Network/ }))
    await page.keyboard.press('Enter')
    await pressUntilFocused(page, frame.getByRole('button', { name: /Sepolia/ }))
    await page.keyboard.press('Enter')
    await expect.poll(async () => (await hostState(page)).chainId).toBe('eip155:11155111')
    await expect(frame.getByRole('dialog', { name: 'Account' })).toBeVisible()

    await pressUntilFocused(page, frame.getByRole('button', { name: 'Disconnect' }))
    await page.keyboard.press('Enter')
    await expect.poll(async () => (await hostState(page)).status).toBe('disconnected')
    await expectClosedToHost(page)
  })

  test('email login with the code, then an approval in the secure frame and in its window', async ({
    page,
  }) => {
    test.setTimeout(90_000)
    await openHost(page)
    const frame = widget(page)
    await openByKeyboard(page)
    await expect(frame.getByRole('textbox', { name: 'Email' })).toBeFocused()
    const email = freshEmail('keyboard')
    const since = await mailCount()
    await page.keyboard.type(email)
    await page.keyboard.press('Enter')
    const code = frame.getByLabel('Code from the email')
    await expect(code).toBeFocused({ timeout: 30_000 })
    await page.keyboard.type(await waitForCode(email, since))
    await expect
      .poll(async () => (await hostState(page)).status, { timeout: 20_000 })
      .toBe('connected')
    const { address } = await hostState(page)

    // The approval in the secure frame: Escape there rejects (4001).
    await startRequest(page, 'personal_sign', ['0x6b6579626f617264', address])
    const reject = secureFrame(page).getByRole('button', { name: 'Reject' })
    await pressUntilFocused(page, reject)
    await page.keyboard.press('Escape')
    expect((await pendingOutcome(page)).error?.code).toBe(4001)

    // Again: Enter on 'Open approval window', then Approve in that window by keyboard.
    await startRequest(page, 'personal_sign', ['0x6b6579626f617264', address])
    const open = secureFrame(page).getByRole('button', { name: 'Open approval window' })
    await pressUntilFocused(page, open)
    // Past its last control, focus wraps inside the approval, never reaching the page behind.
    await page.keyboard.press('Tab')
    await expect(page.locator('iframe[title="Porthole wallet"]')).toBeFocused()
    expect(
      await secureFrameOf(page).evaluate(
        () => document.hasFocus() && !!document.activeElement?.closest('[role="dialog"]'),
      ),
    ).toBe(true)
    await pressUntilFocused(page, open)
    const opened = page.context().waitForEvent('page')
    await page.keyboard.press('Enter')
    const popup = await opened
    const approve = popup.getByRole('button', { name: 'Approve' })
    // Keys before Approve arms restart its delay: wait for it, then Tab to it.
    await expect(approve).toBeEnabled()
    await pressUntilFocused(popup, approve)
    await popup.keyboard.press('Enter').catch((error: unknown) => {
      if (!popup.isClosed()) throw error
    })
    const outcome = await pendingOutcome(page)
    expect(outcome.error).toBeUndefined()
    expect(outcome.result).toMatch(/^0x[0-9a-f]{130}$/)
  })

  test('sign-in with the wallet', async ({ page }) => {
    await installTestWallet(page, { privateKey: workerKey(test.info().parallelIndex) })
    await openHost(page, { siwx: 'required' })
    await openByKeyboard(page)
    await pressUntilFocused(page, testWalletRow(page))
    await page.keyboard.press('Enter')
    await expect.poll(async () => (await hostState(page)).view).toBe('SIWXSignMessage')
    await pressUntilFocused(page, widget(page).getByRole('button', { name: 'Sign in' }))
    await page.keyboard.press('Enter')
    await expect.poll(async () => (await hostState(page)).session).not.toBeNull()
    await expectClosedToHost(page)
  })
})

/** The longest animation and transition in the card, in ms (an animation named 'none' counts 0). */
const longestMotion = (page: Page) =>
  widgetFrameOf(page).evaluate(() => {
    const seconds = (value: string) =>
      Math.max(...value.split(',').map((part) => Number.parseFloat(part) || 0))
    const dialog = document.querySelector('[role="dialog"]')
    if (!dialog) throw new Error('no dialog')
    let longest = 0
    for (const element of [dialog, ...dialog.querySelectorAll('*')]) {
      const style = getComputedStyle(element)
      if (style.animationName !== 'none')
        longest = Math.max(longest, seconds(style.animationDuration))
      longest = Math.max(longest, seconds(style.transitionDuration))
    }
    return longest * 1000
  })

test('prefers-reduced-motion turns animations and transitions off', async ({ page }) => {
  await openHost(page)
  await hostButton(page).click()
  await expect(widget(page).getByRole('list', { name: 'Connect a wallet' })).toBeVisible()
  // The logos fade in: motion there is, for a visitor who has not asked otherwise.
  expect(await longestMotion(page)).toBeGreaterThan(50)
  await page.emulateMedia({ reducedMotion: 'reduce' })
  expect(await longestMotion(page)).toBeLessThanOrEqual(0.01)
})

/**
 * What is lost at the current text size in the card: text clipped or outside
 * it, the card scrolling sideways, or its top out of reach.
 */
const textLoss = (page: Page) =>
  widgetFrameOf(page).evaluate(() => {
    const dialog = document.querySelector('[role="dialog"]')
    if (!dialog) throw new Error('no dialog')
    const problems: string[] = []
    if (dialog.scrollWidth > dialog.clientWidth) problems.push('the card scrolls sideways')
    dialog.parentElement?.scrollTo(0, 0)
    const box = dialog.getBoundingClientRect()
    if (box.top < 0) problems.push('the top of the card is out of reach')
    for (const element of dialog.querySelectorAll<HTMLElement>('*')) {
      if (element.closest('.sr-only') || !element.checkVisibility()) continue
      const text = Array.from(element.childNodes)
        .filter((node) => node.nodeType === Node.TEXT_NODE)
        .map((node) => node.textContent?.trim())
        .join('')
      if (!text) continue
      const rect = element.getBoundingClientRect()
      if (element.scrollWidth > element.clientWidth + 1) problems.push(`clipped: ${text}`)
      if (rect.left < box.left - 1 || rect.right > box.right + 1) problems.push(`outside: ${text}`)
    }
    return problems
  })

const setTextSize = (page: Page, size: string) =>
  widgetFrameOf(page).evaluate((size) => {
    document.documentElement.style.fontSize = size
  }, size)

test('text at 200 % loses nothing in Connect and Account', async ({ page }) => {
  await installTestWallet(page, { privateKey: workerKey(test.info().parallelIndex) })
  await openHost(page)
  const frame = widget(page)
  await hostButton(page).click()
  await expect(testWalletRow(page)).toBeVisible()
  await setTextSize(page, '200%')
  expect(await textLoss(page)).toEqual([])
  await setTextSize(page, '')
  await testWalletRow(page).click()
  await expect.poll(async () => (await hostState(page)).status).toBe('connected')
  await hostButton(page).click()
  await expect(frame.getByTestId('account-balance')).toBeVisible()
  await setTextSize(page, '200%')
  expect(await textLoss(page)).toEqual([])
})

test('axe: the views no other flow shows', async ({ page }) => {
  await installTestWallet(page, { privateKey: workerKey(test.info().parallelIndex) })
  await openHost(page)
  const frame = widget(page)
  // A registry wallet's own app links.
  await hostButton(page).click()
  await frame
    .getByRole('list', { name: 'Connect a wallet' })
    .getByRole('button', { name: /Rainbow/ })
    .click()
  await frame.getByRole('button', { name: 'Open Rainbow' }).click()
  await expect(frame.getByRole('link', { name: 'Open mobile app' })).toBeVisible({
    timeout: 20_000,
  })
  await expectWidgetAccessible(page, 'ConnectingWalletConnectBasic')
  await page.keyboard.press('Escape')

  // A network of another namespace while an EVM wallet is connected.
  await hostButton(page).click()
  await testWalletRow(page).click()
  await expect.poll(async () => (await hostState(page)).status).toBe('connected')
  // Receive, from Account.
  await hostButton(page).click()
  await frame.getByRole('button', { name: 'Receive' }).click()
  const qr = frame.getByRole('img', { name: /QR code of your address/ })
  await expect(qr).toBeVisible()
  // The code a phone scans is the connected address.
  const { address } = await hostState(page)
  expect((await scanQr(qr))?.toLowerCase()).toBe(address?.toLowerCase())
  await expectWidgetAccessible(page, 'Receive')
  await frame.getByRole('button', { name: 'Back' }).click()
  await frame.getByRole('button', { name: /Network/ }).click()
  await frame
    .getByRole('button', { name: /Solana/ })
    .first()
    .click()
  await expect(frame.getByRole('button', { name: 'Disconnect and choose a wallet' })).toBeVisible()
  await expectWidgetAccessible(page, 'SwitchActiveChain')

  // The social login's last page, opened without the window that started it.
  const done = await page.context().newPage()
  const state = 'a'.repeat(43)
  await done.goto(`${origins.api}/auth/v1/social/done?state=${state}&claim=${'b'.repeat(43)}`)
  await expect(done.getByRole('heading', { name: 'Finishing sign-in' })).toBeVisible()
  await expectPageAccessible(done, 'social login done page')
})
