/**
 * The loader on the demo host (packages/loader, DESIGN.md section 2): the
 * Wallet API, the frame it reveals and hides, the EIP-1193 provider and its
 * EIP-6963 announcement. The first group runs against the real widget; the
 * second serves a small stand-in widget document (via `page.route`) so that the
 * widget can misbehave: never answer, reload, raise alerts, open by itself.
 */
import { expect, type Page, test } from '@playwright/test'
import {
  expectFrameHidden,
  expectFrameShown,
  handshaken,
  holdWidgetApp,
  routeWidget,
  widgetFrame,
  widgetHandshake,
} from './fixtures.ts'

const demo = 'http://127.0.0.1:5170'
const widgetOrigin = 'http://widget.localhost:5171'

type Wallet = {
  open(options?: { view?: string }): Promise<void>
  close(): Promise<void>
  getState(): { open: boolean; view: string }
  subscribe(listener: (state: { open: boolean }) => void): () => void
  destroy(): void
  provider: { request(args: unknown): Promise<unknown> }
}
type Stub = {
  emit(name: string, data: unknown): void
  setOpen(open: boolean): void
  requests: string[]
  hang: boolean
}
/** What these tests read on the `window` of the host page and of the stand-in widget. */
type Scope = { Wallet: Wallet; stub: Stub; readyWallet?: unknown }
type Rejection = { message: string; code: unknown; data: unknown; isError: boolean }

/** The demo host, once `window.Wallet` is the real wallet (its Connect button works from then on). */
async function openDemo(page: Page) {
  await page.goto(`${demo}/`)
  await page.waitForFunction(() => {
    const { Wallet } = window as unknown as Partial<Scope>
    return typeof Wallet?.getState === 'function'
  })
}

const frame = (page: Page) => page.getByTitle('Porthole wallet')
const connectButton = (page: Page) => page.getByRole('button', { name: 'Connect' })
const isOpen = (page: Page) =>
  page.evaluate(() => (window as unknown as Scope).Wallet.getState().open)

/** Runs `Wallet.provider.request(args)` in the page and returns how it rejected. */
const rejectionOf = (page: Page, args: unknown) =>
  page.evaluate((args) => {
    const { Wallet } = window as unknown as Scope
    return Wallet.provider.request(args).then(
      () => null,
      (error: Error & { code?: unknown; data?: unknown }): Rejection => ({
        message: error.message,
        code: error.code,
        data: error.data,
        isError: error instanceof Error,
      }),
    )
  }, args)

/** Every `[Porthole]` console message of the page, as it comes. */
function portholeConsole(page: Page) {
  const messages: { type: string; text: string }[] = []
  page.on('console', (message) => {
    if (message.text().startsWith('[Porthole]'))
      messages.push({ type: message.type(), text: message.text() })
  })
  return messages
}

test.describe('loader with the widget', () => {
  test('Wallet.open() reveals the frame, focuses it and locks page scroll', async ({ page }) => {
    await openDemo(page)
    await expectFrameHidden(page)
    await expect(page.locator('html')).not.toHaveCSS('overflow', 'hidden')

    await connectButton(page).click()
    await expectFrameShown(page)
    await expect(frame(page)).toBeFocused()
    await expect(page.locator('html')).toHaveCSS('overflow', 'hidden')
    await expect.poll(() => isOpen(page)).toBe(true)
  })

  test('the closed frame takes no click and no Tab, and its modal is inert', async ({ page }) => {
    await openDemo(page)
    await expectFrameHidden(page)
    const modal = page.frameLocator('iframe[title="Porthole wallet"]').locator('[role="dialog"]')
    await expect(modal.locator('[data-wallet-id]').first()).toBeAttached()
    // The rendered but closed modal is inert: none of its controls takes focus.
    await expect(modal.locator('xpath=..')).toHaveAttribute('inert', '')
    const focusable = await modal
      .locator('[data-wallet-id]')
      .first()
      .evaluate((row) => {
        ;(row as HTMLElement).focus()
        return document.activeElement === row
      })
    expect(focusable).toBe(false)
    // The frame covers the page, yet a click at the Connect button's place reaches it.
    const box = await connectButton(page).boundingBox()
    if (!box) throw new Error('The Connect button has no box.')
    const hit = await page.evaluate(
      ({ x, y }) => document.elementFromPoint(x, y)?.textContent ?? null,
      { x: box.x + box.width / 2, y: box.y + box.height / 2 },
    )
    expect(hit).toBe('Connect')
    // Tab from the page's last control never lands in the closed modal.
    await connectButton(page).focus()
    for (let presses = 0; presses < 4; presses++) {
      await page.keyboard.press('Tab')
      expect(
        await page.evaluate(() => document.activeElement?.getAttribute('title') ?? null),
      ).not.toBe('Porthole wallet')
    }
  })

  test('the frame starts after the page has loaded, or at once when the page calls open() earlier', async ({
    page,
  }) => {
    // An image that holds the page's load event for as long as the test wants.
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    await page.route(`${demo}/held.png`, async (route) => {
      await held
      await route.fulfill({ status: 404 })
    })
    await page.addInitScript(() => {
      document.addEventListener('DOMContentLoaded', () => {
        const image = document.createElement('img')
        image.src = '/held.png'
        document.body.append(image)
      })
    })
    await page.goto(`${demo}/`, { waitUntil: 'domcontentloaded' })
    await page.waitForFunction(
      () => typeof (window as unknown as Partial<Scope>).Wallet?.getState === 'function',
    )
    expect(await page.evaluate(() => document.readyState)).not.toBe('complete')
    await expect(frame(page)).toHaveCount(0)
    // The visitor does not wait for the page's load: open() mounts the frame.
    await connectButton(page).click()
    await expectFrameShown(page)
    await expect(
      page.frameLocator('iframe[title="Porthole wallet"]').getByRole('dialog', {
        name: 'Connect Wallet',
      }),
    ).toBeVisible()
    expect(await page.evaluate(() => document.readyState)).not.toBe('complete')
    release()
  })

  test('with the page loaded before open(), the frame is already there, hidden', async ({
    page,
  }) => {
    await openDemo(page)
    await page.waitForFunction(() => document.readyState === 'complete')
    await expect(frame(page)).toHaveCount(1)
    await expectFrameHidden(page)
  })

  test('a state with open: false hides the frame and returns focus to the opener', async ({
    page,
  }) => {
    await openDemo(page)
    await connectButton(page).click()
    await expect(frame(page)).toBeFocused()
    await expect.poll(() => isOpen(page)).toBe(true)

    await page.evaluate(() => (window as unknown as Scope).Wallet.close())
    await expectFrameHidden(page)
    await expect(connectButton(page)).toBeFocused()
    await expect(page.locator('html')).not.toHaveCSS('overflow', 'hidden')
    expect(await isOpen(page)).toBe(false)
  })

  test('Escape in the modal closes it and returns focus to the opener', async ({ page }) => {
    await openDemo(page)
    await connectButton(page).click()
    await expect(frame(page)).toBeFocused()
    await expect.poll(() => isOpen(page)).toBe(true)

    await page.keyboard.press('Escape')
    await expectFrameHidden(page)
    await expect(connectButton(page)).toBeFocused()
    await expect(page.locator('html')).not.toHaveCSS('overflow', 'hidden')
  })

  test('with no wallet connected, eth_accounts is empty and signing rejects 4100', async ({
    page,
  }) => {
    await openDemo(page)
    const accounts = await page.evaluate(() =>
      (window as unknown as Scope).Wallet.provider.request({ method: 'eth_accounts' }),
    )
    expect(accounts).toEqual([])
    expect(
      await rejectionOf(page, { method: 'personal_sign', params: ['0x68690a', '0x0'] }),
    ).toMatchObject({ code: 4100, isError: true })
  })

  test('bad request arguments reject with -32602 and a clear message', async ({ page }) => {
    await openDemo(page)
    for (const args of [undefined, 'eth_accounts', { method: '' }, { method: 'm', params: 1 }]) {
      expect(await rejectionOf(page, args)).toMatchObject({
        code: -32602,
        isError: true,
        message: expect.stringMatching(/^Invalid request arguments: /),
      })
    }
  })

  test('EIP-6963: a listener registered after load finds the provider', async ({ page }) => {
    await openDemo(page)
    const found = await page.evaluate(() => {
      const { Wallet } = window as unknown as Scope
      const details: { info: { rdns?: unknown }; provider: unknown }[] = []
      window.addEventListener('eip6963:announceProvider', (event) => {
        details.push((event as CustomEvent).detail)
      })
      window.dispatchEvent(new Event('eip6963:requestProvider'))
      const ours = details.filter((detail) => detail.info.rdns === 'xyz.porthole')
      return {
        count: ours.length,
        info: ours[0]?.info,
        isProvider: ours[0]?.provider === Wallet.provider,
        frozen: Object.isFrozen(ours[0]) && Object.isFrozen(ours[0]?.info),
      }
    })
    expect(found).toEqual({
      count: 1,
      info: {
        uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-/),
        name: 'Porthole',
        icon: expect.stringMatching(/^data:image\/svg\+xml,/),
        rdns: 'xyz.porthole',
      },
      isProvider: true,
      frozen: true,
    })
  })

  test('Wallet.destroy() rejects pending requests and removes the frame', async ({ page }) => {
    await openDemo(page)
    await expect(frame(page)).toBeAttached()
    const rejections = await page.evaluate(async () => {
      const { Wallet } = window as unknown as Scope
      const describe = (error: Error & { code?: unknown }) => ({
        code: error.code,
        message: error.message,
      })
      const pending = Wallet.provider.request({ method: 'eth_accounts' })
      Wallet.destroy()
      return {
        pending: await pending.then(() => null, describe),
        after: await Wallet.open().then(() => null, describe),
      }
    })
    expect(rejections).toEqual({
      pending: { code: 4900, message: 'Porthole was destroyed.' },
      after: { code: 4900, message: 'Porthole was destroyed.' },
    })
    await expect(frame(page)).toHaveCount(0)
  })

  test('the frame is sandboxed without top navigation and grants clipboard-write only', async ({
    page,
  }) => {
    await openDemo(page)
    await expect(frame(page)).toHaveAttribute(
      'sandbox',
      'allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-forms',
    )
    await expect(frame(page)).toHaveAttribute('allow', 'clipboard-write')
    // No theme on the tag: none in the URL (the widget's default is the system's).
    await expect(frame(page)).toHaveAttribute('src', `${widgetOrigin}/?projectId=porthole-dev`)
  })
})

/**
 * A stand-in widget: it speaks the protocol by hand, and the test drives it
 * through `window.stub` in the frame.
 */
const standIn = `<!doctype html><html><body><button type="button">Close</button><script>
const channel = 'porthole:host-widget'
const state = { open: false, view: 'Connect', status: 'disconnected', caipAddress: null, address: null, chainId: null, connector: null, session: null }
let port
const emit = (name, data) => port.postMessage({ porthole: 1, kind: 'evt', name, data })
const setOpen = (open) => { state.open = open; emit('state', { ...state }) }
window.stub = { emit, setOpen, requests: [], hang: false }
addEventListener('message', (event) => {
  if (event.source !== parent || event.data?.kind !== 'hello' || event.data.channel !== channel) return
  port = event.ports[0]
  port.onmessage = ({ data }) => {
    if (data.kind !== 'req') return
    stub.requests.push(data.method)
    if (stub.hang) return
    const reply = (result) => port.postMessage({ porthole: 1, kind: 'res', id: data.id, ok: true, ...(result === undefined ? {} : { result }) })
    const fail = (code, message) => port.postMessage({ porthole: 1, kind: 'res', id: data.id, ok: false, error: { code, message } })
    if (data.method === 'open') { setOpen(true); return reply() }
    if (data.method === 'close') { setOpen(false); return reply() }
    if (data.method === 'providerRequest')
      return data.params.method === 'eth_chainId' ? reply('0x7a69') : fail(4900, 'Disconnected')
    reply()
  }
  port.postMessage({ porthole: 1, kind: 'welcome', channel })
  emit('state', { ...state })
})
document.querySelector('button').onclick = () => setOpen(false)
parent.postMessage({ porthole: 1, kind: 'ready', channel, id: crypto.randomUUID() }, '*')
</script></body></html>`

const requestsSeen = (page: Page) =>
  widgetFrame(page).evaluate(() => (window as unknown as Scope).stub.requests.length)

const hang = (page: Page) =>
  widgetFrame(page).evaluate(() => {
    ;(window as unknown as Scope).stub.hang = true
  })

/** Adds a loader script tag to the page, as a site would. */
const addLoaderTag = (page: Page, attributes: Record<string, string>) =>
  page.evaluate(
    ({ src, attributes }) => {
      const script = document.createElement('script')
      for (const [name, value] of Object.entries(attributes)) script.setAttribute(name, value)
      script.src = src
      document.head.append(script)
      return new Promise((resolve) => script.addEventListener('load', resolve))
    },
    { src: `${widgetOrigin}/loader.js`, attributes },
  )

test.describe('loader with a stand-in widget', () => {
  test('calls queued on the README stub before loader.js ran are replayed, then porthole:ready fires', async ({
    page,
  }) => {
    await routeWidget(page, standIn)
    // What a site runs before the async loader arrives (README: the queue way).
    await page.addInitScript(() => {
      const scope = window as unknown as {
        Wallet?: { q: unknown[]; open(options?: unknown): void }
        readyWallet?: unknown
      }
      scope.Wallet = scope.Wallet || {
        q: [],
        open: function (o?: unknown) {
          this.q.push(['open', o])
        },
      }
      scope.Wallet.open({ view: 'AllWallets' })
      window.addEventListener('porthole:ready', (event) => {
        scope.readyWallet = (event as CustomEvent).detail
      })
    })
    await page.goto(`${demo}/`)
    await page.waitForFunction(() => (window as unknown as Scope).readyWallet)
    expect(
      await page.evaluate(() => {
        const { readyWallet, Wallet } = window as unknown as Scope
        return readyWallet === Wallet && typeof Wallet.getState === 'function'
      }),
    ).toBe(true)
    await expectFrameShown(page)
    await expect.poll(() => isOpen(page)).toBe(true)
  })

  test('the script tag: data-theme, a missing data-project-id, and loading twice', async ({
    page,
  }) => {
    const messages = portholeConsole(page)
    await routeWidget(page, standIn)
    await openDemo(page)

    // Loaded twice: the first wallet and its frame stay.
    await addLoaderTag(page, { 'data-project-id': 'porthole-dev' })
    await expect(frame(page)).toHaveCount(1)

    await page.evaluate(() => {
      const scope = window as unknown as Partial<Scope>
      scope.Wallet?.destroy()
      delete scope.Wallet
    })
    await addLoaderTag(page, {})
    await expect
      .poll(() => messages)
      .toEqual([{ type: 'error', text: expect.stringContaining('data-project-id') }])
    await expect(frame(page)).toHaveCount(0)
    expect(await page.evaluate(() => 'Wallet' in window)).toBe(false)

    await addLoaderTag(page, { 'data-project-id': 'porthole-dev', 'data-theme': 'dark' })
    await expect(frame(page)).toHaveAttribute(
      'src',
      `${widgetOrigin}/?projectId=porthole-dev&theme=dark`,
    )
    await handshaken(page)
    expect(messages).toHaveLength(1)

    // The site look's attributes go to the widget as they are (it checks them).
    await page.evaluate(() => {
      const scope = window as unknown as Partial<Scope>
      scope.Wallet?.destroy()
      delete scope.Wallet
    })
    await addLoaderTag(page, {
      'data-project-id': 'porthole-dev',
      'data-theme-accent': '#0a7d32',
      'data-theme-radius': '8',
      'data-theme-font': 'Georgia, serif',
    })
    await expect(frame(page)).toHaveAttribute(
      'src',
      `${widgetOrigin}/?projectId=porthole-dev&themeAccent=%230a7d32&themeRadius=8&themeFont=Georgia%2C+serif`,
    )
  })

  test('a frame that never answers the handshake fails after 20 s: one warning, calls reject', async ({
    page,
  }) => {
    const messages = portholeConsole(page)
    await page.clock.install()
    await routeWidget(page, '<!doctype html><title>silent</title>')
    await openDemo(page)
    const pending = rejectionOf(page, { method: 'eth_accounts' })
    await page.clock.runFor(20_000)
    expect(await pending).toMatchObject({ code: -32603, data: { reason: 'iframe_load_failed' } })
    expect(await rejectionOf(page, { method: 'eth_accounts' })).toMatchObject({
      data: { reason: 'iframe_load_failed' },
    })
    const opened = await page.evaluate(() =>
      (window as unknown as Scope).Wallet.open().then(null, (error) => error.data.reason),
    )
    expect(opened).toBe('iframe_load_failed')
    await expectFrameHidden(page)
    expect(messages).toEqual([
      {
        type: 'warning',
        text: expect.stringMatching(/^\[Porthole\] The wallet frame did not load/),
      },
    ])
  })

  test('a frame whose prefetch script took the hello but whose app never ran fails after 20 s; the app arriving later opens nothing', async ({
    page,
  }) => {
    const messages = portholeConsole(page)
    await page.clock.install()
    // The widget's own page, its app's entry held: only its prefetch script runs.
    const release = await holdWidgetApp(page)
    await openDemo(page)
    const pending = rejectionOf(page, { method: 'eth_accounts' })
    const opened = page.evaluate(() =>
      (window as unknown as Scope).Wallet.open().then(null, (error) => error.data.reason),
    )
    // The prefetch script has taken the host's hello (and welcomed it) before the clock runs on.
    await expect.poll(() => widgetHandshake(page)).toBe(demo)
    await page.clock.runFor(20_000)
    expect(await pending).toMatchObject({ code: -32603, data: { reason: 'iframe_load_failed' } })
    expect(await opened).toBe('iframe_load_failed')
    await expectFrameHidden(page)
    // The app arrives late and takes the `open` still queued on its port: the host's
    // channel is closed, so nothing shows and the host's state stays closed.
    release()
    await expect(widgetFrame(page).locator('#root')).not.toHaveAttribute('hidden')
    await page.clock.runFor(1_000)
    await expectFrameHidden(page)
    expect(await page.evaluate(() => (window as unknown as Scope).Wallet.getState().open)).toBe(
      false,
    )
    expect(messages).toEqual([
      {
        type: 'warning',
        text: expect.stringMatching(/^\[Porthole\] The wallet frame did not load/),
      },
    ])
  })

  test('each alert of the widget logs one warning for the developer', async ({ page }) => {
    const messages = portholeConsole(page)
    await routeWidget(page, standIn)
    await openDemo(page)
    await handshaken(page)
    await widgetFrame(page).evaluate(() =>
      (window as unknown as Scope).stub.emit('alert', {
        code: 'UNVERIFIED_DOMAIN',
        message: 'This domain is not verified.',
      }),
    )
    await expect
      .poll(() => messages)
      .toEqual([{ type: 'warning', text: '[Porthole] This domain is not verified.' }])
  })

  test('the widget opening by itself reveals the frame; its own close hides it', async ({
    page,
  }) => {
    await routeWidget(page, standIn)
    await openDemo(page)
    await handshaken(page)
    await connectButton(page).focus()
    await widgetFrame(page).evaluate(() => (window as unknown as Scope).stub.setOpen(true))
    await expectFrameShown(page)
    await expect(frame(page)).toBeFocused()
    await expect(page.locator('html')).toHaveCSS('overflow', 'hidden')

    const next = page.evaluate(
      () =>
        new Promise((resolve) => {
          const stop = (window as unknown as Scope).Wallet.subscribe((state) => {
            stop()
            resolve(state)
          })
        }),
    )
    await page
      .frameLocator('iframe[title="Porthole wallet"]')
      .getByRole('button', { name: 'Close' })
      .click()
    expect(await next).toMatchObject({ open: false })
    await expectFrameHidden(page)
    await expect(connectButton(page)).toBeFocused()
    await expect(page.locator('html')).not.toHaveCSS('overflow', 'hidden')
  })

  test('a reload of the widget makes a new channel; what was pending on the old one rejects', async ({
    page,
  }) => {
    await routeWidget(page, standIn)
    await openDemo(page)
    await handshaken(page)
    const seen = await requestsSeen(page)
    await hang(page)
    const pending = rejectionOf(page, { method: 'eth_accounts' })
    await expect.poll(() => requestsSeen(page)).toBe(seen + 1)
    await page.evaluate(() => {
      const iframe = document.querySelector<HTMLIFrameElement>('iframe[title="Porthole wallet"]')
      if (iframe) iframe.src = `${iframe.src}`
    })
    expect(await pending).toMatchObject({ code: 4900 })
    await handshaken(page)
  })

  test("the handshake starts at the widget's ready, not at the frame's load: an image that never arrives holds nothing", async ({
    page,
  }) => {
    // The frame's `load` waits for every image its document asked for: this one never answers.
    await page.route(`${widgetOrigin}/never.png`, () => {})
    await routeWidget(page, standIn.replace('<body>', '<body><img src="/never.png" alt="">'))
    await openDemo(page)
    await handshaken(page)
    expect(await widgetFrame(page).evaluate(() => document.readyState)).not.toBe('complete')
  })

  test('inv-03 a ready from any other window or origin starts no handshake: the live channel stays', async ({
    page,
  }) => {
    const sibling = `<!doctype html><script>
      window.hellos = 0
      addEventListener('message', (event) => { if (event.data?.kind === 'hello') window.hellos++ })
      parent.postMessage({ porthole: 1, kind: 'ready', channel: 'porthole:host-widget', id: crypto.randomUUID() }, '*')
    </script>`
    await routeWidget(page, standIn)
    await page.route(`${widgetOrigin}/sibling`, (route) =>
      route.fulfill({ contentType: 'text/html', body: sibling }),
    )
    await openDemo(page)
    await handshaken(page)
    const seen = await requestsSeen(page)
    // A sibling frame of the widget's own origin, and one of the page's origin.
    await page.evaluate(
      ({ src, srcdoc }) => {
        for (const [name, value] of [
          ['src', src],
          ['srcdoc', srcdoc],
        ] as const) {
          const frame = document.createElement('iframe')
          frame.title = 'Sibling'
          frame.setAttribute(name, value)
          document.body.append(frame)
        }
      },
      { src: `${widgetOrigin}/sibling`, srcdoc: sibling },
    )
    const siblings = () =>
      page.frames().filter((frame) => frame !== page.mainFrame() && frame !== widgetFrame(page))
    await expect.poll(() => siblings().length).toBe(2)
    for (const frame of siblings())
      await frame.waitForFunction(() => document.readyState === 'complete')
    // The same document answers on the same channel; no sibling got a hello.
    await handshaken(page)
    expect(await requestsSeen(page)).toBeGreaterThan(seen)
    for (const frame of siblings())
      expect(await frame.evaluate(() => (window as unknown as { hellos: number }).hellos)).toBe(0)
  })

  test('a frame removed by the page rejects what waits on it', async ({ page }) => {
    await routeWidget(page, standIn)
    await openDemo(page)
    await handshaken(page)
    await hang(page)
    const rejection = await page.evaluate(() => {
      const pending = (window as unknown as Scope).Wallet.provider.request({
        method: 'eth_accounts',
      })
      document.querySelector('iframe[title="Porthole wallet"]')?.remove()
      return pending.then(null, (error) => ({ code: error.code, message: error.message }))
    })
    expect(rejection).toEqual({ code: 4900, message: 'The wallet frame was removed.' })
  })
})
