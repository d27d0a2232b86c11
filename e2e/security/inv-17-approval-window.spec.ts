/**
 * SECURITY.md 15 and 17 in Chromium: the approval window of the secure origin
 * (where every approval is decided, SECURITY.md 7) keeps its checks when it
 * fails, and a request that the visitor or the host gives up on closes its
 * approval, answers once, and signs nothing afterwards.
 */
import { expect, type Page, test } from '@playwright/test'
import { anvil } from '@porthole/dev-stack/anvil'
import type { Address, Hex } from 'viem'
import { verifyMessage } from 'viem'
import {
  approvalWindow,
  approveInWindow,
  decideInWindow,
  freshEmail,
  loginWithEmail,
  type ProviderWindow,
  pendingOutcome,
  primaryButton,
  secureFrame,
  settled,
  signBoth,
  startRequest,
} from '../embeddedFixtures.ts'
import { hostState, openHost, origins } from '../fixtures.ts'

const hex = (text: string) => `0x${Buffer.from(text).toString('hex')}`

async function signedIn(page: Page, label: string): Promise<Address> {
  await openHost(page)
  return loginWithEmail(page, freshEmail(label))
}

test.describe('inv-15 the approval window', () => {
  test('a blocked window says so, leaves Reject usable (4001), and signs nothing', async ({
    page,
  }) => {
    const address = await signedIn(page, 'blocked')
    // The host takes allow-popups out of the widget frame's sandbox and reloads
    // it: the secure frame inside can open no window at all.
    await page.evaluate(
      () =>
        new Promise((resolve) => {
          const frame = document.querySelector<HTMLIFrameElement>('iframe[title="Porthole wallet"]')
          if (!frame) throw new Error('no widget frame')
          frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms')
          frame.addEventListener('load', resolve, { once: true })
          frame.contentWindow?.location.replace(frame.src)
        }),
    )
    await expect
      .poll(async () => (await hostState(page)).status, { timeout: 20_000 })
      .toBe('connected')
    await startRequest(page, 'personal_sign', [hex('blocked window'), address])
    await secureFrame(page).getByRole('button', { name: 'Open approval window' }).click()
    await expect(
      secureFrame(page).getByText(
        'The approval window was blocked. Allow pop-ups for this site, then try again.',
      ),
    ).toBeVisible()
    expect(await settled(page)).toBe(false)
    await secureFrame(page).getByRole('button', { name: 'Reject' }).click()
    expect((await pendingOutcome(page)).error?.code).toBe(4001)
  })

  test('closing the window without deciding answers 4001 and closes the approval', async ({
    page,
  }) => {
    const address = await signedIn(page, 'closed')
    await startRequest(page, 'personal_sign', [hex('closed window'), address])
    const popup = await approvalWindow(page)
    await expect(popup.getByRole('button', { name: 'Approve' })).toBeEnabled()
    await popup.close()
    expect((await pendingOutcome(page)).error?.code).toBe(4001)
    await expect(primaryButton(page)).toHaveCount(0)
  })

  test('two requests wait in turn, each decided in its own window', async ({ page }) => {
    const address = await signedIn(page, 'queued')
    const outcomes = await signBoth(page, address, {
      a: hex('first in line'),
      b: hex('second in line'),
    })

    const first = await approvalWindow(page)
    await expect(first.getByText('first in line')).toBeVisible()
    await decideInWindow(first, 'Reject')
    await expect.poll(async () => (await outcomes()).a).toEqual({ error: 4001 })
    expect((await outcomes()).b).toBeUndefined()

    const second = await approvalWindow(page)
    await expect(second.getByText('second in line')).toBeVisible()
    await decideInWindow(second, 'Approve')
    await expect.poll(async () => Object.keys(await outcomes()).sort()).toEqual(['a', 'b'])
    const { b } = (await outcomes()) as { b: { result: Hex } }
    expect(await verifyMessage({ address, message: 'second in line', signature: b.result })).toBe(
      true,
    )
  })
})

test.describe('inv-17 requests given up on', () => {
  test('the host page navigating away closes the approval window; nothing is signed', async ({
    page,
  }) => {
    const address = await signedIn(page, 'navigated')
    await startRequest(page, 'personal_sign', [hex('left behind'), address])
    const popup = await approvalWindow(page)
    await expect(popup.getByRole('button', { name: 'Approve' })).toBeEnabled()
    const closed = popup.waitForEvent('close')
    await page.goto('http://127.0.0.1:5170/health')
    await closed
    expect(popup.isClosed()).toBe(true)
  })

  test("the host's timeout closes the approval and its window, answers once, and nothing signs after", async ({
    page,
  }) => {
    // The whole context's clock, so the loader's timeout can be reached without waiting for it.
    await page.clock.install()
    const address = await signedIn(page, 'timeout')
    await page.evaluate(
      ({ message, address }) => {
        const target = window as unknown as {
          Wallet: {
            provider: { request(args: { method: string; params: unknown }): Promise<unknown> }
          }
          answers: unknown[]
        }
        target.answers = []
        target.Wallet.provider
          .request({ method: 'personal_sign', params: [message, address] })
          .then(
            (result) => target.answers.push({ result }),
            (error: { code?: number; data?: unknown }) =>
              target.answers.push({ error: { code: error.code, data: error.data } }),
          )
      },
      { message: hex('given up'), address },
    )
    const popup = await approvalWindow(page)
    const approve = popup.getByRole('button', { name: 'Approve' })
    await expect(approve).toBeEnabled()
    const closed = popup.waitForEvent('close')
    // Past the end-to-end limit for a provider request (10 minutes).
    await page.clock.fastForward('10:01')
    await closed
    const answers = () => page.evaluate(() => (window as unknown as { answers: unknown[] }).answers)
    await expect.poll(answers).toHaveLength(1)
    expect(await answers()).toEqual([
      { error: { code: -32603, data: { reason: 'iframe_request_timeout' } } },
    ])
    await expect(primaryButton(page)).toHaveCount(0)
    // Nothing more arrives later.
    await page.clock.fastForward('00:05')
    expect(await answers()).toHaveLength(1)
  })

  test('closing the modal after Approve, while the transaction is on its way, gives the host its real result', async ({
    page,
  }) => {
    const address = await signedIn(page, 'committed')
    await anvil.request({
      method: 'anvil_setBalance' as never,
      params: [address, '0xde0b6b3a7640000'] as never,
    })
    // A slow node: the broadcast is held until the modal has been closed.
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let broadcasting: () => void = () => {}
    const broadcast = new Promise<void>((resolve) => {
      broadcasting = resolve
    })
    await page.context().route(`${origins.api}/v1**`, async (route) => {
      if ((route.request().postData() ?? '').includes('eth_sendRawTransaction')) {
        broadcasting()
        await held
      }
      await route.continue()
    })
    await startRequest(page, 'eth_sendTransaction', [
      { from: address, to: '0x000000000000000000000000000000000000dEaD', value: '0x2' },
    ])
    await approveInWindow(page)
    await broadcast
    await page.evaluate(() => (window as unknown as ProviderWindow).Wallet.close())
    await expect.poll(async () => (await hostState(page)).open).toBe(false)
    release()
    const outcome = await pendingOutcome(page)
    expect(outcome.error).toBeUndefined()
    const receipt = await anvil.waitForTransactionReceipt({ hash: outcome.result as Hex })
    expect(receipt.status).toBe('success')
  })
})
