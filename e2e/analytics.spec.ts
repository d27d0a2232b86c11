/**
 * Issue 16, the widget's analytics: a visitor's connect on a fresh project
 * (analytics on by default) arrives as events, and `npm run project -- stats`
 * (through the running API's admin endpoint) counts them, with the funnel.
 * With analytics off, the same visit sends nothing.
 */
import { expect, type Page, test } from '@playwright/test'
import { workerKey } from '@porthole/dev-stack/anvil'
import { e2eAdminToken, origins, ports } from '@porthole/dev-stack/stack'
import { installTestWallet } from '@porthole/dev-stack/testWallet'
import { createHttpAdmin } from '../apps/api/src/admin/admin.ts'
import { runProjectCommand } from '../apps/api/src/commands.ts'
import { hostState, openHost, openModal, testWalletRow } from './fixtures.ts'

/** The API from Node, which does not resolve `*.localhost`. */
const admin = createHttpAdmin({ apiUrl: `http://127.0.0.1:${ports.api}`, token: e2eAdminToken })

async function freshProject(analytics: boolean) {
  const id = `porthole-e2e-stats-${test.info().workerIndex}-${Date.now()}`
  await admin.create({
    id,
    name: 'Stats e2e',
    allowedOrigins: [origins.demo],
    networks: ['eip155:31337'],
  })
  if (!analytics) await admin.setFeatures(id, { analytics: false })
  return id
}

/** Open, the test wallet, connected: what a visitor does. */
async function connectOn(page: Page, projectId: string) {
  await installTestWallet(page, { privateKey: workerKey(test.info().parallelIndex) })
  await openHost(page, { projectId })
  await openModal(page)
  await testWalletRow(page).click()
  await expect.poll(async () => (await hostState(page)).status).toBe('connected')
}

test("a connect's events arrive and `stats` counts them, with the funnel", async ({ page }) => {
  const projectId = await freshProject(true)
  await connectOn(page, projectId)
  await expect
    .poll(async () => (await admin.stats(projectId, 1)).funnel, { timeout: 15_000 })
    .toEqual({ opened: 1, choseWallet: 1, connected: 1 })
  const stats = await admin.stats(projectId, 1)
  expect(Object.fromEntries(stats.totals.map(({ event, count }) => [event, count]))).toMatchObject({
    MODAL_OPEN: 1,
    SELECT_WALLET: 1,
    CONNECT_SUCCESS: 1,
  })

  const out: string[] = []
  const code = await runProjectCommand(['stats', '--id', projectId, '--days', '1'], {
    admin,
    out: (line) => out.push(line),
    err: (line) => out.push(line),
  })
  expect(code).toBe(0)
  expect(out).toContain(
    '  connect funnel (visitors): opened 1 → chose a wallet 1 (100 %) → connected 1 (100 %)',
  )
})

test('with analytics off, the same visit sends no event', async ({ page }) => {
  const projectId = await freshProject(false)
  const sent: string[] = []
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/e') sent.push(request.url())
  })
  await connectOn(page, projectId)
  await page.waitForTimeout(1_000)
  expect(sent).toEqual([])
  expect((await admin.stats(projectId, 1)).totals).toEqual([])
})
