/**
 * SECURITY.md 23 (the strongest factor decides), for the email change (red
 * team, issue 16): the host may not open its views by name, so it cannot run
 * the change behind a hidden widget; the visitor starts it from Account.
 * (embedded.spec.ts runs the change itself, and checks that the current
 * address's mail names the new one.)
 */
import { expect, test } from '@playwright/test'
import { hostState, openHost } from '../fixtures.ts'

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
