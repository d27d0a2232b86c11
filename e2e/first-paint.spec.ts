/**
 * The built page's first paint (apps/widget/src/firstPaint.tsx): a cold
 * widget frame paints Connect from its HTML, before its JS has run, in the
 * site's theme, and nothing in it takes a click until the app has taken over.
 * The app's JS is held back here (its entry aborted), so what shows is the
 * HTML alone.
 */
import { readFileSync } from 'node:fs'
import { expect, type Page, test } from '@playwright/test'
import { recommendedWalletsCount } from '@porthole/protocol/Constants'
import {
  holdWidgetApp,
  openHost,
  openModal,
  openTaggedHost,
  origins,
  widget,
  widgetFrame,
  widgetHandshake,
} from './fixtures.ts'

/** The registry's first wallets, in its order: what a project that filters nothing recommends. */
const registryFirst = Object.values(
  JSON.parse(
    readFileSync(new URL('../apps/api/data/wallet-registry/wallets.json', import.meta.url), 'utf8'),
  ) as Record<string, { name: string }>,
)
  .slice(0, recommendedWalletsCount)
  .map((wallet) => wallet.name)

/** Aborts the widget's app script (its entry), so the frame shows only what its HTML paints. */
const holdWidgetScript = (page: Page) => holdWidgetApp(page, true)

/** `Wallet.open()`, not awaited: without its JS the widget never answers. */
const showFrame = (page: Page) =>
  page.evaluate(() => {
    void (window as unknown as { Wallet: { open(): Promise<void> } }).Wallet.open()
  })

// By CSS: an inert card is out of the accessibility tree, so out of role queries.
const card = (page: Page) => widget(page).locator('[role="dialog"]')
const rows = (page: Page) => widget(page).locator('ul[aria-label="Connect a wallet"] > li')
/** A row's text ends with the wallet's name (a logo's initial comes first). */
const endsWith = (name: string) => new RegExp(`${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)

test.describe('first paint', () => {
  test('a cold frame paints Connect from its HTML alone: WalletConnect and the registry’s first wallets', async ({
    page,
  }) => {
    await holdWidgetScript(page)
    await openHost(page)
    await showFrame(page)
    await expect(card(page)).toBeVisible()
    await expect(card(page).locator('h2')).toHaveText('Connect Wallet')
    await expect(rows(page)).toHaveText([/^WalletConnect/, ...registryFirst.map(endsWith)])
    await expect(card(page).getByText('All wallets')).toBeVisible()
  })

  test('it is inert before the app runs: a click on a row lands on nothing', async ({ page }) => {
    await holdWidgetScript(page)
    await openHost(page)
    await showFrame(page)
    await expect(card(page)).toBeVisible()
    const first = rows(page).first().locator('button')
    expect(await first.evaluate((row) => row.closest('[inert]') !== null)).toBe(true)
    // A click lands on nothing: no element at the row's centre takes pointer events.
    const box = await first.boundingBox()
    if (!box) throw new Error('The row has no box.')
    const hit = await widget(page)
      .locator('body')
      .evaluate(
        (_, { x, y }) => document.elementFromPoint(x, y)?.closest('[data-wallet-id], li') ?? null,
        { x: box.x + box.width / 2, y: box.y + box.height / 2 },
      )
    expect(hit).toBeNull()
  })

  test('it follows prefers-color-scheme, and the theme the tag sets over it', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark' })
    await holdWidgetScript(page)
    await openHost(page)
    await showFrame(page)
    await expect(card(page)).toHaveAttribute('data-theme', 'dark')
    await openTaggedHost(page, { 'data-theme': 'light' })
    await showFrame(page)
    await expect(card(page)).toHaveAttribute('data-theme', 'light')
  })

  test('a site with its own accent gets no first paint: the app paints in its look', async ({
    page,
  }) => {
    await holdWidgetScript(page)
    await openTaggedHost(page, { 'data-theme-accent': '#0a7d32' })
    await showFrame(page)
    await expect(widget(page).locator('#root')).toHaveAttribute('hidden', '')
    await expect(card(page)).toBeHidden()
  })

  test('inv-07 a frame sandboxed to an opaque origin shows no first paint: its app never loads, so it would stay frozen', async ({
    page,
  }) => {
    await openHost(page)
    await page.evaluate((src) => {
      const frame = document.createElement('iframe')
      frame.src = src
      frame.setAttribute('sandbox', 'allow-scripts')
      frame.id = 'sandboxed'
      document.body.append(frame)
    }, `${origins.widget}/?projectId=porthole-dev`)
    const sandboxed = await (await page.locator('#sandboxed').elementHandle())?.contentFrame()
    if (!sandboxed) throw new Error('The sandboxed frame is missing.')
    await sandboxed.waitForLoadState('load')
    expect(
      await sandboxed.evaluate(() => [origin, document.getElementById('root')?.hidden]),
    ).toEqual(['null', true])
    await expect(page.frameLocator('#sandboxed').locator('[role="dialog"]')).toBeHidden()
  })

  test('the prefetch script takes the host’s hello before the app’s JS runs, and the app opens on that port', async ({
    page,
  }) => {
    const release = await holdWidgetApp(page)
    await openHost(page)
    const opened = page.evaluate(() =>
      (window as unknown as { Wallet: { open(): Promise<void> } }).Wallet.open(),
    )
    // The app's entry has not run: the handshake the prefetch script started has the host's origin.
    await expect.poll(() => widgetHandshake(page)).toBe(origins.demo)
    expect(
      await widgetFrame(page).evaluate(() => document.querySelector('[data-open="true"]')),
    ).toBeNull()
    release()
    await opened
    await expect(widget(page).getByRole('dialog')).toHaveAttribute('data-open', 'true')
    await expect(rows(page).first().locator('button')).toBeEnabled()
  })

  test('the app takes over the same card: one dialog, its rows take clicks once open', async ({
    page,
  }) => {
    await openHost(page)
    await openModal(page)
    await expect(widget(page).getByRole('dialog')).toHaveCount(1)
    const first = rows(page).first().locator('button')
    expect(await first.evaluate((row) => row.closest('[inert]') === null)).toBe(true)
    await expect(widget(page).locator('#root')).not.toHaveAttribute('hidden')
  })
})
