/**
 * SECURITY.md 1, 2, 3 and 10: a sibling frame on another site, inside the
 * same host page, posts well-formed handshakes, requests and events at the
 * widget and at the loader (asking it to drive the page's wallets). It must
 * get no response and change nothing.
 */
import { expect, test } from '@playwright/test'
import { workerKey } from '@porthole/dev-stack/anvil'
import { installTestWallet } from '@porthole/dev-stack/testWallet'
import { expectOnlyReadies, hostState, openHost, openModal, origins, widget } from '../fixtures.ts'

test.describe('inv-01 bound peers', () => {
  test('a sibling frame posting well-formed messages gets no answer and changes nothing', async ({
    page,
  }) => {
    // The host starts on the system theme, light here: the attacker asks for dark.
    await page.emulateMedia({ colorScheme: 'light' })
    await openHost(page)
    const card = widget(page).getByRole('dialog')
    await expect(card).toBeAttached()
    await expect(card).toHaveAttribute('data-theme', 'light')
    const before = await hostState(page)

    await page.evaluate((src) => {
      const frame = document.createElement('iframe')
      frame.title = 'Sibling'
      frame.src = src
      document.body.append(frame)
    }, `${origins.evil}/attacker.html`)
    const result = page.frameLocator('iframe[title="Sibling"]').locator('#result')
    await expect(result).not.toHaveText('pending')
    const { targets, received } = JSON.parse((await result.textContent()) ?? '{}')
    expect(targets).toBeGreaterThanOrEqual(1)
    expect(received).toEqual([])

    // Nothing changed: the modal stayed closed and the theme request was ignored (the
    // attacker's messages were all posted before it wrote its result).
    expect(await hostState(page)).toEqual(before)
    expect(await card.getAttribute('data-theme')).toBe('light')
    // The real channel still works after the attack, and the same request from it does apply.
    await openModal(page)
    await expect(card).toBeVisible()
    await page.evaluate(() =>
      (window as unknown as { Wallet: { setTheme(theme: string): Promise<void> } }).Wallet.setTheme(
        'dark',
      ),
    )
    await expect(card).toHaveAttribute('data-theme', 'dark')
  })

  test("a sibling frame cannot drive the host page's wallets through the loader's bridge", async ({
    page,
  }) => {
    const wallet = await installTestWallet(page, {
      privateKey: workerKey(test.info().parallelIndex),
    })
    await openHost(page)
    // Wait until the widget knows the wallet (its connectors ask eth_accounts, which is allowed).
    await openModal(page)
    await expect(widget(page).getByRole('button', { name: /Porthole Test Wallet/ })).toBeVisible()
    await page.evaluate((src) => {
      const frame = document.createElement('iframe')
      frame.title = 'Sibling'
      frame.src = src
      document.body.append(frame)
    }, `${origins.evil}/attacker.html?uuid=${wallet.uuid}`)
    const result = page.frameLocator('iframe[title="Sibling"]').locator('#result')
    await expect(result).not.toHaveText('pending')
    expect(JSON.parse((await result.textContent()) ?? '{}').received).toEqual([])
    const methods = wallet.requests.map(({ method }) => method)
    expect(methods).not.toContain('eth_requestAccounts')
    expect(methods).not.toContain('personal_sign')
    expect((await hostState(page)).status).toBe('disconnected')
  })

  test("inv-02 the host page receives nothing but the widget's ready, which carries no data", async ({
    page,
  }) => {
    // Record every window message reaching the host page and the origin it claims.
    await page.addInitScript(() => {
      const seen: unknown[] = []
      ;(window as unknown as { __seen: unknown[] }).__seen = seen
      window.addEventListener('message', (event) => {
        seen.push({ origin: event.origin, data: event.data })
      })
    })
    await openHost(page)
    await openModal(page)
    await page.keyboard.press('Escape')
    await expect.poll(async () => (await hostState(page)).open).toBe(false)
    // Window messages: the widget's ready only (the loader's cue for its
    // hello), the channel's name and the document's id, nothing else. All
    // other traffic is on the port.
    expectOnlyReadies(
      await page.evaluate(() => (window as unknown as { __seen: unknown[] }).__seen),
    )
  })

  test('inv-03 a reload of the widget makes a new port and the host keeps working', async ({
    page,
  }) => {
    await openHost(page)
    await openModal(page)
    await page.keyboard.press('Escape')
    await expect.poll(async () => (await hostState(page)).open).toBe(false)
    // Reload the widget frame by navigating it to its own URL, and wait for the new document.
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          const frame = document.querySelector<HTMLIFrameElement>('iframe[title="Porthole wallet"]')
          if (!frame) return resolve()
          frame.addEventListener('load', () => resolve(), { once: true })
          frame.src = `${frame.src}`
        }),
    )
    await openModal(page)
    await expect(widget(page).getByRole('dialog')).toBeVisible()
  })
})
