/**
 * SECURITY.md 22 (issue 11 §4): a project's shared mail budget, once spent,
 * raises the cost of a mail instead of turning email login off. The e2e
 * project `porthole-e2e-mail-budget` has a budget of 20 mails per 10
 * minutes (@porthole/dev-stack/stack). An attacker's script spends it from 20
 * addresses (the stack trusts 127.0.0.1 as a proxy, so its
 * `X-Forwarded-For` names each client; the browser sends none and is
 * 127.0.0.1); then a visitor from a fresh address, through the widget, still
 * gets a code: the secure frame solves the API's proof of work in the
 * browser and asks again.
 */
import { randomBytes } from 'node:crypto'
import { expect, test } from '@playwright/test'
import { ports, projects } from '@porthole/dev-stack/stack'
import { mailCount, waitForCode } from '@porthole/dev-stack/stackMail'
import { freshEmail } from '../embeddedFixtures.ts'
import { openHost, openModal, origins, widget } from '../fixtures.ts'

const project = projects.e2e.find((candidate) => candidate.id === 'porthole-e2e-mail-budget')
const loginPath = '/auth/v1/login/email'

/** A login request from the attacker's script, as the client at `address` behind the proxy. */
async function attackerLogin(address: string): Promise<Response> {
  if (project === undefined) throw new Error('The e2e mail budget project is missing')
  return fetch(`http://127.0.0.1:${ports.api}${loginPath}?projectId=${project.id}`, {
    method: 'POST',
    headers: {
      origin: origins.secure,
      'content-type': 'application/json',
      'x-forwarded-for': address,
    },
    body: JSON.stringify({
      email: freshEmail('inv22-attacker'),
      deviceId: randomBytes(18).toString('base64url'),
    }),
  })
}

test('inv-22 an attacker spending the shared mail budget from 20 addresses does not stop a visitor from a fresh address, through the widget, from getting a code', async ({
  page,
}) => {
  test.setTimeout(90_000)
  if (project === undefined || !('mailBudget' in project))
    throw new Error('The e2e mail budget project is missing')
  const addresses = Array.from({ length: 20 }, (_, index) => `100.${64 + index}.0.1`)
  // 20 addresses, each well within its per-IP and per-prefix buckets, spend the budget.
  const statuses: number[] = []
  for (let sent = 0; sent < project.mailBudget; sent++)
    statuses.push((await attackerLogin(addresses[sent % addresses.length] ?? '')).status)
  // (A retried run finds the budget spent already: its requests get challenges.)
  expect(statuses.every((status) => status === 200 || status === 428)).toBe(true)
  const spent = await attackerLogin(addresses[0] ?? '')
  expect(spent.status).toBe(428)
  expect(await spent.json()).toMatchObject({
    error: { code: 'proof_of_work_required' },
    proofOfWork: { challenge: expect.any(String), difficulty: expect.any(Number) },
  })

  // The visitor, from another address (the browser's, 127.0.0.1), through the widget.
  const logins: { status: number; body: unknown }[] = []
  page.on('response', async (response) => {
    if (new URL(response.url()).pathname !== loginPath) return
    if (response.request().method() !== 'POST') return
    logins.push({ status: response.status(), body: response.request().postDataJSON() })
  })
  const since = await mailCount()
  const visitor = freshEmail('inv22-visitor')
  await openHost(page, { projectId: project.id })
  await openModal(page)
  const form = widget(page)
  await form.getByPlaceholder('Email').fill(visitor)
  await form.getByRole('button', { name: 'Continue' }).click()
  await expect(form.getByLabel('Code from the email')).toBeVisible({ timeout: 30_000 })
  expect(await waitForCode(visitor, since)).toMatch(/^\d{6}$/)

  // The frame was asked for a proof of work, solved it, and asked again with it.
  await expect.poll(() => logins.map((login) => login.status)).toEqual([428, 200])
  expect(logins[0]?.body).not.toHaveProperty('proofOfWork')
  expect(logins[1]?.body).toMatchObject({
    email: visitor,
    proofOfWork: { challenge: expect.any(String), nonce: expect.stringMatching(/^\d+$/) },
  })
})
