/**
 * SECURITY.md 15: the social login's popup is the widget's own window, its
 * opener the widget. A fixed window name would let the host reach it: open a
 * window under that name first (to be the one the login reuses), or look the
 * name up while the login runs (to get a handle on the login window, and
 * navigate it). Every login opens a new window under a fresh, unguessable name.
 */
import { type BrowserContext, expect, type Page, test } from '@playwright/test'
import { expectWidgetAccessible } from '../axe.ts'
import { freshEmail } from '../embeddedFixtures.ts'
import { hostState, openHost, openModal, origins, widget } from '../fixtures.ts'

/** The widget's window while a test records the names it opens windows under. */
type Opening = Window & { openedNames: (string | undefined)[] }

/** The name the popup had before this fix: the one a host would try. */
const oldName = 'porthole-social'

/**
 * Signs in a fresh "Google" account in this context (the stand-in signs in
 * the login_hint's email), holding the provider's page until `release()`:
 * the login window stays open meanwhile.
 */
async function heldGoogleLogin(context: BrowserContext) {
  const email = freshEmail('popup')
  let release = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  await context.route(
    (url) => url.origin === origins.idp && url.pathname === '/auth',
    async (route) => {
      await released
      const url = new URL(route.request().url())
      url.searchParams.set('login_hint', email)
      await route.continue({ url: url.href })
    },
  )
  return release
}

/** Clicks Google and answers the window the login opened (not `except`). */
async function startGoogle(page: Page, except?: Page): Promise<Page> {
  const opened = page
    .context()
    .waitForEvent('page', { predicate: (candidate) => candidate !== except })
  await widget(page).getByRole('button', { name: 'Google' }).click()
  return opened
}

test.describe('inv-15 the social login popup is out of the host’s reach', () => {
  test('the host cannot look the login window up by name while the login runs', async ({
    page,
  }) => {
    const release = await heldGoogleLogin(page.context())
    await openHost(page)
    await openModal(page)
    // Records the names the widget opens windows under (it changes nothing else).
    const widgetFrame = page.frames().find((frame) => frame.url().startsWith(origins.widget))
    if (!widgetFrame) throw new Error('no widget frame')
    await widgetFrame.evaluate(() => {
      const open = window.open.bind(window)
      const opening = window as unknown as Opening
      opening.openedNames = []
      window.open = (url, name, features) => {
        opening.openedNames.push(name)
        return open(url, name, features)
      }
    })
    const loginWindow = await startGoogle(page)
    // The host asks for a window of the old name: it must get a new window of
    // its own (readable, same origin), not the widget's login window.
    const hostOpened = page.context().waitForEvent('page')
    const reached = await page.evaluate((name) => {
      const found = window.open('', name)
      try {
        void found?.location.href
        return 'its own window'
      } catch {
        return 'the login window'
      }
    }, oldName)
    expect(reached).toBe('its own window')
    expect(await hostOpened).not.toBe(loginWindow)
    // Not the old name: a fresh random one per login (read as the widget
    // opened it: the held window's own document does not always answer).
    expect(await widgetFrame.evaluate(() => (window as unknown as Opening).openedNames)).toEqual([
      expect.stringMatching(/^porthole-social-[0-9a-f-]{36}$/),
    ])

    // Positive control: released, the login in its own window connects.
    release()
    await expect
      .poll(async () => (await hostState(page)).status, { timeout: 20_000 })
      .toBe('connected')
  })

  test('a window the host pre-opened under the old name is not used for the login', async ({
    page,
  }) => {
    const release = await heldGoogleLogin(page.context())
    await openHost(page)
    const hostWindowOpened = page.waitForEvent('popup')
    await page.evaluate((name) => {
      window.open('about:blank', name)
    }, oldName)
    const hostWindow = await hostWindowOpened
    await openModal(page)
    const loginWindow = await startGoogle(page, hostWindow)
    expect(loginWindow).not.toBe(hostWindow)
    await expect.poll(async () => (await hostState(page)).view).toBe('ConnectingSocial')
    await expectWidgetAccessible(page, 'ConnectingSocial')
    release()
    await expect
      .poll(async () => (await hostState(page)).status, { timeout: 20_000 })
      .toBe('connected')
    expect(hostWindow.url()).toBe('about:blank')
  })
})
