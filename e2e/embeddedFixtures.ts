/** Embedded-wallet e2e helpers: login by email, the secure frame, and requests left pending on the page. */
import { randomBytes } from 'node:crypto'
import {
  type BrowserContext,
  expect,
  type Frame,
  type FrameLocator,
  type Page,
} from '@playwright/test'
import { mailCount, waitForCode } from '@porthole/dev-stack/stackMail'
import type { Address } from 'viem'
import { expectPageAccessible } from './axe.ts'
import { hostState, openModal, origins, widget } from './fixtures.ts'

export type ProviderWindow = Window & {
  Wallet: {
    provider: { request(args: { method: string; params?: unknown }): Promise<unknown> }
    disconnect(): Promise<void>
    close(): Promise<void>
  }
}

/** A fresh address per test: the API keeps one user per email. */
export const freshEmail = (label: string) =>
  `${label}-${randomBytes(4).toString('hex')}@example.com`.toLowerCase()

/** The secure frame inside the widget, by its accessible title. */
export const secureFrame = (page: Page): FrameLocator =>
  widget(page).frameLocator('iframe[title="Porthole secure frame"]')

/** The secure frame as a Playwright frame, to run code in its own origin (its storage). */
export function secureFrameOf(page: Page): Frame {
  const frame = page.frames().find((candidate) => candidate.url().startsWith(origins.secure))
  if (!frame) throw new Error('The secure frame is not loaded')
  return frame
}

/** Where the codes are read: the e2e stack's catcher unless told (`mailListing` of another). */
type CodeMail = {
  mailCount(): Promise<number>
  waitForCode(to: string, since: number): Promise<string>
}

/** Email → code from the caught mail → connected; returns the address the host sees. */
export async function loginWithEmail(
  page: Page,
  email: string,
  mail: CodeMail = { mailCount, waitForCode },
): Promise<Address> {
  await openModal(page)
  const since = await mail.mailCount()
  const form = widget(page)
  await form.getByPlaceholder('Email').fill(email)
  await form.getByRole('button', { name: 'Continue' }).click()
  // The secure frame's cold start, its ready, the API and the mail: give a loaded machine time.
  await expect(form.getByText(`Enter the code we sent to ${email}`)).toBeVisible({
    timeout: 30_000,
  })
  const code = await mail.waitForCode(email, since)
  await form.getByLabel('Code from the email').fill(code)
  await expect
    .poll(async () => (await hostState(page)).status, { timeout: 20_000 })
    .toBe('connected')
  const { address } = await hostState(page)
  if (!address) throw new Error('Connected without an address')
  return address as Address
}

/**
 * Follows a device approval link as the user would: the page, then its
 * Approve button; with `checkAccessible`, axe checks both pages on the way.
 */
export async function approveDevice(
  context: BrowserContext,
  link: string,
  checkAccessible = false,
) {
  const page = await context.newPage()
  await page.goto(link)
  if (checkAccessible) await expectPageAccessible(page, 'device approval')
  await page.getByRole('button', { name: /approve/i }).click()
  await expect(page.getByRole('heading', { name: 'This device is approved' })).toBeVisible()
  if (checkAccessible) await expectPageAccessible(page, 'device approved')
  await page.close()
}

/** The request's promise is kept on the page so the test can look at it later. */
export async function startRequest(page: Page, method: string, params: unknown) {
  await page.evaluate(
    ({ method, params }) => {
      const target = window as unknown as ProviderWindow & { pending?: unknown }
      target.pending = target.Wallet.provider.request({ method, params }).then(
        (result) => ({ result }),
        (error: { code?: number; message?: string }) => ({
          error: { code: error.code, message: error.message },
        }),
      )
    },
    { method, params },
  )
}

export type Outcome = { result?: unknown; error?: { code?: number; message?: string } }
export const pendingOutcome = (page: Page) =>
  page.evaluate(() => (window as unknown as { pending: Promise<Outcome> }).pending)

/** Whether the pending request has settled yet (without waiting for it). */
export const settled = (page: Page) =>
  page.evaluate(() =>
    Promise.race([
      (window as unknown as { pending: Promise<unknown> }).pending.then(() => true),
      new Promise((resolve) => setTimeout(() => resolve(false), 50)),
    ]),
  )

export const rejectButton = (page: Page) =>
  secureFrame(page).getByRole('button', { name: 'Reject' })

/** The approval's primary button in the frame: it opens the approval window. */
export const primaryButton = (page: Page) =>
  secureFrame(page).getByRole('button', { name: 'Open approval window' })

/**
 * Opens the pending request's approval window of the secure origin, as the
 * visitor would (a click in the frame), and returns it once loaded.
 */
export async function approvalWindow(page: Page): Promise<Page> {
  const opened = page.context().waitForEvent('page')
  await secureFrame(page).getByRole('button', { name: 'Open approval window' }).click()
  const popup = await opened
  await popup.waitForLoadState()
  return popup
}

/**
 * Clicks Approve (once armed) or Reject in an approval window. The frame
 * closes the window once the decision reaches it, which may end the click's
 * own bookkeeping: that is the expected outcome, not an error.
 */
export async function decideInWindow(popup: Page, decision: 'Approve' | 'Reject'): Promise<void> {
  const button = popup.getByRole('button', { name: decision })
  await expect(button).toBeEnabled()
  await button.click().catch((error: unknown) => {
    if (!popup.isClosed()) throw error
  })
}

/** Approves the pending request as the visitor would: in its approval window, once Approve arms. */
export async function approveInWindow(page: Page): Promise<void> {
  await decideInWindow(await approvalWindow(page), 'Approve')
}

export type Outcomes = Record<string, { result: unknown } | { error: number | undefined }>

/**
 * Starts two `personal_sign` requests at once, `a` then `b`; returns a reader
 * of their outcomes by name, filled in as each settles.
 */
export async function signBoth(
  page: Page,
  address: Address,
  messages: { a: string; b: string },
): Promise<() => Promise<Outcomes>> {
  await page.evaluate(
    ({ address, messages }) => {
      const target = window as unknown as ProviderWindow & { outcomes: Outcomes }
      target.outcomes = {}
      for (const [name, message] of Object.entries(messages))
        void target.Wallet.provider
          .request({ method: 'personal_sign', params: [message, address] })
          .then(
            (result) => {
              target.outcomes[name] = { result }
            },
            (error: { code?: number }) => {
              target.outcomes[name] = { error: error.code }
            },
          )
    },
    { address, messages },
  )
  return () => page.evaluate(() => (window as unknown as { outcomes: Outcomes }).outcomes)
}
