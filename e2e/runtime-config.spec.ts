/**
 * Issue 15, one build for any deployment: the widget build the stack serves
 * (deployment A) is served again, untouched but for its page's settings
 * (`configureHtml`, what `apps/widget/scripts/configure.mjs` writes), as
 * deployment B: its own origin and its own API URL. A host page loading B's
 * loader gets B's widget, which calls B's API and never A's. B's API name is
 * answered by the stack's API through the browser's routing (the same
 * answers, with B's CORS header): a second API process would add nothing to
 * what is tested, which is where the one build calls.
 */
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { origins, ports, projects, relayUrl } from '@porthole/dev-stack/stack'
import { createStaticServer } from '@porthole/dev-stack/staticServer'
import { configureHtml } from '../apps/widget/runtimeConfig.mjs'

const root = join(import.meta.dirname, '..')
const widgetB = `http://widget-b.localhost:${ports.widgetB}`
const apiB = `http://api-b.localhost:${ports.apiB}`
const hostB = `http://127.0.0.1:${ports.hostB}`
const project = projects.e2e[0].id

const servers: Server[] = []
const listen = (server: Server, port: number) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
    servers.push(server)
  })

test.beforeAll(async () => {
  const loader = join(root, 'packages/loader/dist')
  await listen(
    createStaticServer({
      root: join(root, 'apps/widget/dist'),
      aliases: {
        '/loader.js': join(loader, 'loader.js'),
        '/loader-solana.js': join(loader, 'loader-solana.js'),
      },
      transformHtml: (html) =>
        configureHtml(html, {
          apiUrl: apiB,
          secureFrameUrl: origins.secure,
          walletConnectRelayUrl: relayUrl,
          walletConnectProjectId: 'porthole-local',
        }),
    }),
    ports.widgetB,
  )
  await listen(
    createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Deployment B's host</title>
<script async src="${widgetB}/loader.js" data-project-id="${project}"></script></head>
<body><button id="connect" onclick="window.Wallet.open()">Connect</button></body></html>`)
    }),
    ports.hostB,
  )
})

test.afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
})

test("one build, B's settings: B's widget calls B's API, never A's, and lists its wallets", async ({
  page,
  context,
}) => {
  const toB: string[] = []
  await context.route(`${apiB}/**`, async (route) => {
    const asked = new URL(route.request().url())
    toB.push(asked.pathname)
    const answer = await route.fetch({
      url: `http://127.0.0.1:${ports.api}${asked.pathname}${asked.search}`,
      headers: { ...route.request().headers(), origin: origins.widget },
    })
    await route.fulfill({
      response: answer,
      headers: { ...answer.headers(), 'access-control-allow-origin': widgetB },
    })
  })
  const toA: string[] = []
  page.on('request', (request) => {
    if (request.url().startsWith(origins.api)) toA.push(request.url())
  })

  await page.goto(`${hostB}/`)
  await page.waitForFunction(
    () => typeof (window as { Wallet?: { getState?: unknown } }).Wallet?.getState === 'function',
  )
  await page.getByRole('button', { name: 'Connect' }).click()
  const frame = page.frameLocator('iframe[title="Porthole wallet"]')
  await expect(frame.getByRole('dialog')).toHaveAttribute('data-open', 'true')
  await expect(frame.locator('[data-wallet-id]')).toHaveCount(4)

  expect(page.frames().some((candidate) => candidate.url().startsWith(`${widgetB}/`))).toBe(true)
  expect(toB).toEqual(
    expect.arrayContaining(['/projects/v1/origins', '/appkit/v1/config', '/getWallets']),
  )
  expect(toA).toEqual([])
  // The page's CSP is B's: calls go to B's API only.
  const widget = page.frames().find((candidate) => candidate.url().startsWith(`${widgetB}/`))
  const csp = await widget?.evaluate(
    () =>
      document
        .querySelector('meta[http-equiv="Content-Security-Policy"]')
        ?.getAttribute('content') ?? '',
  )
  expect(csp).toContain(`connect-src 'self' ${apiB} `)
  expect(csp).not.toContain(origins.api)
})
