/**
 * The widget in its iframe on the demo host (apps/widget): Connect with the
 * recommended wallets, All wallets with paging and search, closing, Back,
 * the theme, the secure frame, and the refusal of a host that the project
 * does not allow. Everything is located by role and name inside the frame.
 */
import { type BrowserContext, expect, type FrameLocator, type Page, test } from '@playwright/test'
import { contrastRatio } from '../apps/widget/src/lib/themeVariables.ts'
import { expectWidgetAccessible } from './axe.ts'
import {
  expectFrameHidden,
  hostState,
  openHost,
  openModal,
  openTaggedHost,
  origins,
  startEmailLogin,
  widget,
} from './fixtures.ts'

type WalletWindow = Window & {
  Wallet: {
    open(): Promise<void>
    setTheme(theme: string): Promise<void>
    provider: { request(args: { method: string }): Promise<unknown> }
  }
}

const dialog = (frame: FrameLocator, name: string | RegExp) => frame.getByRole('dialog', { name })
/** Connect's registry wallets (the entries with an explorer id), after WalletConnect and installed ones. */
const recommended = (frame: FrameLocator) =>
  frame
    .getByRole('list', { name: 'Connect a wallet' })
    .getByRole('listitem')
    .and(frame.locator('[data-wallet-id]'))
const allWalletsButton = (frame: FrameLocator) => frame.getByRole('button', { name: /All wallets/ })
const walletTiles = (frame: FrameLocator) =>
  frame.getByRole('list', { name: 'Wallets', exact: true }).getByRole('listitem')

/** `[Porthole]` warnings the loader prints for the site's developer. */
function hostWarnings(page: Page) {
  const warnings: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'warning' && message.text().startsWith('[Porthole]'))
      warnings.push(message.text())
  })
  return warnings
}

async function openAllWallets(page: Page) {
  await openHost(page)
  await openModal(page)
  const frame = widget(page)
  await allWalletsButton(frame).click()
  await expect(dialog(frame, 'All Wallets')).toBeVisible()
  return frame
}

test.describe('Connect', () => {
  test('Wallet.open() shows Connect with 4 recommended wallets and the count of all', async ({
    page,
  }) => {
    await openHost(page)
    await openModal(page)
    const frame = widget(page)
    const card = dialog(frame, 'Connect Wallet')
    await expect(card).toBeVisible()
    await expect(card).toHaveAttribute('aria-modal', 'true')
    await expect(recommended(frame)).toHaveCount(4)
    // WalletConnect's QR entry comes first (the seed's connector type order).
    await expect(
      frame.getByRole('list', { name: 'Connect a wallet' }).getByRole('button').first(),
    ).toHaveText(/WalletConnect/)
    await expect(recommended(frame).first()).toHaveText(/\S/)
    await expect(allWalletsButton(frame)).toHaveText(/All wallets\s*\d{2,}/)
    // The dev project offers email and Google login above the wallets; the
    // first control of the view, the email field, has focus.
    await expect(frame.getByRole('textbox', { name: 'Email' })).toBeFocused()
    await expect(frame.getByRole('list', { name: 'Social logins' }).getByRole('button')).toHaveText(
      ['Google'],
    )
    // The logos load from the API.
    await expect
      .poll(() =>
        recommended(frame)
          .locator('img')
          .evaluateAll(
            (images) =>
              images.filter((image) => (image as HTMLImageElement).naturalWidth > 0).length,
          ),
      )
      .toBe(4)
    await expectWidgetAccessible(page, 'Connect')
    expect(await hostState(page)).toMatchObject({
      open: true,
      view: 'Connect',
      status: 'disconnected',
    })
  })

  test('SPEC 7: /getWallets calls name the SDK, st=porthole and sv=4', async ({ page }) => {
    const request = page.waitForRequest((request) =>
      request.url().startsWith(`${origins.api}/getWallets?`),
    )
    await openHost(page)
    const params = new URL((await request).url()).searchParams
    expect(params.get('st')).toBe('porthole')
    expect(params.get('sv')).toBe('4')
  })

  test('a logo that fails to load shows the wallet initial', async ({ page, context }) => {
    await context.route(`${origins.api}/getWalletImage/**`, (route) => route.abort())
    await openHost(page)
    await openModal(page)
    const first = recommended(widget(page)).first()
    // The initial (R) stands before the name (Rainbow): the text starts with one letter twice.
    await expect(first).toHaveText(/^(\S)\1/i)
    await expect(first.locator('img')).toHaveCount(0)
  })

  test('Escape closes the modal and the host hides the frame', async ({ page }) => {
    await openHost(page)
    await openModal(page)
    const frame = widget(page)
    await expect(dialog(frame, 'Connect Wallet')).toBeVisible()
    await page.keyboard.press('Escape')
    await expect.poll(async () => (await hostState(page)).open).toBe(false)
    await expectFrameHidden(page)
  })

  test('a click on the backdrop closes; a click in the card does not', async ({ page }) => {
    await openHost(page)
    await openModal(page)
    const frame = widget(page)
    await frame.getByRole('heading', { name: 'Connect Wallet' }).click()
    expect((await hostState(page)).open).toBe(true)
    await page.mouse.click(8, 8)
    await expect.poll(async () => (await hostState(page)).open).toBe(false)
  })

  test('the Close button closes', async ({ page }) => {
    await openHost(page)
    await openModal(page)
    await widget(page).getByRole('button', { name: 'Close' }).click()
    await expect.poll(async () => (await hostState(page)).open).toBe(false)
  })

  test('Tab and Shift+Tab stay inside the card', async ({ page }) => {
    await openHost(page)
    await openModal(page)
    const frame = widget(page)
    const first = frame.getByRole('textbox', { name: 'Email' })
    await expect(first).toBeFocused()
    const close = frame.getByRole('button', { name: 'Close' })
    await page.keyboard.press('Shift+Tab')
    await expect(close).toBeFocused()
    await page.keyboard.press('Shift+Tab')
    await expect(allWalletsButton(frame)).toBeFocused()
    await page.keyboard.press('Tab')
    await expect(close).toBeFocused()
    await page.keyboard.press('Tab')
    await expect(first).toBeFocused()
  })

  test('open with a view this build lacks rejects with 4200', async ({ page }) => {
    await openHost(page)
    const error = await page.evaluate(() =>
      (window as unknown as { Wallet: { open(o: { view: string }): Promise<void> } }).Wallet.open({
        view: 'RegisterAccountName',
      }).then(
        () => null,
        (error: { code: number; message: string }) => ({
          code: error.code,
          message: error.message,
        }),
      ),
    )
    expect(error).toMatchObject({
      code: 4200,
      message: expect.stringContaining("'RegisterAccountName'"),
    })
    expect((await hostState(page)).open).toBe(false)
  })

  test('a verified host with no wallet connected reads the default chain through the API', async ({
    page,
  }) => {
    await openHost(page)
    const answers = await page.evaluate(async () => {
      const { provider } = (window as unknown as WalletWindow).Wallet
      return [
        await provider.request({ method: 'eth_accounts' }),
        await provider.request({ method: 'eth_chainId' }),
        typeof (await provider.request({ method: 'eth_blockNumber' })),
      ]
    })
    expect(answers).toEqual([[], '0x7a69', 'string'])
  })
})

test.describe('All wallets', () => {
  test('shows 40 wallets and loads the next 40 on scroll', async ({ page }) => {
    const frame = await openAllWallets(page)
    await expect(walletTiles(frame)).toHaveCount(40)
    await expect(frame.getByRole('searchbox', { name: 'Search wallet' })).toBeFocused()
    await expectWidgetAccessible(page, 'AllWallets')
    await walletTiles(frame).last().scrollIntoViewIfNeeded()
    await expect(walletTiles(frame)).toHaveCount(80)
  })

  test('Load more loads the next page from the keyboard', async ({ page }) => {
    const frame = await openAllWallets(page)
    await expect(walletTiles(frame)).toHaveCount(40)
    const loadMore = frame.getByRole('button', { name: 'Load more' })
    await loadMore.focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => walletTiles(frame).count()).toBeGreaterThanOrEqual(80)
  })

  test('searches from two characters: rain finds Rainbow', async ({ page }) => {
    const frame = await openAllWallets(page)
    const search = frame.getByRole('searchbox', { name: 'Search wallet' })
    await search.fill('rain')
    const results = frame.getByRole('list', { name: 'Search results for “rain”' })
    await expect(results.getByRole('listitem').filter({ hasText: /^Rainbow$/ })).toBeVisible()
    await expect(results.getByRole('listitem').filter({ hasNotText: /rain/i })).toHaveCount(0)
    // Clearing the search shows every wallet again.
    await search.fill('')
    await expect(walletTiles(frame)).toHaveCount(40)
  })

  test('an unknown name shows the empty state with the query', async ({ page }) => {
    const frame = await openAllWallets(page)
    await frame.getByRole('searchbox', { name: 'Search wallet' }).fill('zzqxv')
    await expect(frame.getByText('No wallet found for “zzqxv”')).toBeVisible()
  })

  test('an API failure shows an error with Retry, which recovers', async ({ page, context }) => {
    await openHost(page)
    await openModal(page)
    const frame = widget(page)
    let fail = true
    await context.route(`${origins.api}/getWallets?*`, (route) =>
      fail && new URL(route.request().url()).searchParams.get('search') === 'rain'
        ? route.fulfill({ status: 503, body: '{}' })
        : route.continue(),
    )
    await allWalletsButton(frame).click()
    await frame.getByRole('searchbox', { name: 'Search wallet' }).fill('rain')
    await expect(
      frame.getByRole('alert').filter({ hasText: 'Wallets could not be loaded' }),
    ).toBeVisible()
    fail = false
    await frame.getByRole('button', { name: 'Retry' }).click()
    await expect(frame.getByRole('listitem').filter({ hasText: /^Rainbow$/ })).toBeVisible()
  })

  test('Back returns to Connect', async ({ page }) => {
    const frame = await openAllWallets(page)
    expect((await hostState(page)).view).toBe('AllWallets')
    await frame.getByRole('button', { name: 'Back' }).click()
    await expect(dialog(frame, 'Connect Wallet')).toBeVisible()
    await expect(recommended(frame)).toHaveCount(4)
    await expect(frame.getByRole('button', { name: 'Back' })).toHaveCount(0)
    await expect.poll(async () => (await hostState(page)).view).toBe('Connect')
  })

  test('closing resets to Connect for the next open', async ({ page }) => {
    const frame = await openAllWallets(page)
    await page.keyboard.press('Escape')
    await expect.poll(async () => (await hostState(page)).open).toBe(false)
    await openModal(page)
    await expect(dialog(frame, 'Connect Wallet')).toBeVisible()
  })
})

test.describe('theme', () => {
  const surface = (frame: FrameLocator) =>
    dialog(frame, 'Connect Wallet').evaluate((card) => ({
      surface: getComputedStyle(card).getPropertyValue('--ph-surface').trim(),
      background: getComputedStyle(card).backgroundColor,
      scheme: getComputedStyle(card).colorScheme,
      rootScheme: getComputedStyle(document.documentElement).colorScheme,
    }))

  test("Wallet.setTheme('dark') applies the dark variables on the card", async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' })
    await openHost(page)
    await openModal(page)
    const frame = widget(page)
    await page.evaluate(() => (window as unknown as WalletWindow).Wallet.setTheme('light'))
    await expect
      .poll(() => surface(frame))
      .toMatchObject({ background: 'rgb(255, 255, 255)', scheme: 'light' })
    await page.evaluate(() => (window as unknown as WalletWindow).Wallet.setTheme('dark'))
    await expect
      .poll(() => surface(frame))
      .toEqual({
        surface: '#17181d',
        background: 'rgb(23, 24, 29)',
        scheme: 'dark',
        // Never on the root: that would paint an opaque backdrop over the host.
        rootScheme: 'normal',
      })
  })

  test('system follows prefers-color-scheme live', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' })
    await openHost(page)
    await openModal(page)
    const frame = widget(page)
    await page.evaluate(() => (window as unknown as WalletWindow).Wallet.setTheme('system'))
    await expect.poll(async () => (await surface(frame)).scheme).toBe('light')
    await page.emulateMedia({ colorScheme: 'dark' })
    await expect.poll(async () => (await surface(frame)).scheme).toBe('dark')
  })
})

/**
 * The tag's `data-theme-*` look, on the demo host with a tag written by the
 * test; the secure frame keeps its own.
 */
test.describe('site look (data-theme-accent, -radius, -font)', () => {
  /** The demo host with its tag replaced by one carrying `attributes`, its modal open. */
  async function openThemedHost(
    page: Page,
    attributes: Record<string, string>,
    origin: string = origins.demo,
  ) {
    await openTaggedHost(page, attributes, origin)
    await openModal(page)
  }
  const look = (frame: FrameLocator) =>
    Promise.all([
      dialog(frame, 'Connect Wallet').evaluate((card) => {
        const style = getComputedStyle(card)
        return {
          accent: style.getPropertyValue('--ph-accent').trim(),
          radius: style.borderTopLeftRadius,
          font: style.fontFamily,
        }
      }),
      // WalletConnect's icon: accent background, accent-fg glyph.
      frame
        .getByRole('button', { name: /WalletConnect/ })
        .locator('.bg-accent')
        .evaluate((icon) => ({
          background: getComputedStyle(icon).backgroundColor,
          color: getComputedStyle(icon).color,
        })),
    ]).then(([card, icon]) => ({ ...card, icon }))
  const rgb = (css: string) =>
    `#${(css.match(/\d+/g) ?? [])
      .slice(0, 3)
      .map((n) => Number(n).toString(16).padStart(2, '0'))
      .join('')}`

  test('accent, radius and font from the tag; a pale accent is darkened to 4.5:1, lightened in dark', async ({
    page,
  }) => {
    await openThemedHost(page, {
      'data-theme': 'light',
      'data-theme-accent': '#ffff00',
      'data-theme-radius': '6',
      'data-theme-font': 'Georgia, serif',
    })
    const frame = widget(page)
    const light = await look(frame)
    expect(light.radius).toBe('6px')
    expect(light.font).toBe('Georgia, serif')
    expect(light.accent).not.toBe('#ffff00')
    expect(rgb(light.icon.background)).toBe(light.accent)
    expect(contrastRatio(light.accent, '#ffffff')).toBeGreaterThanOrEqual(4.5)
    expect(contrastRatio(light.accent, rgb(light.icon.color))).toBeGreaterThanOrEqual(4.5)

    await page.evaluate(() => (window as unknown as WalletWindow).Wallet.setTheme('dark'))
    await expect.poll(async () => (await look(frame)).accent).not.toBe(light.accent)
    const dark = await look(frame)
    expect(contrastRatio(dark.accent, '#17181d')).toBeGreaterThanOrEqual(4.5)
    expect(contrastRatio(dark.accent, rgb(dark.icon.color))).toBeGreaterThanOrEqual(4.5)
    // axe in light and dark (the system's), with the site's accent.
    await page.evaluate(() => (window as unknown as WalletWindow).Wallet.setTheme('system'))
    await expectWidgetAccessible(page, 'Connect with the site look')

    // The secure frame keeps its own look: none of the site's values reach it.
    await frame.getByPlaceholder('Email').click()
    const secure = frame.locator('iframe[title="Porthole secure frame"]')
    await expect(secure).toHaveCount(1)
    expect(await secure.getAttribute('src')).not.toMatch(/theme(Accent|Radius|Font)|Georgia/)
    const secureFont = () =>
      page
        .frames()
        .find((each) => each.url().startsWith(origins.secure))
        // Before its body is parsed, or while it navigates: null, and the poll goes on.
        ?.evaluate(() => (document.body ? getComputedStyle(document.body).fontFamily : null))
        .catch(() => null) ?? null
    await expect.poll(secureFont).toMatch(/\w/)
    expect(await secureFont()).not.toContain('Georgia')
  })

  test('a host the project refuses gets the default look: its alert stays as we draw it', async ({
    page,
  }) => {
    await openThemedHost(
      page,
      { 'data-theme': 'light', 'data-theme-accent': '#0a7d32', 'data-theme-radius': '0' },
      origins.evil,
    )
    const frame = widget(page)
    await expect(frame.getByText('Unverified domain')).toBeVisible()
    const card = await frame.getByRole('dialog').evaluate((element) => {
      const style = getComputedStyle(element)
      return {
        accent: style.getPropertyValue('--ph-accent').trim(),
        radius: style.borderTopLeftRadius,
      }
    })
    expect(card).toEqual({ accent: '#2f4ae0', radius: '24px' })
  })

  test('a value that is not plainly one is refused with a warning; the default look stays', async ({
    page,
  }) => {
    const warnings = hostWarnings(page)
    await openThemedHost(page, {
      'data-theme': 'light',
      'data-theme-accent': '#fff;background:url(https://evil.example/x)',
      'data-theme-font': 'Arial; } .card { display: none',
    })
    const frame = widget(page)
    expect(await look(frame)).toMatchObject({ accent: '#2f4ae0', radius: '24px' })
    expect((await look(frame)).font).not.toContain('Arial')
    await expect
      .poll(() => warnings.join('\n'))
      .toContain(
        'Ignored, not valid: data-theme-accent (a #rgb or #rrggbb colour); data-theme-font',
      )
  })
})

test.describe('secure frame', () => {
  const secureFrame = (frame: FrameLocator) => frame.locator('[data-secure-frame]')
  test('no secure frame until an embedded wallet is in play: the email field brings it', async ({
    page,
  }) => {
    await openHost(page)
    await openModal(page)
    const frame = widget(page)
    await expect(recommended(frame)).toHaveCount(4)
    // Connect focuses the email field on opening; that alone makes no frame.
    await expect(frame.getByPlaceholder('Email')).toBeFocused()
    await expect(frame.locator('iframe[title="Porthole secure frame"]')).toHaveCount(0)
    await expect(secureFrame(frame)).toHaveAttribute('data-secure-frame', 'idle')
    expect(page.frames().filter((each) => each.url().startsWith(origins.secure))).toEqual([])
    await frame.getByPlaceholder('Email').pressSequentially('a')
    await expect(secureFrame(frame)).toHaveAttribute('data-secure-frame', 'ready')
  })

  test('a verified host gets the secure frame, ready after its handshake', async ({ page }) => {
    await openHost(page)
    await startEmailLogin(page)
    const frame = widget(page)
    await expect(frame.locator('iframe[title="Porthole secure frame"]')).toBeAttached()
    await expect(secureFrame(frame)).toHaveAttribute('data-secure-frame', 'ready')
    const sandbox = await frame
      .locator('iframe[title="Porthole secure frame"]')
      .getAttribute('sandbox')
    expect(sandbox?.split(' ')).not.toContain('allow-top-navigation')
  })

  test('the secure frame follows the theme once ready', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' })
    await openHost(page)
    await startEmailLogin(page)
    const frame = widget(page)
    await expect(secureFrame(frame)).toHaveAttribute('data-secure-frame', 'ready')
    const root = frame.frameLocator('iframe[title="Porthole secure frame"]').locator('html')
    await expect(root).toHaveAttribute('data-theme', 'light')
    await page.evaluate(() => (window as unknown as WalletWindow).Wallet.setTheme('dark'))
    await expect(root).toHaveAttribute('data-theme', 'dark')
    await page.evaluate(() => (window as unknown as WalletWindow).Wallet.setTheme('system'))
    await expect(root).toHaveAttribute('data-theme', 'light')
  })

  test('a frame that never loads raises iframe_load_failed after 20 s', async ({
    page,
    context,
  }) => {
    const warnings = hostWarnings(page)
    await context.route(`${origins.secure}/**`, (route) => route.abort())
    // Time stands still from before the host loads, and moves only in the steps below, so
    // the frame's 20 s timer is pinned to a known instant however slow the machine.
    const start = Date.now()
    await page.clock.install({ time: start })
    await page.clock.pauseAt(start + 1_000)
    await openHost(page)
    // Not openModal: on the paused clock the modal renders open only in the steps below.
    await page.evaluate(() => void (window as unknown as WalletWindow).Wallet.open())
    await expect.poll(async () => (await hostState(page)).open).toBe(true)
    const frame = widget(page)
    const fakeNow = () => page.evaluate(() => Date.now())
    // Connect's email field (a lazy chunk, rendered on the fake clock's frames), in the
    // open modal (no longer inert: the store's subscriptions start in those frames too).
    const email = frame.getByPlaceholder('Email')
    const ready = async () =>
      (await email.isVisible()) && (await email.evaluate((field) => !field.closest('[inert]')))
    while (!(await ready())) await page.clock.runFor(50)
    await email.click()
    // The frame is made in the next frames: its timer starts after `before`, by `mounted`.
    let before = await fakeNow()
    while ((await secureFrame(frame).getAttribute('data-secure-frame')) !== 'loading') {
      before = await fakeNow()
      await page.clock.runFor(16)
    }
    const mounted = await fakeNow()
    await page.clock.fastForward(before + 19_900 - mounted)
    await expect(frame.getByRole('alert')).toHaveCount(0)
    await expect(secureFrame(frame)).toHaveAttribute('data-secure-frame', 'loading')
    await page.clock.fastForward(mounted + 20_000 - (await fakeNow()))
    await expect(
      frame.getByRole('alert').filter({ hasText: 'Secure frame did not load' }),
    ).toBeVisible()
    await expect(secureFrame(frame)).toHaveAttribute('data-secure-frame', 'failed')
    await expect.poll(() => warnings.join('\n')).toContain('iframe_load_failed')
    // Connecting with a wallet does not need the secure frame: the list stays.
    await expect(recommended(frame)).toHaveCount(4)
  })
})

test.describe('a project the service does not know', () => {
  test('is refused with its own message for the developer, not verified as a dev host', async ({
    page,
    context,
  }) => {
    const warnings = hostWarnings(page)
    const requests: string[] = []
    context.on('request', (request) => requests.push(request.url()))
    await openHost(page, { projectId: 'no-such-project' })
    await openModal(page)
    const frame = widget(page)
    const alert = frame.getByRole('alert').filter({ hasText: 'Unknown project' })
    await expect(alert).toBeVisible()
    await expect(alert).toContainText('does not know the project “no-such-project”')
    await expect(alert).toContainText('npm run project -- create --id no-such-project')
    await expect(alert).toContainText(origins.demo)
    await expect(frame.getByRole('list')).toHaveCount(0)
    await expect(frame.locator('iframe')).toHaveCount(0)
    expect(requests.filter((url) => url.startsWith(origins.secure))).toEqual([])
    await expect
      .poll(() => warnings.join('\n'))
      .toContain("Project 'no-such-project' is unknown to this Porthole service")
    const code = await page.evaluate(() =>
      (window as unknown as WalletWindow).Wallet.provider.request({ method: 'eth_accounts' }).then(
        () => null,
        (error: { code: number }) => error.code,
      ),
    )
    expect(code).toBe(4100)
  })
})

test.describe('a host the project does not allow', () => {
  async function openEvil(page: Page, context: BrowserContext) {
    const requests: string[] = []
    context.on('request', (request) => requests.push(request.url()))
    await openHost(page, { origin: origins.evil })
    await openModal(page)
    return requests
  }

  test('gets the unverified-domain alert, no wallet list and no secure frame', async ({
    page,
    context,
  }) => {
    const warnings = hostWarnings(page)
    const requests = await openEvil(page, context)
    const frame = widget(page)
    const alert = frame.getByRole('alert').filter({ hasText: 'Unverified domain' })
    await expect(alert).toBeVisible()
    await expect(alert).toContainText(origins.evil)
    await expect(alert).toContainText('porthole-dev')
    await expect(frame.getByRole('list')).toHaveCount(0)
    await expect(allWalletsButton(frame)).toHaveCount(0)
    await expect(frame.locator('iframe')).toHaveCount(0)
    expect(requests.filter((url) => url.startsWith(origins.secure))).toEqual([])
    await expect
      .poll(() => warnings.join('\n'))
      .toContain(`Origin ${origins.evil} is not on the allowed origins`)
  })

  test('its provider requests are refused with 4100', async ({ page, context }) => {
    await openEvil(page, context)
    await expect(widget(page).getByRole('alert')).toBeVisible()
    const code = await page.evaluate(() =>
      (window as unknown as WalletWindow).Wallet.provider.request({ method: 'eth_accounts' }).then(
        () => null,
        (error: { code: number }) => error.code,
      ),
    )
    expect(code).toBe(4100)
  })

  test('All wallets, opened directly, shows the alert too', async ({ page }) => {
    await openHost(page, { origin: origins.evil })
    await openModal(page, 'AllWallets')
    const frame = widget(page)
    await expect(dialog(frame, 'All Wallets')).toBeVisible()
    await expect(frame.getByRole('alert').filter({ hasText: 'Unverified domain' })).toBeVisible()
    await expect(frame.getByRole('searchbox')).toHaveCount(0)
  })
})
