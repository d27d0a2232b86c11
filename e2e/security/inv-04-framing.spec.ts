/**
 * SECURITY.md 4 (framing) in the browser: the secure frame's per-project
 * `frame-ancestors` lets it render only under the widget on an allowed host.
 * Chromium itself enforces the header; the frame itself accepts a handshake
 * from the widget's origin only (SECURITY.md 1).
 */
import { expect, type Frame, type Page, test } from '@playwright/test'
import { projects } from '@porthole/dev-stack/stack'
import { openHost, origins, startEmailLogin } from '../fixtures.ts'

const secureUrl = `${origins.secure}/?projectId=${projects.dev.id}`
const channel = 'porthole:widget-secure'

/** The sources of one directive of a CSP header. */
function directive(csp: string | null, name: string): string[] {
  for (const part of (csp ?? '').split(';')) {
    const [key, ...values] = part.trim().split(/\s+/)
    if (key === name) return values
  }
  return []
}

/**
 * Opens the demo page on `origin` and embeds the secure frame in it directly, not
 * through the widget. (A real page: Chromium blocks a page that Playwright fulfils
 * from framing loopback servers, as a public page reaching the local network.)
 */
async function frameDirectly(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/`)
  await page.evaluate((src) => {
    const iframe = document.createElement('iframe')
    iframe.title = 'Direct secure frame'
    iframe.src = src
    document.body.append(iframe)
  }, secureUrl)
}

/** The secure-origin frame embedded by the page itself, once there is one. */
const directFrame = (page: Page) =>
  page
    .frames()
    .find(
      (frame) =>
        frame.parentFrame() === page.mainFrame() && frame.url().startsWith(`${origins.secure}/`),
    )

/** The page's frame showing a document from the secure origin, once there is one. */
async function secureFrame(page: Page): Promise<Frame> {
  const find = () => page.frames().find((frame) => frame.url().startsWith(`${origins.secure}/`))
  await expect.poll(() => find() !== undefined).toBe(true)
  return find() as Frame
}

/** The frame's theme; null before its root exists or while it navigates (a poll goes on). */
const rootTheme = (frame: Frame) =>
  frame.evaluate(() => document.documentElement?.dataset.theme ?? null).catch(() => null)

test.describe('inv-04 framing', () => {
  test('under the widget on an allowed host, the secure frame loads, is ready and follows the theme', async ({
    page,
  }) => {
    // Every CSP violation in every frame (Chromium does not log a caught eval to the console).
    await page.addInitScript(() => {
      const scope = window as unknown as { cspViolations: string[] }
      scope.cspViolations = []
      document.addEventListener('securitypolicyviolation', (event) => {
        scope.cspViolations.push(`${event.effectiveDirective} ${event.blockedURI}`)
      })
    })
    const served = page.waitForResponse((response) =>
      response.url().startsWith(`${origins.secure}/?`),
    )
    await openHost(page)
    await startEmailLogin(page)
    const response = await served
    expect(response.status()).toBe(200)
    const csp = await response.headerValue('content-security-policy')
    // frame-ancestors checks every ancestor: the widget and the top-level host are both named.
    expect(directive(csp, 'frame-ancestors')).toEqual(
      expect.arrayContaining([origins.widget, origins.demo]),
    )
    expect(directive(csp, 'frame-ancestors')).not.toContain(origins.evil)
    expect(directive(csp, 'connect-src')).toEqual([origins.api])

    const frame = await secureFrame(page)
    expect(frame.parentFrame()?.url()).toMatch(new RegExp(`^${origins.widget}/`))
    // The widget syncs its theme only once the frame's READY arrived (plus the 500 ms
    // ready delay), and the frame's syncTheme handler writes it on its root element.
    await expect.poll(() => rootTheme(frame)).toMatch(/^(light|dark)$/)
    await page.evaluate(() =>
      (window as unknown as { Wallet: { setTheme(theme: string): void } }).Wallet.setTheme('dark'),
    )
    await expect.poll(() => rootTheme(frame)).toBe('dark')
    await page.evaluate(() =>
      (window as unknown as { Wallet: { setTheme(theme: string): void } }).Wallet.setTheme('light'),
    )
    await expect.poll(() => rootTheme(frame)).toBe('light')
    // The frame runs under its strict CSP without a single violation (no inline style, no
    // eval: zod's JIT probe is off, no fetch outside connect-src).
    expect(
      await frame.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations),
    ).toEqual([])
  })

  test('an unlisted site framing the secure frame directly is blocked by Chromium', async ({
    page,
  }) => {
    const messages: string[] = []
    page.on('console', (message) => messages.push(message.text()))
    const served = page.waitForResponse((response) => response.url() === secureUrl)
    await frameDirectly(page, origins.evil)
    const response = await served
    // The server answers; it is the browser that refuses to render it under this ancestor.
    expect(response.status()).toBe(200)
    expect(
      directive(await response.headerValue('content-security-policy'), 'frame-ancestors'),
    ).not.toContain(origins.evil)
    // Chromium reports the violation ("Framing '…' violates … frame-ancestors …") and
    // shows its error page in place of the frame: no document from the secure origin exists.
    await expect
      .poll(() =>
        messages.some((text) => /frame-ancestors/.test(text) && text.includes(origins.secure)),
      )
      .toBe(true)
    const element = await page.locator('iframe[title="Direct secure frame"]').elementHandle()
    const child = await element?.contentFrame()
    expect(child).toBeTruthy()
    expect(child?.url()).not.toMatch(new RegExp(`^${origins.secure}/`))
    expect(directFrame(page)).toBeUndefined()
  })

  test('an allowed host framing it directly, not through the widget, gets no handshake', async ({
    page,
  }) => {
    await frameDirectly(page, origins.demo)
    await expect.poll(() => directFrame(page) !== undefined).toBe(true)
    const frame = directFrame(page) as Frame
    await frame.waitForLoadState('load')
    // The app is running in the frame: its module script ran before `load`, so its handshake
    // listener exists. Record every port message the frame posts, and each hello it sees: a
    // listener added now runs after the app's own for the same message, and the app would
    // post its welcome synchronously inside that listener.
    await frame.evaluate(() => {
      const scope = window as unknown as { posted: unknown[]; postedAtHello: number[] }
      scope.posted = []
      scope.postedAtHello = []
      const post = MessagePort.prototype.postMessage as (...args: unknown[]) => void
      MessagePort.prototype.postMessage = function (this: MessagePort, ...args: unknown[]) {
        scope.posted.push(args[0])
        post.apply(this, args)
      } as MessagePort['postMessage']
      window.addEventListener('message', () => scope.postedAtHello.push(scope.posted.length))
    })

    const received = page.evaluate(
      ({ origin, channel }) =>
        new Promise<unknown[]>((resolve) => {
          const iframe = document.querySelector<HTMLIFrameElement>(
            'iframe[title="Direct secure frame"]',
          )
          const { port1, port2 } = new MessageChannel()
          const messages: unknown[] = []
          port1.addEventListener('message', (event) => messages.push(event.data))
          port1.start()
          iframe?.contentWindow?.postMessage({ porthole: 1, kind: 'hello', channel }, origin, [
            port2,
          ])
          // A welcome is posted while the frame handles the hello; by the time the frame has
          // handled it (checked below) it would be on its way. Collect for a moment more.
          setTimeout(() => resolve(messages), 1_000)
        }),
      { origin: origins.secure, channel },
    )
    // The hello reached the secure document and was handled without posting anything.
    await expect
      .poll(() =>
        frame.evaluate(() => (window as unknown as { postedAtHello: number[] }).postedAtHello),
      )
      .toEqual([0])
    // The host's port got no welcome.
    expect(await received).toEqual([])
    // And no channel exists: nothing was posted and the frame never took a theme.
    expect(await frame.evaluate(() => (window as unknown as { posted: unknown[] }).posted)).toEqual(
      [],
    )
    expect(await rootTheme(frame)).toBeNull()
  })
})
