/**
 * Issue 15: `@porthole/loader` and `@porthole/react` as an outside developer
 * gets them. `npm pack` makes their tarballs; an app in a temporary folder
 * (Vite + React + TypeScript, e2e/outsideApp.ts) installs them offline,
 * type-checks and builds; then its built page, served from loopback, connects
 * the test wallet through `ConnectButton` and opens the modal's views from it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { workerKey } from '@porthole/dev-stack/anvil'
import { origins, ports, projects } from '@porthole/dev-stack/stack'
import { createStaticServer } from '@porthole/dev-stack/staticServer'
import { installTestWallet } from '@porthole/dev-stack/testWallet'
import { testWalletRow, widget } from './fixtures.ts'
import { buildOutsideApp } from './outsideApp.ts'

const appOrigin = `http://127.0.0.1:${ports.outsideApp}`

let dir: string | undefined
let server: Server | undefined

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  // npm pack, an offline install, tsc and vite build: about 10 s here, more on a busy machine.
  test.setTimeout(240_000)
  dir = mkdtempSync(join(tmpdir(), 'porthole-outside-app-'))
  buildOutsideApp(dir, { projectId: projects.e2e[0].id, widgetUrl: origins.widget })
  const app = createStaticServer({ root: join(dir, 'dist') })
  server = app
  await new Promise<void>((resolve, reject) => {
    app.once('error', reject)
    app.listen(ports.outsideApp, '127.0.0.1', resolve)
  })
})

test.afterAll(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test('an app installing the packed packages connects through ConnectButton and opens its views', async ({
  page,
}) => {
  const wallet = await installTestWallet(page, { privateKey: workerKey(test.info().parallelIndex) })
  await page.goto(`${appOrigin}/`)
  const connect = page.getByRole('button', { name: 'Connect a wallet' })
  await expect(connect).toBeEnabled()
  await expect(page.getByTestId('status')).toHaveText('disconnected no network')

  await connect.click()
  const frame = widget(page)
  await testWalletRow(page).click()
  // useWallet re-renders on the wallet's state: the account and its network replace Connect.
  await expect(page.getByTestId('status')).toHaveText('connected eip155:31337')
  const account = page.getByRole('button', { name: new RegExp(`^Account ${wallet.address}$`, 'i') })
  await expect(account).toHaveText(`${wallet.address.slice(0, 4)}…${wallet.address.slice(-6)}`)
  await expect(connect).toHaveCount(0)
  const network = page.getByRole('button', { name: 'Network: Porthole Local. Switch network' })
  await expect(network).toHaveText('Porthole Local')

  // Each opens its view of the modal.
  await expect(frame.getByRole('dialog')).toHaveAttribute('data-open', 'false')
  await network.click()
  await expect(frame.getByRole('dialog')).toHaveAttribute('data-open', 'true')
  await expect(frame.getByRole('heading', { name: 'Choose Network' })).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(frame.getByRole('dialog')).toHaveAttribute('data-open', 'false')
  await account.click()
  await frame.getByRole('button', { name: 'Disconnect' }).click()
  await expect(page.getByRole('button', { name: 'Connect a wallet' })).toBeEnabled()
  await expect(page.getByTestId('status')).toHaveText('disconnected no network')
})
