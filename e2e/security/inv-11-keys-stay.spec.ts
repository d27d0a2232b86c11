/**
 * SECURITY.md 11 and 12 in the browser: after an email login and a signature,
 * the session token and the auth share the secure frame received never appear
 * in the host's or the widget's storage, nor in the frame's own storage in
 * plaintext; the login code travels from the widget to the secure frame to
 * the API only, and the host page never sees it. Also SECURITY.md 1 and 4 for
 * the secure frame: the host cannot talk to it, and an unlisted host gets no
 * embedded wallet at all.
 */
import { expect, type Frame, type Page, test } from '@playwright/test'
import {
  approveInWindow,
  freshEmail,
  loginWithEmail,
  pendingOutcome,
  secureFrameOf,
  startRequest,
} from '../embeddedFixtures.ts'
import {
  expectOnlyReadies,
  openHost,
  openModal,
  origins,
  startEmailLogin,
  widget,
} from '../fixtures.ts'

/** Every string the frame's storage APIs hold (localStorage, and IndexedDB records as JSON-ish text). */
async function storageDump(frame: Frame | Page): Promise<string> {
  return frame.evaluate(async () => {
    const parts: string[] = []
    try {
      for (let index = 0; index < localStorage.length; index++) {
        const key = localStorage.key(index) ?? ''
        parts.push(key, localStorage.getItem(key) ?? '')
      }
    } catch {}
    const decode = (value: unknown): string => {
      if (value instanceof ArrayBuffer) return new TextDecoder().decode(value)
      if (ArrayBuffer.isView(value))
        return new TextDecoder().decode(value.buffer.slice(0, value.byteLength))
      if (value && typeof value === 'object')
        return Object.entries(value)
          .map(([key, inner]) => `${key}:${decode(inner)}`)
          .join(' ')
      return String(value)
    }
    for (const { name } of await indexedDB.databases()) {
      if (!name) continue
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open(name)
        request.onsuccess = () => resolve(request.result)
        request.onerror = () => reject(request.error)
      })
      for (const store of db.objectStoreNames) {
        const values = await new Promise<unknown[]>((resolve, reject) => {
          const request = db.transaction(store).objectStore(store).getAll()
          request.onsuccess = () => resolve(request.result)
          request.onerror = () => reject(request.error)
        })
        parts.push(store, ...values.map(decode))
      }
      db.close()
    }
    return parts.join('\n')
  })
}

const widgetFrameOf = (page: Page): Frame => {
  const frame = page.frames().find((candidate) => candidate.url().startsWith(origins.widget))
  if (!frame) throw new Error('The widget frame is not loaded')
  return frame
}

test.describe('inv-11 keys stay in the secure frame', () => {
  test('the token and the auth share reach no other storage, and the frame stores them encrypted', async ({
    page,
  }) => {
    const secrets: string[] = []
    page.on('response', async (response) => {
      const url = new URL(response.url())
      if (url.origin !== origins.api) return
      if (url.pathname === '/auth/v1/login/email/verify' || url.pathname === '/wallet/v1/shares') {
        const body = (await response.json().catch(() => ({}))) as {
          token?: string
          authShare?: string
          recoveryShare?: string
        }
        for (const value of [body.token, body.authShare, body.recoveryShare])
          if (value) secrets.push(value)
      }
    })
    // A new wallet's two server shares leave the frame once, in the PUT that stores them.
    page.on('request', (request) => {
      if (request.method() !== 'PUT' || !request.url().includes('/wallet/v1/shares')) return
      const body = JSON.parse(request.postData() ?? '{}') as Record<string, unknown>
      for (const key of ['authShare', 'recoveryShare'])
        if (typeof body[key] === 'string') secrets.push(body[key] as string)
    })
    await openHost(page)
    const address = await loginWithEmail(page, freshEmail('inv11'))
    await startRequest(page, 'personal_sign', ['0x6869', address])
    await approveInWindow(page)
    expect((await pendingOutcome(page)).error).toBeUndefined()

    // The token, the auth share and the recovery share all passed the test's eyes.
    expect(secrets.length).toBeGreaterThanOrEqual(3)
    const host = await storageDump(page)
    const widgetStorage = await storageDump(widgetFrameOf(page))
    const secure = await storageDump(secureFrameOf(page))
    expect(secure.length).toBeGreaterThan(0)
    for (const secret of secrets) {
      expect(host).not.toContain(secret)
      expect(widgetStorage).not.toContain(secret)
      expect(secure).not.toContain(secret)
    }
  })
})

test.describe('inv-12 credentials stay ours', () => {
  test('the login code goes from the widget to the secure frame to the API only; the host sees nothing', async ({
    page,
  }) => {
    await page.addInitScript(() => {
      const seen: unknown[] = []
      ;(window as unknown as { __seen: unknown[] }).__seen = seen
      window.addEventListener('message', (event) =>
        seen.push({ origin: event.origin, data: event.data }),
      )
    })
    const carriers: { url: string; frame: string }[] = []
    page.on('request', (request) => {
      const body = request.postData() ?? ''
      if (/"otp":"\d{6}"/.test(body))
        carriers.push({ url: request.url(), frame: new URL(request.frame().url()).origin })
    })
    await openHost(page)
    await loginWithEmail(page, freshEmail('inv12'))
    expect(carriers).toEqual([
      {
        url: expect.stringContaining(`${origins.api}/auth/v1/login/email/verify`),
        frame: origins.secure,
      },
    ])
    // The host page cannot read the widget's document, and no window message
    // reached it but the widget's ready, which carries the channel's name and the document's id only.
    expect(
      await page.evaluate(
        () =>
          document.querySelector<HTMLIFrameElement>('iframe[title="Porthole wallet"]')
            ?.contentDocument ?? null,
      ),
    ).toBeNull()
    expectOnlyReadies(
      await page.evaluate(() => (window as unknown as { __seen: unknown[] }).__seen),
    )
  })
})

test.describe('inv-01 the secure frame takes the widget only', () => {
  test('a hello from the host page gets no welcome, and its requests no answer', async ({
    page,
  }) => {
    await openHost(page)
    // The secure frame is made once an embedded wallet is in play.
    await startEmailLogin(page)
    await expect(widget(page).locator('[data-secure-frame]')).toHaveAttribute(
      'data-secure-frame',
      'ready',
    )
    const answers = await page.evaluate(async (secureOrigin) => {
      const widgetWindow = document.querySelector<HTMLIFrameElement>(
        'iframe[title="Porthole wallet"]',
      )?.contentWindow
      const secure = widgetWindow?.frames[0]
      if (!secure) return ['no secure frame']
      const received: unknown[] = []
      const channel = new MessageChannel()
      channel.port1.onmessage = (event) => received.push(event.data)
      // Addressed to the frame's exact origin: delivered, and still refused.
      secure.postMessage(
        { porthole: 1, kind: 'hello', channel: 'porthole:widget-secure' },
        secureOrigin,
        [channel.port2],
      )
      channel.port1.postMessage({
        porthole: 1,
        kind: 'req',
        id: crypto.randomUUID(),
        method: 'getUser',
        params: {},
      })
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      return received
    }, origins.secure)
    expect(answers).toEqual([])
  })
})

test.describe('inv-04 an unlisted host gets no embedded wallet', () => {
  test('on evil.localhost there is no email field and no secure frame', async ({ page }) => {
    await openHost(page, { origin: origins.evil })
    await openModal(page)
    await expect(widget(page).getByRole('alert').first()).toBeVisible()
    await expect(widget(page).getByPlaceholder('Email')).toHaveCount(0)
    await expect(widget(page).locator('iframe[title="Porthole secure frame"]')).toHaveCount(0)
  })
})
