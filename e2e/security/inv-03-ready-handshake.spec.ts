/**
 * SECURITY.md 1, 2 and 3 against the widget's `ready`, which starts the
 * handshake (red team of 353a366): frames nested in the widget, a popup of the
 * widget's origin, a widget document that navigates away, the host page's own
 * script and a cross-site page try to get a hello (a MessagePort) anywhere but
 * the real widget document, to tear down a live channel, or to revive a
 * destroyed wallet.
 */
import { expect, type Page, test } from '@playwright/test'
import {
  expectOnlyReadies,
  handshaken,
  hostState,
  openHost,
  openModal,
  origins,
  routeWidget,
  widgetFrame,
} from '../fixtures.ts'

const demo = origins.demo
const widgetOrigin = origins.widget
const evil = origins.evil
const channel = 'porthole:host-widget'
/** A well-formed ready, as another document would forge it. */
const ready = { porthole: 1, kind: 'ready', channel, id: '00000000-0000-4000-8000-000000000001' }

type Scope = {
  Wallet: {
    open(): Promise<void>
    destroy(): void
    getState(): { open: boolean }
    provider: { request(args: unknown): Promise<unknown> }
  }
  stub: { requests: string[]; hang: boolean }
  hellos: number
}

/**
 * A stand-in widget (as e2e/loader.spec.ts's), which also counts every hello
 * reaching it and, like the real widget, accepts one only. `extra` runs after
 * its ready (`postReady()` posts it again).
 */
const standIn = (extra = '') => `<!doctype html><html><body><script>
const channel = '${channel}'
const state = { open: false, view: 'Connect', status: 'disconnected', caipAddress: null, address: null, chainId: null, connector: null, session: null }
let port
window.hellos = 0
const emit = (name, data) => port.postMessage({ porthole: 1, kind: 'evt', name, data })
window.stub = { requests: [], hang: false }
addEventListener('message', (event) => {
  if (event.data?.kind !== 'hello') return
  window.hellos++
  if (port || event.source !== parent || event.data.channel !== channel) return event.ports.forEach((p) => p.close())
  port = event.ports[0]
  port.onmessage = ({ data }) => {
    if (data.kind !== 'req') return
    stub.requests.push(data.method)
    if (stub.hang) return
    const reply = (result) => port.postMessage({ porthole: 1, kind: 'res', id: data.id, ok: true, ...(result === undefined ? {} : { result }) })
    if (data.method === 'open') { state.open = true; emit('state', { ...state }); return reply() }
    if (data.method === 'close') { state.open = false; emit('state', { ...state }); return reply() }
    if (data.method === 'providerRequest') return reply(data.params.method === 'eth_chainId' ? '0x7a69' : [])
    reply()
  }
  port.postMessage({ porthole: 1, kind: 'welcome', channel })
  emit('state', { ...state })
})
const readyId = crypto.randomUUID()
window.postReady = () => parent.postMessage({ porthole: 1, kind: 'ready', channel, id: readyId }, '*')
postReady()
${extra}
</script></body></html>`

/** A page that catches hellos (and posts a ready of its own to `target`, from any origin). */
const catcher = (target: string) => `<!doctype html><script>
window.hellos = 0
addEventListener('message', (event) => { if (event.data?.kind === 'hello') { window.hellos++; document.title = 'caught' } })
try { ${target}.postMessage(${JSON.stringify(ready)}, '*') } catch {}
</script>`

/** Serves `html` at `url` for every page of the context (frames and popups). */
const serve = (page: Page, url: string, html: string) =>
  page.context().route(url, (route) => route.fulfill({ contentType: 'text/html', body: html }))

async function openDemo(page: Page) {
  await page.goto(`${demo}/`)
  await page.waitForFunction(
    () => typeof (window as unknown as Partial<Scope>).Wallet?.getState === 'function',
  )
}

/**
 * The demo host, its frame started (2 s), then how open() settled within 25 s
 * (the real widget's cold start on a loaded machine, as A4 allows).
 */
async function openAfterStart(page: Page): Promise<string> {
  await openHost(page)
  await page.waitForTimeout(2_000)
  return (await settle(page, 'open', 25_000)).outcome
}

/** How a call made in the page settled, and when (ms), within `limit` ms. */
type Settled = { outcome: string; after: number }
const settle = (page: Page, call: 'open' | 'accounts', limit: number): Promise<Settled> =>
  page.evaluate<Settled, { call: string; limit: number }>(
    ({ call, limit }) => {
      const { Wallet } = window as unknown as Scope
      const started = performance.now()
      const promise =
        call === 'open' ? Wallet.open() : Wallet.provider.request({ method: 'eth_accounts' })
      return Promise.race<Settled>([
        promise.then(
          () => ({ outcome: 'resolved', after: Math.round(performance.now() - started) }),
          (error: { code?: unknown; data?: { reason?: string }; message: string }) => ({
            outcome: `rejected ${error.code} ${error.data?.reason ?? error.message}`,
            after: Math.round(performance.now() - started),
          }),
        ),
        new Promise<Settled>((resolve) =>
          setTimeout(() => resolve({ outcome: 'pending', after: limit }), limit),
        ),
      ])
    },
    { call, limit },
  )

test.describe('inv-03 the ready handshake', () => {
  test('A1 a ready from frames nested in the widget or from a popup of its origin starts nothing', async ({
    page,
  }) => {
    await serve(page, `${widgetOrigin}/redteam-nested`, catcher('top'))
    await serve(page, `${evil}/redteam-nested`, catcher('top'))
    await serve(page, `${widgetOrigin}/redteam-popup`, catcher('opener'))
    // The widget document itself frames two children that post a ready to the host.
    await routeWidget(
      page,
      standIn(`for (const src of ['${widgetOrigin}/redteam-nested', '${evil}/redteam-nested']) {
        const f = document.createElement('iframe'); f.src = src; document.body.append(f) }`),
    )
    await openDemo(page)
    await handshaken(page)
    const popupPromise = page.waitForEvent('popup')
    await page.evaluate((src) => void window.open(src), `${widgetOrigin}/redteam-popup`)
    const popup = await popupPromise
    await popup.waitForLoadState()
    const nested = () => widgetFrame(page).childFrames()
    await expect.poll(() => nested().length).toBe(2)
    for (const frame of nested()) await frame.waitForLoadState()
    await page.waitForTimeout(1_000)
    await handshaken(page)
    expect(await widgetFrame(page).evaluate(() => (window as unknown as Scope).hellos)).toBe(1)
    for (const frame of nested())
      expect(await frame.evaluate(() => (window as unknown as Scope).hellos)).toBe(0)
    expect(await popup.evaluate(() => (window as unknown as Scope).hellos)).toBe(0)
  })

  test('A2b a widget document posts a ready and navigates away in the same task', async ({
    page,
  }) => {
    test.setTimeout(60_000)
    await serve(page, `${evil}/redteam-catch`, catcher('parent'))
    await routeWidget(
      page,
      standIn(
        `window.leave = () => { parent.postMessage({ porthole: 1, kind: 'ready', channel, id: crypto.randomUUID() }, '*'); location.href = '${evil}/redteam-catch' }`,
      ),
    )
    await openDemo(page)
    await handshaken(page)
    for (let round = 0; round < 5; round++) {
      await widgetFrame(page).evaluate(() => (window as unknown as { leave(): void }).leave())
      await expect.poll(() => page.frames().some((f) => f.url().startsWith(`${evil}/`))).toBe(true)
      await page.waitForTimeout(1_000)
      const frame = page.frames().find((f) => f.url().startsWith(`${evil}/`))
      expect(await frame?.evaluate(() => (window as unknown as Scope).hellos)).toBe(0)
      // Back to the stand-in widget for the next round.
      await page.evaluate((src) => {
        const f = document.querySelector<HTMLIFrameElement>('iframe[title="Porthole wallet"]')
        if (f) f.src = src
      }, `${widgetOrigin}/?projectId=porthole-dev&theme=system`)
      await handshaken(page)
    }
  })

  test('A4 a forged (synthetic) ready dispatched by script in the host page', async ({ page }) => {
    test.setTimeout(60_000)
    await openHost(page)
    await openModal(page)
    await page.keyboard.press('Escape')
    await expect.poll(async () => (await hostState(page)).open).toBe(false)
    await page.evaluate(
      ({ data, origin }) => {
        const frame = document.querySelector<HTMLIFrameElement>('iframe[title="Porthole wallet"]')
        dispatchEvent(new MessageEvent('message', { data, origin, source: frame?.contentWindow }))
      },
      { data: ready, origin: widgetOrigin },
    )
    const open = await settle(page, 'open', 25_000)
    expect(open.outcome).toBe('resolved')
  })

  test('A5 a synthetic ready with source null before the frame is mounted', async ({ page }) => {
    test.setTimeout(60_000)
    await page.addInitScript(
      ({ data, origin }) => {
        addEventListener('porthole:ready', () =>
          dispatchEvent(new MessageEvent('message', { data, origin, source: null })),
        )
      },
      { data: ready, origin: widgetOrigin },
    )
    expect(await openAfterStart(page)).toBe('resolved')
  })

  for (const removed of [true, false])
    test(`A5b a trusted ready whose frame is ${removed ? 'gone (source null)' : 'still there (control)'}, before the wallet's frame is mounted`, async ({
      page,
    }) => {
      test.setTimeout(60_000)
      // Another document of the widget's origin on the page (a previous wallet's
      // frame, say) posts its ready and is removed before the ready is delivered.
      // The real widget, in a second frame.
      await page.addInitScript(
        ({ src, removed }) => {
          addEventListener('porthole:ready', () => {
            const other = document.createElement('iframe')
            other.src = src
            document.documentElement.append(other)
            const until = performance.now() + 4_000
            while (performance.now() < until) {}
            if (removed) other.remove()
          })
        },
        { src: `${widgetOrigin}/?projectId=porthole-dev&other=1`, removed },
      )
      expect(await openAfterStart(page)).toBe('resolved')
    })

  test('A9 a document repeating its ready (as the widget does until a hello) gets one hello; the channel stays', async ({
    page,
  }) => {
    // Before and after its hello is answered: the repeats a lost ready needs.
    await routeWidget(
      page,
      standIn('postReady(); setTimeout(postReady, 100); setTimeout(postReady, 400)'),
    )
    await openDemo(page)
    await handshaken(page)
    await page.waitForTimeout(600)
    expect(await widgetFrame(page).evaluate(() => (window as unknown as Scope).hellos)).toBe(1)
    expect((await settle(page, 'open', 5_000)).outcome).toBe('resolved')
    await handshaken(page)
  })

  test('A7 a cross-site page framing the widget learns the ready only', async ({ page }) => {
    await page.goto(`${evil}/attacker.html`)
    await page.evaluate((src) => {
      const scope = window as unknown as { seen: unknown[] }
      scope.seen = []
      addEventListener('message', (e) => scope.seen.push({ origin: e.origin, data: e.data }))
      const iframe = document.createElement('iframe')
      iframe.src = src
      document.body.replaceChildren(iframe)
    }, `${widgetOrigin}/?projectId=porthole-dev`)
    const seen = () => page.evaluate(() => (window as unknown as { seen: unknown[] }).seen)
    // A new renderer, the widget's page and its prefetch script: a loaded machine may take seconds.
    await expect.poll(async () => (await seen()).length, { timeout: 20_000 }).toBeGreaterThan(0)
    // The widget repeats its ready until a hello: let a few repeats come, then read them all.
    await page.waitForTimeout(1_000)
    expectOnlyReadies(await seen())
  })

  test('A10 the widget reloaded before a busy host handled its first ready: the old ready’s hello is refused, the new document connects', async ({
    page,
  }) => {
    test.setTimeout(60_000)
    // Before the loader's own listener: at the widget's first ready, reload
    // the frame and keep the main thread busy, so that ready is handled only
    // once the next document is up (red team of 67067c7).
    await page.addInitScript(() => {
      let done = false
      addEventListener('message', (event) => {
        const frame = document.querySelector<HTMLIFrameElement>('iframe[title="Porthole wallet"]')
        if (done || event.data?.kind !== 'ready' || event.source !== frame?.contentWindow) return
        done = true
        frame.src = `${frame.src}`
        const until = performance.now() + 1_500
        while (performance.now() < until) {}
      })
    })
    await openHost(page)
    expect((await settle(page, 'open', 25_000)).outcome).toBe('resolved')
    await handshaken(page)
  })

  test('A8 destroy(): the message listener, and a frame put back after destroy', async ({
    page,
  }) => {
    await routeWidget(page, standIn())
    await openDemo(page)
    await handshaken(page)
    const cdp = await page.context().newCDPSession(page)
    const messageListeners = async () => {
      const { result } = await cdp.send('Runtime.evaluate', { expression: 'window' })
      const { listeners } = await cdp.send('DOMDebugger.getEventListeners', {
        objectId: result.objectId as string,
      })
      return listeners.filter((l) => l.type === 'message').length
    }
    const before = await messageListeners()
    // Five create/destroy cycles, as a single-page app mounting and unmounting the wallet.
    for (let cycle = 0; cycle < 5; cycle++) {
      await page.evaluate(() => {
        const scope = window as unknown as Partial<Scope>
        scope.Wallet?.destroy()
        delete scope.Wallet
      })
      await page.evaluate((src) => {
        const script = document.createElement('script')
        script.dataset.projectId = 'porthole-dev'
        script.src = `${src}?cycle=${Math.random()}`
        document.head.append(script)
        return new Promise((resolve) => script.addEventListener('load', resolve))
      }, `${widgetOrigin}/loader.js`)
    }
    await handshaken(page)
    const after = await messageListeners()
    // Resurrection: the page keeps the frame of a destroyed wallet and puts it back.
    const revived = await page.evaluate(async () => {
      const scope = window as unknown as Scope & { kept?: HTMLIFrameElement }
      const frame = document.querySelector<HTMLIFrameElement>('iframe[title="Porthole wallet"]')
      const destroyed = scope.Wallet
      destroyed.destroy()
      if (frame) document.body.append(frame)
      await new Promise((resolve) => setTimeout(resolve, 3_000))
      return destroyed.open().then(
        () => 'the destroyed wallet opened again',
        (error: Error) => `rejected: ${error.message}`,
      )
    })
    expect(after).toBe(before)
    expect(revived).toBe('rejected: Porthole was destroyed.')
  })
})
