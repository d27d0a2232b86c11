/**
 * Issue 15, admin without downtime: the API's admin page, in Chromium,
 * changes a project's allowed origins while a host page on one of them stays
 * connected (the API keeps running on PGlite); keyboard only, and axe-clean in
 * light and dark.
 */
import { expect, test } from '@playwright/test'
import { workerKey } from '@porthole/dev-stack/anvil'
import { e2eAdminToken, origins, ports } from '@porthole/dev-stack/stack'
import { installTestWallet } from '@porthole/dev-stack/testWallet'
import { expectPageAccessible } from './axe.ts'
import { hostState, openHost, openModal, testWalletRow } from './fixtures.ts'

/** The API from Node, which does not resolve `*.localhost` (its loopback name on its port). */
const api = `http://127.0.0.1:${ports.api}`

test('the admin page changes the origins of a project in use; its host stays connected', async ({
  page,
  context,
  request,
}) => {
  const projectId = `porthole-e2e-admin-${test.info().workerIndex}-${Date.now()}`
  const created = await request.post(`${api}/admin/v1/projects`, {
    headers: { authorization: `Bearer ${e2eAdminToken}` },
    data: {
      id: projectId,
      name: 'Admin e2e',
      allowedOrigins: [origins.demo],
      networks: ['eip155:31337'],
    },
  })
  expect(created.status()).toBe(201)

  // A visitor connects on the project's one origin.
  const wallet = await installTestWallet(page, { privateKey: workerKey(test.info().parallelIndex) })
  await openHost(page, { projectId })
  await openModal(page)
  await testWalletRow(page).click()
  await expect.poll(async () => (await hostState(page)).status).toBe('connected')

  // The operator, in another tab, by keyboard: the token, then the origins.
  const admin = await context.newPage()
  await admin.goto(`${origins.api}/admin`)
  await admin.getByLabel('Admin token (ADMIN_TOKEN)').fill(e2eAdminToken)
  await admin.keyboard.press('Enter')
  const section = admin.getByRole('region', { name: `Project ${projectId}` })
  const originsField = section.getByLabel(/^Allowed origins/)
  await expect(originsField).toHaveValue(origins.demo)
  await expectPageAccessible(admin, 'the admin page')
  await originsField.focus()
  await admin.keyboard.press('End')
  await admin.keyboard.type('\nhttps://shop.example')
  await admin.keyboard.press('Tab')
  await expect(section.getByRole('button', { name: 'Save origins' })).toBeFocused()
  await admin.keyboard.press('Enter')
  await expect(admin.getByRole('status')).toHaveText(`Saved the allowed origins of ${projectId}.`)
  // The page was drawn again from the API's answer; focus stayed on the button.
  await expect(section.getByRole('button', { name: 'Save origins' })).toBeFocused()

  // Served at once, without a restart: the origins the widget reads.
  const served = await request.get(`${api}/projects/v1/origins?projectId=${projectId}`, {
    headers: { origin: origins.widget },
  })
  expect((await served.json()).allowedOrigins).toEqual([origins.demo, 'https://shop.example'])

  // The host page was never disturbed: still connected, still answering.
  expect((await hostState(page)).status).toBe('connected')
  const accounts = await page.evaluate(() =>
    (
      window as unknown as {
        Wallet: { provider: { request(a: { method: string }): Promise<unknown> } }
      }
    ).Wallet.provider.request({ method: 'eth_accounts' }),
  )
  expect((accounts as string[]).map((address) => address.toLowerCase())).toEqual([
    wallet.address.toLowerCase(),
  ])

  // A bad origin is refused with the CLI's message, and nothing changes.
  await originsField.fill('https://*.vercel.app')
  await section.getByRole('button', { name: 'Save origins' }).click()
  await expect(admin.getByRole('status')).toContainText('Not saved:')
  await expect(admin.getByRole('status')).toContainText('vercel.app')
  const unchanged = await request.get(`${api}/projects/v1/origins?projectId=${projectId}`, {
    headers: { origin: origins.widget },
  })
  expect((await unchanged.json()).allowedOrigins).toEqual([origins.demo, 'https://shop.example'])
})

test("the admin page sets a project's history, its pending checks and its spam list", async ({
  page,
  request,
}) => {
  const projectId = `porthole-e2e-history-${test.info().workerIndex}-${Date.now()}`
  const created = await request.post(`${api}/admin/v1/projects`, {
    headers: { authorization: `Bearer ${e2eAdminToken}` },
    data: { id: projectId, name: 'History e2e', networks: ['eip155:31337'] },
  })
  expect(created.status()).toBe(201)
  const config = async () =>
    (
      await request.get(`${api}/appkit/v1/config?projectId=${projectId}`, {
        headers: { origin: origins.widget },
      })
    ).json()

  await page.goto(`${origins.api}/admin`)
  await page.getByLabel('Admin token (ADMIN_TOKEN)').fill(e2eAdminToken)
  await page.keyboard.press('Enter')
  const section = page.getByRole('region', { name: `Project ${projectId}` })
  const history = section.getByLabel('Transaction history (Activity)')
  const poll = section.getByLabel(/^Check pending transactions every/)
  await expect(history).not.toBeChecked()
  await expect(poll).toHaveValue('')
  await history.check()
  await poll.fill('30')
  await section.getByRole('button', { name: 'Save features' }).click()
  await expect(page.getByRole('status')).toHaveText(`Saved the features of ${projectId}.`)
  // What the widget reads: Activity on the local chain, pending sends checked every 30 s.
  expect(await config()).toMatchObject({
    features: { history: true, pendingTransactionsPollMs: 30_000 },
    networksWithHistory: ['eip155:31337'],
  })
  await poll.fill('soon')
  await section.getByRole('button', { name: 'Save features' }).click()
  await expect(page.getByRole('status')).toContainText('Not saved: the pending check interval')
  expect((await config()).features.pendingTransactionsPollMs).toBe(30_000)
  // Milliseconds the CLI may have set show as decimal seconds, and save as they are.
  await poll.fill('1.5')
  await section.getByRole('button', { name: 'Save features' }).click()
  await expect(page.getByRole('status')).toHaveText(`Saved the features of ${projectId}.`)
  await expect(poll).toHaveValue('1.5')
  expect((await config()).features.pendingTransactionsPollMs).toBe(1_500)

  const spam = section.getByLabel(/^NFT contracts flagged as spam/)
  const contract = `eip155:31337:0x${'Cd'.repeat(20)}`
  await spam.fill(`${contract}\nnot-a-contract`)
  await section.getByRole('button', { name: 'Save spam list' }).click()
  await expect(page.getByRole('status')).toContainText(
    "Not saved: 'not-a-contract' must be a CAIP-10",
  )
  await spam.fill(contract)
  await section.getByRole('button', { name: 'Save spam list' }).click()
  await expect(page.getByRole('status')).toHaveText(`Saved the spam list of ${projectId}.`)
  // Drawn again from the API: stored lower case.
  await expect(spam).toHaveValue(contract.toLowerCase())
  await spam.fill('')
  await section.getByRole('button', { name: 'Save spam list' }).click()
  await expect(page.getByRole('status')).toHaveText(`Saved the spam list of ${projectId}.`)
  await expect(spam).toHaveValue('')
})

test('a wrong token opens nothing and says so', async ({ page }) => {
  await page.goto(`${origins.api}/admin`)
  await page.getByLabel('Admin token (ADMIN_TOKEN)').fill('not-the-admin-token-not-the-admin-token')
  await page.getByRole('button', { name: 'Open' }).click()
  await expect(page.getByRole('status')).toHaveText(
    'Could not open the admin: A valid ADMIN_TOKEN is needed (Authorization: Bearer …)',
  )
  await expect(page.getByRole('region')).toHaveCount(0)
  await expect(page.getByLabel('Admin token (ADMIN_TOKEN)')).toBeFocused()
})
