/**
 * SECURITY.md 23: a device the account has not used gets the key only after
 * the strongest factor the account has. An account made by email login has
 * its email: a "Google" login (the OIDC stand-in) on a fresh browser, for a
 * Google account with that same verified email, must not get the key at
 * once. The email's device approval is mailed; the wallet connects, with the
 * account's address, only once it is followed (and its code entered); then
 * the Google identity is linked, and signs that device in without mail.
 */
import { type BrowserContext, expect, type Page, test } from '@playwright/test'
import {
  mailCount,
  stackMessages,
  waitForApprovalLink,
  waitForCode,
} from '@porthole/dev-stack/stackMail'
import { approveDevice, freshEmail, loginWithEmail } from '../embeddedFixtures.ts'
import { hostState, openHost, openModal, origins, widget } from '../fixtures.ts'

/**
 * Makes the stand-in Google sign in `email` in this context: its
 * authorization requests carry `login_hint` (the stack's stand-in makes a
 * Google account of an email it does not know; @porthole/dev-stack/oidcProvider).
 */
async function googleAccount(context: BrowserContext, email: string) {
  await context.route(
    (url) => url.origin === origins.idp && url.pathname === '/auth',
    (route) => {
      const url = new URL(route.request().url())
      url.searchParams.set('login_hint', email)
      return route.continue({ url: url.href })
    },
  )
}

/** What the widget shows once a social login has come back. */
async function socialOutcome(page: Page) {
  if ((await hostState(page)).status === 'connected') return 'connected'
  const form = widget(page)
  if (await form.getByText('Approve this device', { exact: true }).isVisible()) return 'approval'
  if (await form.getByLabel('Code from the email').isVisible()) return 'code'
  const alert = form.getByRole('alert')
  const text = (await alert.allTextContents()).join(' ')
  const wait = Number(text.match(/Please try again after (\d+) seconds/)?.[1])
  if (wait) return { throttled: wait }
  return 'pending'
}

/**
 * Signs in with Google, once more after the wait the API names when a mail
 * went to the address under 30 s ago (SECURITY.md 13); answers the outcome.
 */
async function googleLogin(page: Page) {
  const form = widget(page)
  await form.getByRole('button', { name: 'Google' }).click()
  let retryAt = 0
  await expect
    .poll(
      async () => {
        const outcome = await socialOutcome(page)
        if (typeof outcome === 'string') return outcome
        if (retryAt === 0) retryAt = Date.now() + outcome.throttled * 1000
        if (Date.now() >= retryAt) {
          retryAt = 0
          await form.getByRole('button', { name: 'Try again' }).click()
        }
        return 'pending'
      },
      { timeout: 75_000, intervals: [1_000] },
    )
    .not.toBe('pending')
  return socialOutcome(page)
}

test.describe('inv-23 the strongest factor decides', () => {
  test('a Google login on a new device of an account with an email needs that email’s device approval', async ({
    page,
    browser,
  }) => {
    test.setTimeout(180_000)
    const email = freshEmail('strongest')
    await openHost(page)
    const address = await loginWithEmail(page, email)

    const context = await browser.newContext()
    try {
      await googleAccount(context, email)
      const other = await context.newPage()
      await openHost(other)
      await openModal(other)
      const since = await mailCount()
      // The attack: the provider's word alone released the whole key on this device.
      expect(await googleLogin(other)).toBe('approval')
      expect((await hostState(other)).address).toBeNull()

      await approveDevice(context, await waitForApprovalLink(email, since))
      await widget(other)
        .getByLabel('Code from the email')
        .fill(await waitForCode(email, since))
      await expect
        .poll(async () => (await hostState(other)).status, { timeout: 20_000 })
        .toBe('connected')
      expect((await hostState(other)).address).toBe(address)

      // Positive control: the code linked the Google identity; on this verified
      // device Google alone now signs in, and no mail is sent.
      await other.evaluate(() =>
        (window as unknown as { Wallet: { disconnect(): Promise<void> } }).Wallet.disconnect(),
      )
      await expect.poll(async () => (await hostState(other)).status).toBe('disconnected')
      const before = await mailCount()
      await openModal(other)
      await widget(other).getByRole('button', { name: 'Google' }).click()
      await expect
        .poll(async () => (await hostState(other)).address, { timeout: 30_000 })
        .toBe(address)
      expect(
        (await stackMessages()).slice(before).filter((mail) => mail.to.includes(email)),
      ).toEqual([])
    } finally {
      await context.close()
    }
  })
})
