/**
 * SECURITY.md 21 in the browser: a page on another site makes its visitor's
 * Chromium post JSON to `/auth/v1/login/email` the ways that need no CORS
 * preflight (a form with enctype="text/plain", a no-cors fetch of text/plain,
 * the same form from a sandboxed frame whose origin is `null`). The API
 * refuses each (403) and mails nothing; in the same run the real email login,
 * from the secure frame with JSON, gets its code mailed. (The device approval
 * page's own form, posted from the API's origin, is exercised by
 * embedded.spec.ts; the API's tests refuse it from any other origin.)
 */
import { expect, test } from '@playwright/test'
import { mailCount, stackMessages, waitForCode } from '@porthole/dev-stack/stackMail'
import { freshEmail } from '../embeddedFixtures.ts'
import { openHost, openModal, origins, widget } from '../fixtures.ts'

const loginPath = '/auth/v1/login/email'

test('inv-21 another site cannot make the API mail a login code; the real login can', async ({
  page,
}) => {
  const since = await mailCount()
  const victims = {
    form: freshEmail('inv21-form'),
    fetch: freshEmail('inv21-fetch'),
    sandboxed: freshEmail('inv21-sandboxed'),
  }

  // The no-cors fetch is the page's own request: its answer is opaque to the
  // page, so watch it from outside. The two forms land in frames we can read.
  const fetched = page.waitForResponse(
    (response) =>
      new URL(response.url()).pathname === loginPath &&
      response.request().frame() === page.mainFrame(),
  )
  const query = new URLSearchParams({ api: origins.api, ...victims })
  await page.goto(`${origins.evil}/cross-site-post.html?${query}`)
  await expect(page.locator('#result')).toHaveText('sent')
  const answer = await fetched
  expect(answer.status()).toBe(403)
  // The text/plain form from the page (Origin: the attacker's), and from a
  // sandboxed frame (Origin: null): both refused.
  for (const frame of ['iframe[name="form-sink"]', 'iframe[sandbox]'])
    await expect(page.frameLocator(frame).locator('body')).toContainText('"origin_not_allowed"')

  // Positive control: the real login, from the demo host through the widget and
  // the secure frame, gets its code mailed in this same run.
  const visitor = freshEmail('inv21-visitor')
  await openHost(page)
  await openModal(page)
  const form = widget(page)
  await form.getByPlaceholder('Email').fill(visitor)
  await form.getByRole('button', { name: 'Continue' }).click()
  await expect(form.getByLabel('Code from the email')).toBeVisible({ timeout: 30_000 })
  expect(await waitForCode(visitor, since)).toMatch(/^\d{6}$/)

  // The attacker's requests, answered before the visitor's mail went out, mailed nobody.
  const caught = (await stackMessages()).slice(since)
  for (const victim of Object.values(victims))
    expect(caught.filter((mail) => mail.to.includes(victim))).toEqual([])
})
