/**
 * SECURITY.md 9: an embedded-wallet session belongs to the host origin and
 * project it was made on. The browser partitions the secure frame's storage
 * by top-level *site*, so two origins on one site (here two ports of
 * 127.0.0.1, both allowed for one project) share that storage: host B must
 * still not find host A's session. The device stays the same device (no
 * second approval), the account the same account (the same address).
 */
import { expect, type Page, test } from '@playwright/test'
import { mailCount, stackMessages, waitForCode } from '@porthole/dev-stack/stackMail'
import { freshEmail, loginWithEmail, type ProviderWindow } from '../embeddedFixtures.ts'
import { hostState, openHost, openModal, origins, widget } from '../fixtures.ts'

/** Both demo origins are allowed for it; email login is on (@porthole/dev-stack/stack). */
const projectId = 'porthole-e2e-same-site'

/** What the widget on `page` shows after Continue on an email. */
async function emailOutcome(page: Page, email: string) {
  if ((await hostState(page)).status === 'connected') return 'connected'
  const form = widget(page)
  if (await form.getByText(`Enter the code we sent to ${email}`).isVisible()) return 'code'
  if (await form.getByText('Approve this device', { exact: true }).isVisible()) return 'approval'
  const alert = form.getByRole('alert')
  if (/Please try again after/.test((await alert.allTextContents()).join(' '))) return 'throttled'
  return 'pending'
}

/**
 * Enters `email` and presses Continue until the login moves on: the 30 s
 * between two mails to one address (SECURITY.md 13) holds the first tries.
 */
async function continueWithEmail(page: Page, email: string) {
  const form = widget(page)
  await form.getByPlaceholder('Email').fill(email)
  await form.getByRole('button', { name: 'Continue' }).click()
  await expect
    .poll(
      async () => {
        const outcome = await emailOutcome(page, email)
        if (outcome === 'throttled') await form.getByRole('button', { name: 'Continue' }).click()
        return outcome
      },
      { timeout: 60_000, intervals: [1_000] },
    )
    .toMatch(/^(connected|code|approval)$/)
  return emailOutcome(page, email)
}

const reloadHost = async (page: Page) => {
  await page.reload()
  await page.waitForFunction(() => typeof (window as Partial<ProviderWindow>).Wallet === 'object')
}

test.describe('inv-09 embedded sessions are scoped to the host origin and project', () => {
  test('host B on the same site does not get host A’s session: a code is needed, then the same address', async ({
    page,
  }) => {
    test.setTimeout(150_000)
    const email = freshEmail('scoped')
    await openHost(page, { origin: origins.demo, projectId })
    const address = await loginWithEmail(page, email)

    // Host B: another origin of the same site, in the same browser.
    const hostB = await page.context().newPage()
    await openHost(hostB, { origin: origins.demoSameSite, projectId })
    await openModal(hostB)
    // Connected on load with A's session, B would show the account, not the email field.
    await expect(widget(hostB).getByPlaceholder('Email')).toBeVisible()
    const since = await mailCount()
    // The attack: A's email on B connects with A's session, no code asked.
    expect(await continueWithEmail(hostB, email)).toBe('code')
    await widget(hostB)
      .getByLabel('Code from the email')
      .fill(await waitForCode(email, since))
    await expect
      .poll(async () => (await hostState(hostB)).status, { timeout: 20_000 })
      .toBe('connected')
    // The same account, and the same device: no second device approval was mailed.
    expect((await hostState(hostB)).address).toBe(address)
    const approvals = (await stackMessages())
      .slice(since)
      .filter((mail) => mail.to.includes(email) && /approve/i.test(mail.subject))
    expect(approvals).toEqual([])

    // Signing out on B leaves A signed in: each origin has its own session.
    await hostB.evaluate(() => (window as unknown as ProviderWindow).Wallet.disconnect())
    await expect.poll(async () => (await hostState(hostB)).status).toBe('disconnected')

    // Positive control: a reload on A stays connected, with the same address.
    await reloadHost(page)
    await expect
      .poll(async () => (await hostState(page)).status, { timeout: 20_000 })
      .toBe('connected')
    expect((await hostState(page)).address).toBe(address)
  })
})
