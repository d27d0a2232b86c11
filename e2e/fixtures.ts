/** Shared e2e helpers: the demo host, the widget frame, and the host-visible state. */
import { expect, type Frame, type FrameLocator, type Locator, type Page } from '@playwright/test'
import { svgPixels } from '@porthole/dev-stack/qrPixels'
import { origins } from '@porthole/dev-stack/stack'
import jsQR from 'jsqr'

export { origins }

export type HostState = {
  open: boolean
  view: string
  status: string
  caipAddress: string | null
  address: string | null
  chainId: string | null
  connector: string | null
  session: unknown
}

type WalletWindow = Window & {
  Wallet?: {
    getState(): HostState
    open(options?: { view?: string }): Promise<void>
    provider: { request(args: { method: string }): Promise<unknown> }
  }
}

/** Opens the demo host (on `origin`, for `projectId`) and waits until `window.Wallet` is ready. */
export async function openHost(
  page: Page,
  options: { origin?: string; projectId?: string; siwx?: 'required' | 'optional' } = {},
): Promise<void> {
  const { origin = origins.demo, projectId, siwx } = options
  const params = new URLSearchParams()
  if (projectId) params.set('projectId', projectId)
  if (siwx) params.set('siwx', siwx)
  const query = params.size ? `?${params}` : ''
  await page.goto(`${origin}/${query}`)
  await page.waitForFunction(() => typeof (window as WalletWindow).Wallet?.getState === 'function')
}

/**
 * The demo host (on `origin`) with its tag replaced by one carrying
 * `attributes`, as a site would write it; waits until the new `window.Wallet` is ready.
 */
export async function openTaggedHost(
  page: Page,
  attributes: Record<string, string>,
  origin: string = origins.demo,
): Promise<void> {
  await openHost(page, { origin })
  await page.evaluate(
    ({ src, attributes }) => {
      const scope = window as unknown as { Wallet?: { destroy(): void } }
      scope.Wallet?.destroy()
      delete scope.Wallet
      const script = document.createElement('script')
      for (const [name, value] of Object.entries(attributes)) script.setAttribute(name, value)
      script.src = src
      document.head.append(script)
    },
    {
      src: `${origins.widget}/loader.js`,
      attributes: { 'data-project-id': 'porthole-dev', ...attributes },
    },
  )
  await page.waitForFunction(() => typeof (window as WalletWindow).Wallet?.getState === 'function')
}

/** The widget app's script (its entry): held, a frame has only its HTML and its prefetch script. */
const isWidgetEntry = (url: URL) =>
  url.origin === origins.widget && /^\/assets\/index-[\w-]+\.js$/.test(url.pathname)

/**
 * Holds the widget app's script until `release()` (aborted, with `abort`): the
 * frame runs only what its HTML paints and its prefetch script.
 */
export async function holdWidgetApp(page: Page, abort = false): Promise<() => void> {
  let release = () => {}
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  await page.route(isWidgetEntry, async (route) => {
    if (abort) return route.abort()
    await held
    await route.continue().catch(() => undefined)
  })
  return release
}

/** The widget iframe, located as a user would by its accessible title. */
export const widget = (page: Page): FrameLocator =>
  page.frameLocator('iframe[title="Porthole wallet"]')

/** Serves `html` as the widget's document (loader.js still comes from the widget origin). */
export async function routeWidget(page: Page, html: string): Promise<void> {
  await page.route(
    (url) => url.origin === origins.widget && url.pathname === '/',
    (route) => route.fulfill({ contentType: 'text/html', body: html }),
  )
}

/** The widget's frame (a stand-in served by `routeWidget`, say): a new one after each reload. */
export function widgetFrame(page: Page): Frame {
  const found = findWidgetFrame(page)
  if (!found) throw new Error('The widget frame is missing.')
  return found
}

const findWidgetFrame = (page: Page): Frame | undefined =>
  page.frames().find((frame) => frame.url().startsWith(`${origins.widget}/?`))

/**
 * The host origin the widget frame's handshake (apps/widget/src/lib/host/handshake.ts)
 * has taken: `'pending'` before a hello, `'none'` before either widget script
 * started it, `'no frame'` before the loader has mounted the frame or while it
 * navigates (so `expect.poll` keeps polling). Reads no timer, so it works
 * under a fake clock too.
 */
export async function widgetHandshake(page: Page): Promise<string> {
  const frame = findWidgetFrame(page)
  if (!frame) return 'no frame'
  return frame
    .evaluate(() => {
      const scope = globalThis as { [key: symbol]: unknown; handshakeOrigin?: string }
      const handshake = scope[Symbol.for('porthole.handshake')] as
        | Promise<{ origin: string }>
        | undefined
      if (!handshake) return 'none'
      void handshake.then(({ origin }) => {
        scope.handshakeOrigin = origin
      })
      return scope.handshakeOrigin ?? 'pending'
    })
    .catch((error: Error) => {
      // The frame's document is being replaced: poll again.
      if (/Execution context was destroyed|Frame was detached/.test(error.message))
        return 'no frame'
      throw error
    })
}

/** Resolves once the widget (or its stand-in, on anvil's chain) answers through a completed handshake. */
export async function handshaken(page: Page): Promise<void> {
  await expect
    .poll(() =>
      page.evaluate(() =>
        (window as WalletWindow).Wallet?.provider.request({ method: 'eth_chainId' }),
      ),
    )
    .toBe('0x7a69')
}

/**
 * Checks that a page's window messages (`{ origin, data }`) were the widget's
 * ready only: the channel's name and the widget document's id, the same each
 * time (the widget repeats it until a hello comes).
 */
export function expectOnlyReadies(seen: unknown[]): void {
  expect(seen.length).toBeGreaterThan(0)
  const [first] = seen
  expect(first).toEqual({
    origin: origins.widget,
    data: {
      porthole: 1,
      kind: 'ready',
      channel: 'porthole:host-widget',
      id: expect.stringMatching(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      ),
    },
  })
  for (const message of seen) expect(message).toEqual(first)
}

export const hostState = (page: Page): Promise<HostState> =>
  page.evaluate(() => (window as WalletWindow).Wallet?.getState() as HostState)

/**
 * The loader's frame while the modal is closed: transparent and letting the
 * pointer through (it keeps rendering, so opening paints at once; the widget
 * makes its closed modal inert). Not `toBeHidden()`: Playwright counts a
 * transparent element as visible.
 */
export async function expectFrameHidden(page: Page): Promise<void> {
  const frame = page.locator('iframe[title="Porthole wallet"]')
  await expect(frame).toHaveCSS('opacity', '0')
  await expect(frame).toHaveCSS('pointer-events', 'none')
}

/** The loader's frame while the modal is open: opaque, taking the pointer. */
export async function expectFrameShown(page: Page): Promise<void> {
  const frame = page.locator('iframe[title="Porthole wallet"]')
  await expect(frame).toHaveCSS('opacity', '1')
  await expect(frame).toHaveCSS('pointer-events', 'auto')
}

/** Calls `Wallet.open()` in the page; resolves once the modal is open, visible and focused. */
export async function openModal(page: Page, view?: string): Promise<void> {
  await page.evaluate((view) => (window as WalletWindow).Wallet?.open(view ? { view } : {}), view)
  await expect.poll(async () => (await hostState(page)).open).toBe(true)
  // Rendered open: no longer inert (the closed modal is rendered too, so a visible dialog is not enough).
  await expect(widget(page).locator('[role="dialog"][data-open="true"]')).toBeVisible()
  await expect(page.locator('iframe[title="Porthole wallet"]')).toBeFocused()
}

/** The dev stack's injected test wallet (`installTestWallet`) in Connect's list. */
export const testWalletRow = (page: Page) =>
  widget(page)
    .getByRole('list', { name: 'Connect a wallet' })
    .getByRole('button', { name: /Porthole Test Wallet/ })

/** Opens Connect and points at the email field: an embedded wallet is in play, so the widget makes the secure frame. */
export async function startEmailLogin(page: Page): Promise<void> {
  await openModal(page)
  await widget(page).getByPlaceholder('Email').click()
}

/** From Account: Send, the token whose option matches `token`, the amount and receiver, then Preview. */
export async function fillSend(
  page: Page,
  send: { token: RegExp; amount: string; receiver: string },
): Promise<void> {
  const frame = widget(page)
  await openModal(page)
  await frame.getByRole('button', { name: 'Send', exact: true }).click()
  const select = frame.getByRole('combobox', { name: 'Token' })
  const option = select.locator('option').filter({ hasText: send.token })
  await expect(option).toHaveCount(1)
  await select.selectOption((await option.getAttribute('value')) ?? '')
  await frame.getByRole('textbox', { name: 'Amount' }).fill(send.amount)
  await frame.getByRole('textbox', { name: 'Receiver address' }).fill(send.receiver)
  await frame.getByRole('button', { name: 'Preview send' }).click()
}

/** What a phone's scanner reads off the QR code `svg` (an `<svg>` element in a frame). */
export async function scanQr(svg: Locator): Promise<string | undefined> {
  const size = 240
  const pixels = await svg.evaluate(svgPixels, size)
  return jsQR(Uint8ClampedArray.from(pixels), size, size)?.data
}
