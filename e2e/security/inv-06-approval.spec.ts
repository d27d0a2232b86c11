/**
 * SECURITY.md 6 and 8 in the browser, with an email wallet on the dev stack:
 * only a real click on Approve in the secure origin's approval window, once
 * armed, runs a signature; the approval binds to the request it shows; and the
 * origin shown is the browser's. (7, the host painting over the approval, is
 * inv-07-clickjacking.spec.ts.)
 */
import { expect, type Page, test } from '@playwright/test'
import type { Address, Hex } from 'viem'
import { verifyMessage } from 'viem'
import {
  approvalWindow,
  approveInWindow,
  decideInWindow,
  freshEmail,
  loginWithEmail,
  pendingOutcome,
  primaryButton,
  rejectButton,
  secureFrame,
  secureFrameOf,
  settled,
  signBoth,
  startRequest,
} from '../embeddedFixtures.ts'
import { openHost, origins } from '../fixtures.ts'

const hex = (text: string) => `0x${Buffer.from(text).toString('hex')}`

async function signedIn(page: Page): Promise<Address> {
  await openHost(page)
  return loginWithEmail(page, freshEmail('inv06'))
}

test.describe('inv-06 approval', () => {
  test('a synthetic click, a dispatched event and posted "approve" messages do nothing', async ({
    page,
  }) => {
    const address = await signedIn(page)
    await startRequest(page, 'personal_sign', [hex('only a real click'), address])
    await expect(primaryButton(page)).toBeVisible()

    // Synthetic clicks on the frame's button open no window.
    const opened: Page[] = []
    page.context().on('page', (popup) => opened.push(popup))
    await secureFrameOf(page).evaluate(() => {
      const open = [...document.querySelectorAll('button')].find(
        (button) => button.textContent?.trim() === 'Open approval window',
      )
      open?.click()
      open?.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }))
      open?.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))
    })
    // The host posts approvals at the widget and at the secure frame, in every
    // shape it can, addressed to each one's exact origin so they are delivered.
    await page.evaluate(
      ({ widgetOrigin, secureOrigin }) => {
        const widget = document.querySelector<HTMLIFrameElement>('iframe[title="Porthole wallet"]')
        const targets = [
          [widget?.contentWindow, widgetOrigin],
          [widget?.contentWindow?.frames[0], secureOrigin],
        ] as const
        for (const [target, origin] of targets)
          for (const data of [
            'approve',
            { type: 'approve' },
            { porthole: 1, kind: 'res', id: crypto.randomUUID(), ok: true, result: '0x' },
            { action: 'APPROVE', approved: true },
          ])
            target?.postMessage(data, origin)
      },
      { widgetOrigin: origins.widget, secureOrigin: origins.secure },
    )
    await page.waitForTimeout(1_500)
    expect(await settled(page)).toBe(false)
    expect(opened).toHaveLength(0)

    // In the window, once armed, synthetic clicks and key events still do nothing.
    const popup = await approvalWindow(page)
    const approve = popup.getByRole('button', { name: 'Approve' })
    await expect(approve).toBeEnabled()
    await popup.evaluate(() => {
      const button = [...document.querySelectorAll('button')].find(
        (candidate) => candidate.textContent?.trim() === 'Approve',
      )
      button?.click()
      button?.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }))
      button?.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))
    })
    await page.waitForTimeout(500)
    expect(await settled(page)).toBe(false)

    await decideInWindow(popup, 'Approve')
    const outcome = await pendingOutcome(page)
    expect(
      await verifyMessage({
        address,
        message: 'only a real click',
        signature: outcome.result as Hex,
      }),
    ).toBe(true)
  })

  test('approving request A never answers request B; B is shown afresh and can be rejected', async ({
    page,
  }) => {
    const address = await signedIn(page)
    const outcomes = await signBoth(page, address, { a: hex('request A'), b: hex('request B') })

    await expect(secureFrame(page).getByText('request A')).toBeVisible()
    await approveInWindow(page)
    await expect.poll(async () => Object.keys(await outcomes())).toEqual(['a'])
    const { a } = (await outcomes()) as { a: { result: Hex } }
    expect(await verifyMessage({ address, message: 'request A', signature: a.result })).toBe(true)

    // B now shows, in a window of its own: nothing carried over from A.
    await expect(secureFrame(page).getByText('request B')).toBeVisible()
    const popup = await approvalWindow(page)
    await expect(popup.getByText('request B')).toBeVisible()
    await expect(popup.getByText('request A')).toHaveCount(0)
    await decideInWindow(popup, 'Reject')
    await expect.poll(async () => (await outcomes()).b).toEqual({ error: 4001 })
  })
})

test.describe('inv-08 honest origin', () => {
  test('the approval names the origin the browser reports, for each allowed host', async ({
    page,
  }) => {
    const address = await signedIn(page)
    await startRequest(page, 'personal_sign', [hex('which site?'), address])
    await expect(secureFrame(page).getByText(origins.demo, { exact: true })).toBeVisible()
    await rejectButton(page).click()
    expect((await pendingOutcome(page)).error?.code).toBe(4001)

    // The same wallet from the other allowed origin shows that origin instead.
    const other = 'http://localhost:5170'
    await openHost(page, { origin: other })
    const otherAddress = await loginWithEmail(page, freshEmail('inv08'))
    await startRequest(page, 'personal_sign', [hex('which site?'), otherAddress])
    await expect(secureFrame(page).getByText(other, { exact: true })).toBeVisible()
    await expect(secureFrame(page).getByText(origins.demo, { exact: true })).toHaveCount(0)
    await rejectButton(page).click()
  })
})
