/**
 * SECURITY.md 7 in Chromium: no style, element or compositing trick the host
 * applies to its own DOM gets a signature out of a visitor who did not see the
 * request. Each attack hides or disguises the widget iframe (or paints over
 * it), waits longer than the arming delay, then clicks twice where the frame's
 * primary button is, as a visitor clicking a decoy would. The host must get no
 * signature: the only Approve there is lives in a top-level window of the
 * secure origin, which the host cannot paint over. Positive control: the same
 * request is signed through that window.
 */
import { expect, type Page, test } from '@playwright/test'
import type { Address, Hex } from 'viem'
import { verifyMessage } from 'viem'
import {
  approvalWindow,
  decideInWindow,
  freshEmail,
  loginWithEmail,
  pendingOutcome,
  primaryButton,
  rejectButton,
  secureFrame,
  settled,
  startRequest,
} from '../embeddedFixtures.ts'
import { openHost } from '../fixtures.ts'

const hex = (text: string) => `0x${Buffer.from(text).toString('hex')}`

type Attack = { name: string; apply: string }

/**
 * Each `apply` runs in the host page with `frame` bound to the widget iframe.
 * Masks, filters and blend modes are what IntersectionObserver v2 misses in
 * Chromium; the rest are what it catches; all must fail the same way.
 */
const attacks: Attack[] = [
  {
    name: 'mask-image of a near-transparent gradient',
    apply: `frame.style.maskImage = 'linear-gradient(rgba(0,0,0,.02), rgba(0,0,0,.02))'`,
  },
  {
    name: 'mask: url(#svg-mask)',
    apply: `document.body.insertAdjacentHTML('beforeend', '<svg width="0" height="0" style="position:absolute"><mask id="svg-mask" maskContentUnits="objectBoundingBox"><rect width="1" height="1" fill="white" fill-opacity="0.02"/></mask></svg>'); frame.style.mask = 'url(#svg-mask)'`,
  },
  {
    name: '-webkit-mask-box-image',
    apply: `frame.style.setProperty('-webkit-mask-box-image', 'linear-gradient(rgba(0,0,0,.02), rgba(0,0,0,.02))')`,
  },
  { name: 'filter: opacity(2%)', apply: `frame.style.filter = 'opacity(0.02)'` },
  { name: 'opacity 0.02', apply: `frame.style.opacity = '0.02'` },
  {
    name: 'mix-blend-mode over a white page',
    apply: `document.body.style.background = '#fff'; frame.style.mixBlendMode = 'screen'; frame.style.filter = 'brightness(40)'`,
  },
  {
    name: 'clip-path to one pixel',
    apply: `frame.style.clipPath = 'inset(0 0 calc(100% - 1px) 0)'`,
  },
  {
    name: 'a decoy drawn over it with pointer-events: none',
    apply: `const decoy = document.createElement('div'); decoy.style.cssText = 'position:fixed;inset:0;z-index:2147483647;background:#fff;pointer-events:none'; decoy.textContent = 'Click twice to claim your prize'; document.body.append(decoy)`,
  },
  {
    name: 'backdrop-filter on a sibling over it',
    apply: `const glass = document.createElement('div'); glass.style.cssText = 'position:fixed;inset:0;z-index:2147483647;backdrop-filter:blur(40px) opacity(0.02);pointer-events:none'; document.body.append(glass)`,
  },
  { name: 'transform: scale(0.999) skew', apply: `frame.style.transform = 'skewX(0.01deg)'` },
  { name: 'zoom', apply: `frame.style.zoom = '1.0001'` },
  { name: 'visibility via a near-zero filter blur', apply: `frame.style.filter = 'blur(30px)'` },
  {
    name: 'colour inversion and contrast to hide the text',
    apply: `frame.style.filter = 'contrast(0) brightness(2)'`,
  },
  {
    name: 'the frame moved half off-screen',
    apply: `frame.style.position = 'fixed'; frame.style.top = '-50%'`,
  },
  {
    name: 'an outline box-shadow covering everything but the button',
    apply: `const cover = document.createElement('div'); cover.style.cssText = 'position:fixed;left:0;top:0;width:100vw;height:80vh;z-index:2147483647;background:#fff;pointer-events:none'; document.body.append(cover)`,
  },
  {
    name: 'a masked ancestor of the frame',
    apply: `const wrap = document.createElement('div'); frame.before(wrap); document.documentElement.style.maskImage = 'linear-gradient(rgba(0,0,0,.02), rgba(0,0,0,.02))'`,
  },
]

async function signedIn(page: Page): Promise<Address> {
  await openHost(page)
  return loginWithEmail(page, freshEmail('inv07'))
}

/** Clicks twice, as a real mouse, where the frame's primary button is. */
async function clickDecoy(
  page: Page,
  box: { x: number; y: number; width: number; height: number },
) {
  const x = box.x + box.width / 2
  const y = box.y + box.height / 2
  await page.mouse.click(x, y)
  await page.mouse.click(x, y)
}

test.describe('inv-07 clickjacking', () => {
  test(`no host style or overlay gets a signature (${attacks.length} attacks)`, async ({
    page,
  }) => {
    test.setTimeout(120_000)
    const address = await signedIn(page)
    for (const attack of attacks) {
      await test.step(attack.name, async () => {
        await startRequest(page, 'personal_sign', [hex(`attack: ${attack.name}`), address])
        const primary = primaryButton(page)
        await expect(primary).toBeVisible()
        const box = await primary.boundingBox()
        if (!box) throw new Error('The primary button has no box')
        await page.evaluate((apply) => {
          const frame = document.querySelector<HTMLIFrameElement>('iframe[title="Porthole wallet"]')
          if (!frame) throw new Error('The widget iframe is not on the page')
          // What the attack may touch, kept so the next one starts from the page as it was.
          const styled = [frame, document.body, document.documentElement]
          const styles = styled.map((element) => element.getAttribute('style'))
          const before = new Set(document.querySelectorAll('*'))
          // The page as it was, to prove the undo complete (a later attack
          // touching more than this undoes must fail here, not carry over).
          const snapshot = () =>
            JSON.stringify([
              document.documentElement.outerHTML,
              frame.getBoundingClientRect(),
              [window.scrollX, window.scrollY],
            ])
          const original = snapshot()
          ;(window as unknown as { undoAttack: () => boolean }).undoAttack = () => {
            for (const element of document.querySelectorAll('*'))
              if (!before.has(element)) element.remove()
            styled.forEach((element, index) => {
              const style = styles[index]
              if (style === null || style === undefined) element.removeAttribute('style')
              else element.setAttribute('style', style)
            })
            return snapshot() === original
          }
          new Function('frame', apply)(frame)
        }, attack.apply)
        // Longer than any arming delay, then the visitor clicks the decoy.
        await page.waitForTimeout(700)
        const popups: Page[] = []
        const onPopup = (popup: Page) => popups.push(popup)
        page.on('popup', onPopup)
        await clickDecoy(page, box)
        await page.waitForTimeout(700)
        page.off('popup', onPopup)
        expect(await settled(page), 'the host got an answer from clicks on a decoy').toBe(false)
        const undone = await page.evaluate(() =>
          (window as unknown as { undoAttack: () => boolean }).undoAttack(),
        )
        expect(undone, 'the page is back as it was before the attack').toBe(true)
        // Whatever the clicks opened is a window of its own, shown to the visitor:
        // closing it rejects; with none, the visitor rejects in the frame.
        for (const popup of popups) await popup.close()
        if (popups.length === 0) await rejectButton(page).click()
        expect((await pendingOutcome(page)).error?.code).toBe(4001)
      })
    }
  })

  test('a click trap: clicking on and on where Approve appears never arms it', async ({ page }) => {
    test.setTimeout(90_000)
    const address = await signedIn(page)
    // Approve arms after 500 ms with no pointer or key press. A train of clicks
    // 80 ms apart must never arm it; but a machine too busy to keep the train
    // tight (a pause of 350 ms or more between two clicks) may rightly arm it:
    // that run proves nothing and gets another try, at most three. The train
    // starts the moment the window exists, before its page has loaded: a press
    // anywhere in it restarts the delay, so the longest pause measured here
    // bounds every quiet spell Approve could have armed in.
    for (let attempt = 1; ; attempt++) {
      await startRequest(page, 'personal_sign', [
        hex(`click as fast as you can (${attempt})`),
        address,
      ])
      const opened = page.context().waitForEvent('page')
      await primaryButton(page).click()
      const popup = await opened
      let last = Date.now()
      const approve = popup.getByRole('button', { name: 'Approve' })
      let target = { x: 40, y: 40 }
      let longestPauseMs = 0
      let until = Number.POSITIVE_INFINITY
      const giveUp = last + 30_000
      // Every 80 ms for 2 s after Approve shows: far past the arming delay.
      while (Date.now() < until && Date.now() < giveUp && !popup.isClosed()) {
        await popup.mouse.click(target.x, target.y).catch(() => {})
        longestPauseMs = Math.max(longestPauseMs, Date.now() - last)
        last = Date.now()
        if (until === Number.POSITIVE_INFINITY && (await approve.isVisible().catch(() => false))) {
          const box = await approve.boundingBox().catch(() => null)
          if (box) {
            target = { x: box.x + box.width / 2, y: box.y + box.height / 2 }
            until = Date.now() + 2_000
          }
        }
        await popup.waitForTimeout(80).catch(() => {})
      }
      expect(Date.now() < giveUp || popup.isClosed(), 'Approve never showed').toBe(true)
      if (popup.isClosed() || (await settled(page))) {
        expect(longestPauseMs, 'Approve armed while the clicks kept coming').toBeGreaterThanOrEqual(
          350,
        )
        expect(attempt, 'three tries too busy to keep the click train tight').toBeLessThan(3)
        await pendingOutcome(page)
        continue
      }
      // The visitor stops and reads; then one click approves.
      await decideInWindow(popup, 'Approve')
      expect((await pendingOutcome(page)).error).toBeUndefined()
      return
    }
  })

  test('positive control: the visitor signs in the approval window', async ({ page }) => {
    const address = await signedIn(page)
    await startRequest(page, 'personal_sign', [hex('seen and approved'), address])
    await expect(secureFrame(page).getByText('seen and approved')).toBeVisible()
    const popup = await approvalWindow(page)
    await expect(popup.getByText('seen and approved')).toBeVisible()
    await decideInWindow(popup, 'Approve')
    const outcome = await pendingOutcome(page)
    expect(
      await verifyMessage({
        address,
        message: 'seen and approved',
        signature: outcome.result as Hex,
      }),
    ).toBe(true)
  })
})
