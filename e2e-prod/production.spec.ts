/**
 * Issue 15's production test: the core flows through nginx with TLS, two API
 * replicas on PostgreSQL, `PORTHOLE_ENV=production` (e2e-prod/stack.ts).
 */
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { Page } from '@playwright/test'
import { mailListing } from '@porthole/dev-stack/stackMail'
import { installTestWallet } from '@porthole/dev-stack/testWallet'
import { type Hex, verifyMessage } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import {
  approvalWindow,
  decideInWindow,
  freshEmail,
  loginWithEmail,
  pendingOutcome,
  secureFrame,
  startRequest,
} from '../e2e/embeddedFixtures.ts'
import { hostState, testWalletRow, widget } from '../e2e/fixtures.ts'
import { expect, prodRequest, test } from './fixtures.ts'
import { prodChainId, prodOrigins, prodProjectId, readProdStack } from './stack.ts'

const mail = mailListing(`${prodOrigins.mail}/messages`)

type SessionWindow = Window & {
  Wallet: { getSession(): { data: Record<string, unknown>; message: string } | null }
}

/** The shop's page (`/` or `/signin.html`), once `window.Wallet` is ready. */
async function openShop(page: Page, path = '/') {
  await page.goto(`${prodOrigins.site}${path}`)
  await page.waitForFunction(
    () => typeof (window as { Wallet?: { getState?: unknown } }).Wallet?.getState === 'function',
  )
}

/** A fresh key funded on the node (anvil under Sepolia's id): the injected test wallet's. */
async function testWallet(page: Page) {
  const { anvilUrl } = readProdStack()
  const privateKey = generatePrivateKey()
  return installTestWallet(page, { privateKey, rpcUrl: anvilUrl, chainId: prodChainId })
}

/** Connect on the shop's own button → the test wallet → connected on the project's network. */
async function connectTestWallet(page: Page) {
  await page.getByRole('button', { name: 'Connect' }).click()
  await expect(widget(page).getByRole('dialog')).toHaveAttribute('data-open', 'true')
  await testWalletRow(page).click()
  await expect.poll(async () => (await hostState(page)).status).toBe('connected')
}

test('connect a test wallet: the widget, its API calls and the list all come over TLS through the proxy', async ({
  page,
}) => {
  const wallet = await testWallet(page)
  const plain: string[] = []
  page.on('request', (request) => {
    if (!request.url().startsWith('https:')) plain.push(request.url())
  })
  await openShop(page)
  await connectTestWallet(page)
  const state = await hostState(page)
  expect(state.caipAddress?.toLowerCase()).toBe(
    `eip155:${prodChainId}:${wallet.address.toLowerCase()}`,
  )
  const frame = page.frames().find((candidate) => candidate.url().startsWith(prodOrigins.widget))
  expect(frame, 'the widget is served from its https origin').toBeDefined()
  expect(await frame?.evaluate(() => window.isSecureContext)).toBe(true)
  expect(plain).toEqual([])
})

test('email login through the secure frame, then a message signed only after Approve', async ({
  page,
}) => {
  await openShop(page)
  const address = await loginWithEmail(page, freshEmail('prod'), mail)
  const caught = (await mail.messages()).at(-1)
  expect(caught?.from).toContain('login@shop.test')
  const message = 'Pay the shop'
  await startRequest(page, 'personal_sign', [`0x${Buffer.from(message).toString('hex')}`, address])
  await expect(secureFrame(page).getByText(message)).toBeVisible()
  await expect(secureFrame(page).getByText(prodOrigins.site)).toBeVisible()
  const popup = await approvalWindow(page)
  expect(popup.url().startsWith(`${prodOrigins.secure}/`)).toBe(true)
  await decideInWindow(popup, 'Approve')
  const outcome = await pendingOutcome(page)
  expect(outcome.error).toBeUndefined()
  expect(await verifyMessage({ address, message, signature: outcome.result as Hex })).toBe(true)
})

test("sign in with the wallet; the shop's backend checks the session with the API over TLS", async ({
  page,
}) => {
  const wallet = await testWallet(page)
  await openShop(page, '/signin.html')
  await connectTestWallet(page)
  await expect.poll(async () => (await hostState(page)).view).toBe('SIWXSignMessage')
  await widget(page).getByRole('button', { name: 'Sign in' }).click()
  await expect.poll(async () => (await hostState(page)).open).toBe(false)
  const session = await page.evaluate(() =>
    (window as unknown as SessionWindow).Wallet.getSession(),
  )
  expect(session?.message).toContain(`Chain ID: ${prodChainId}`)
  expect(session?.message).toContain(`URI: ${prodOrigins.site}`)

  const check = (origin: string) =>
    prodRequest(
      `${prodOrigins.api}/siwx/sessions/check?${new URLSearchParams({ projectId: prodProjectId, origin })}`,
      { headers: { authorization: `Bearer ${String(session?.data.token)}` } },
    )
  const accepted = await check(prodOrigins.site)
  expect(accepted.status).toBe(200)
  expect(String(JSON.parse(accepted.body).address).toLowerCase()).toBe(wallet.address.toLowerCase())
  expect((await check('https://other.test')).status).toBe(403)
})

test('the per-IP limit sees the real client address behind the proxy, across both replicas', async () => {
  const { replicas, accessLog } = readProdStack()
  const nonce = (from: string, headers: Record<string, string> = {}) =>
    prodRequest(
      `${prodOrigins.api}/siwx/nonce?${new URLSearchParams({ projectId: prodProjectId, clientId: randomUUID() })}`,
      {
        method: 'POST',
        from,
        // As the widget sends it: JSON, from its origin.
        headers: { origin: prodOrigins.widget, 'content-type': 'application/json', ...headers },
        body: '{}',
      },
    )
  // 60 a minute per address (apps/api/src/siwx/routes.ts nonceIpLimit); each with its own client id.
  const first = await Promise.all(Array.from({ length: 60 }, () => nonce('127.0.0.2')))
  expect(first.map(({ status }) => status)).toEqual(Array(60).fill(200))
  const over = await nonce('127.0.0.2')
  expect(over.status).toBe(429)
  expect(JSON.parse(over.body).error.message).toContain('Too many sign-in nonces from this address')
  // A forged X-Forwarded-For does not make the same visitor someone else…
  expect((await nonce('127.0.0.2', { 'x-forwarded-for': '203.0.113.7' })).status).toBe(429)
  // …and another visitor has a budget of their own.
  expect((await nonce('127.0.0.3')).status).toBe(200)
  // Both replicas answered, so the count is the database's, not one process's.
  const answeredBy = readFileSync(accessLog, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('127.0.0.2 ') && line.includes('/siwx/nonce'))
    .map((line) => line.split(' ').at(-1))
  for (const replica of replicas) expect(answeredBy).toContain(replica)
})

test("the proxy's own headers, and only the names it routed by reach the servers", async () => {
  const page = await prodRequest(`${prodOrigins.widget}/`)
  expect(page.status).toBe(200)
  const hsts = 'max-age=31536000'
  expect(page.headers).toMatchObject({
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'strict-transport-security': hsts,
  })
  expect(page.headers['access-control-allow-origin']).toBeUndefined()
  const asset = /\/assets\/[\w.-]+\.js/.exec(page.body)?.[0]
  expect((await prodRequest(`${prodOrigins.widget}${asset}`)).headers['cache-control']).toBe(
    'public, max-age=31536000, immutable',
  )
  expect((await prodRequest(`${prodOrigins.widget}/loader-solana.js`)).headers).toMatchObject({
    'access-control-allow-origin': '*',
    'cache-control': 'no-cache',
  })
  for (const origin of [prodOrigins.api, prodOrigins.secure])
    expect((await prodRequest(`${origin}/health`)).headers['strict-transport-security']).toBe(hsts)
  // An absolute-form request line names the API; its Host header names another site. The
  // server picked by the line is the API's, and the API hears its own name (else: 421).
  const absolute = await prodRequest(`${prodOrigins.api}/health`, {
    target: `${prodOrigins.api}/health`,
    headers: { host: 'evil.test' },
  })
  expect(absolute.status).toBe(200)
})
