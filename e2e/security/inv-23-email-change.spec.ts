/**
 * SECURITY.md 23 (the strongest factor decides), for the email change (red
 * team, issue 16): the host may not open its views by name, so it cannot run
 * the change behind a hidden widget; the visitor starts it from Account.
 * And SECURITY.md 7: a host that hides the widget under its own page and
 * talks the visitor into clicking and typing there gets no change, and no
 * mail, until the visitor approves it in the secure origin's approval window.
 * (embedded.spec.ts runs the change itself, and checks that the current
 * address's mail names the new one.)
 */
import { expect, type Page, test } from '@playwright/test'
import { mailCount, stackMessages } from '@porthole/dev-stack/stackMail'
import { decideInWindow, freshEmail, loginWithEmail, secureFrame } from '../embeddedFixtures.ts'
import { hostState, openHost, openModal, origins, widget } from '../fixtures.ts'

type OpenWindow = Window & {
  Wallet: { open(options: { view: string }): Promise<void> }
}

test('inv-23 Wallet.open cannot reach the email-change views: 4200, and the modal stays shut', async ({
  page,
}) => {
  await openHost(page)
  for (const view of ['UpdateEmailWallet', 'UpdateEmailPrimaryOtp', 'UpdateEmailSecondaryOtp']) {
    const outcome = await page.evaluate(
      (view) =>
        (window as unknown as OpenWindow).Wallet.open({ view }).then(
          () => 'opened',
          (error: { code?: number; message?: string }) => [error.code, error.message],
        ),
      view,
    )
    expect(outcome).toEqual([4200, expect.stringContaining('opens from Account only')])
  }
  expect((await hostState(page)).open).toBe(false)
})

/**
 * The hostile host's page: the widget all but transparent, and its own decoy
 * drawn over it, letting every click and key through to the widget beneath.
 */
async function hideUnderDecoy(page: Page) {
  await page.evaluate(() => {
    const style = document.createElement('style')
    style.dataset.decoy = ''
    style.textContent = 'iframe[title="Porthole wallet"]{opacity:0.01!important}'
    document.head.append(style)
    const decoy = document.createElement('div')
    decoy.dataset.decoy = ''
    decoy.textContent =
      'Claim your reward: click below, type the address we gave you, then the code'
    decoy.style.cssText =
      'position:fixed;inset:0;z-index:2147483647;pointer-events:none;background:#fff;font:24px sans-serif'
    document.body.append(decoy)
  })
}

/**
 * Clicks 'Open approval window' in the frame, again until the frame says the
 * window opened; the window.
 */
async function openApprovalWindow(page: Page): Promise<Page> {
  const opened = page.context().waitForEvent('page', { timeout: 30_000 })
  const frame = secureFrame(page)
  await expect(async () => {
    await frame.getByRole('button', { name: 'Open approval window' }).click()
    await expect(frame.getByRole('status')).toHaveText('Continue in the approval window.', {
      timeout: 2_000,
    })
  }).toPass({ timeout: 20_000 })
  const popup = await opened
  await popup.waitForLoadState()
  return popup
}

test('inv-07 a host that hides the widget under a decoy gets no email change and no mail until the visitor approves in the approval window', async ({
  page,
}) => {
  test.setTimeout(120_000)
  await openHost(page)
  const victim = freshEmail('victim')
  const attacker = freshEmail('attacker')
  await loginWithEmail(page, victim)
  await openModal(page)
  await hideUnderDecoy(page)

  // The visitor clicks and types where the decoy says: Change email, the attacker's address.
  const frame = widget(page)
  await frame.getByRole('button', { name: 'Change email' }).click()
  await expect(frame.getByText(`Current email: ${victim}`)).toBeAttached()
  await frame.getByLabel('New email').fill(attacker)
  const continueButton = frame.getByRole('button', { name: 'Continue' })
  // The login's mail went out moments ago: the first update mail waits its 30 s.
  await expect(continueButton).toBeEnabled({ timeout: 35_000 })
  const since = await mailCount()
  const mailed = async () =>
    (await stackMessages())
      .slice(since)
      .filter((mail) => mail.to.includes(victim) || mail.to.includes(attacker))
      .map((mail) => `${mail.to.join(',')}: ${mail.subject}`)
  await continueButton.click()

  // Before the fix the change went straight on: a code mailed to the visitor, the code step shown.
  const launcher = secureFrame(page).getByRole('button', { name: 'Open approval window' })
  const codeStep = frame.getByText(`Enter the code we sent to ${victim}`)
  await expect
    .poll(async () => {
      if (await codeStep.isVisible()) return 'the code step, with no approval'
      if (await launcher.isVisible()) return 'the approval'
      return 'nothing yet'
    })
    .toBe('the approval')
  expect(await mailed()).toEqual([])

  // Under the decoy Chromium itself drops clicks into the secure frame, or opens no window
  // for them, and does so for a moment after the cover goes: the test does not lean on that.
  // Uncovered, the visitor opens the approval window (clicking again until it opens): a
  // top-level window of the secure origin, where the host draws nothing, saying plainly what
  // would happen.
  await page.evaluate(() => {
    document.querySelector('[data-decoy]')?.remove()
    for (const style of document.querySelectorAll('style[data-decoy]')) style.remove()
  })
  const popup = await openApprovalWindow(page)
  expect(new URL(popup.url()).origin).toBe(origins.secure)
  await expect(
    popup.getByRole('heading', {
      name: `Change this wallet's email from ${victim} to ${attacker}`,
    }),
  ).toBeVisible()
  await expect(popup.getByText(origins.demo, { exact: true })).toBeVisible()
  await decideInWindow(popup, 'Reject')

  // Rejected: the flow ends with an error, nothing was mailed, the email is the visitor's.
  await expect(frame.getByRole('alert')).toHaveText(
    'The email change was rejected in the approval window. Nothing changed.',
  )
  await expect(frame.getByText(`Current email: ${victim}`)).toBeAttached()
  expect(await mailed()).toEqual([])

  // Control: the same path, approved by the visitor, goes on (the first code to the current address).
  await continueButton.click()
  const approved = await openApprovalWindow(page)
  await decideInWindow(approved, 'Approve')
  await expect(codeStep).toBeAttached()
  await expect.poll(mailed).toEqual([`${victim}: Confirm your Porthole email change`])
})
