/**
 * Sign in with a wallet signature (issue 4) with the injected test wallet:
 * required and optional sign-in on the demo host (`?siwx=`), the session the
 * host receives, and the host backend's check of it (the API's
 * `GET /siwx/sessions/check`), scoped to the host origin.
 */
import { expect, type Page, test } from '@playwright/test'
import { anvilUrl, createAnvilClients, workerKey } from '@porthole/dev-stack/anvil'
import { compileContract, SMART_ACCOUNT_SOURCE } from '@porthole/dev-stack/contracts'
import { ports } from '@porthole/dev-stack/stack'
import { installTestWallet, type TestWallet } from '@porthole/dev-stack/testWallet'
import { expectWidgetAccessible } from './axe.ts'
import { hostState, openHost, openModal, origins, testWalletRow, widget } from './fixtures.ts'

type SessionWindow = Window & {
  Wallet: {
    getSession(): { data: Record<string, unknown>; message: string; signature: string } | null
    close(): Promise<void>
    signIn(): Promise<void>
    signOut(): Promise<void>
  }
}

const api = `http://127.0.0.1:${ports.api}`

async function setup(page: Page, siwx: 'required' | 'optional'): Promise<TestWallet> {
  const wallet = await installTestWallet(page, { privateKey: workerKey(test.info().parallelIndex) })
  await openHost(page, { siwx })
  return wallet
}

/** Connect → the test wallet; sign-in then takes over the modal. */
async function connect(page: Page) {
  await openModal(page)
  await testWalletRow(page).click()
  await expect.poll(async () => (await hostState(page)).status).toBe('connected')
  await expect.poll(async () => (await hostState(page)).view).toBe('SIWXSignMessage')
}

/** What the host's own backend learns from the API about a session token. */
async function checkSession(token: string, origin: string) {
  const response = await fetch(
    `${api}/siwx/sessions/check?${new URLSearchParams({ projectId: 'porthole-dev', origin })}`,
    { headers: { authorization: `Bearer ${token}` } },
  )
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

test('required sign-in: sign, the session is stored, the modal closes, the backend accepts it (inv-08 browser origin shown, inv-09 host A only, nonce single use)', async ({
  page,
}) => {
  const wallet = await setup(page, 'required')
  const sessions: unknown[] = []
  await page.exposeFunction('recordSession', (session: unknown) => sessions.push(session))
  await page.evaluate(() =>
    addEventListener('porthole:session', (event) =>
      (window as unknown as { recordSession(value: unknown): void }).recordSession(
        (event as CustomEvent).detail,
      ),
    ),
  )
  await connect(page)
  const frame = widget(page)
  // The origin shown is the browser's, and the site's statement is there.
  await expect(frame.getByTestId('siwx-origin')).toHaveText(`Requested by ${origins.demo}`)
  await expect(frame.getByRole('blockquote')).toHaveText('Sign in to the Porthole demo.')
  await frame.getByRole('button', { name: 'Sign in' }).click()
  await expect.poll(async () => (await hostState(page)).open).toBe(false)

  const session = await page.evaluate(() =>
    (window as unknown as SessionWindow).Wallet.getSession(),
  )
  expect(session?.message).toContain(
    `127.0.0.1:${ports.demo} wants you to sign in with your Ethereum account:`,
  )
  expect(session?.message).toContain(`URI: ${origins.demo}`)
  expect(session?.message).toContain('Chain ID: 31337')
  expect(String(session?.data.address).toLowerCase()).toBe(wallet.address.toLowerCase())
  expect(sessions).toHaveLength(1)
  expect(wallet.requests.map(({ method }) => method)).toContain('personal_sign')

  // The host's backend checks the token with the API, for its own origin only.
  const token = String(session?.data.token)
  const accepted = await checkSession(token, origins.demo)
  expect(accepted.status).toBe(200)
  expect(String(accepted.body.address).toLowerCase()).toBe(wallet.address.toLowerCase())
  const otherHost = await checkSession(token, 'http://localhost:5170')
  expect(otherHost.status).toBe(403)

  // The signed message cannot be used again: its nonce is spent.
  const replay = await fetch(`${api}/siwx/sessions?projectId=porthole-dev`, {
    method: 'POST',
    // As the widget would send it: only the spent nonce may refuse it.
    headers: { 'content-type': 'application/json', origin: origins.widget },
    body: JSON.stringify({ message: session?.message, signature: session?.signature }),
  })
  expect(replay.status).toBe(401)

  // A reload keeps the session: no new sign-in.
  await page.reload()
  await expect.poll(async () => (await hostState(page)).session?.toString() ?? null).not.toBeNull()
  expect((await hostState(page)).open).toBe(false)

  // Sign out: the host and the API forget it.
  await page.evaluate(() => (window as unknown as SessionWindow).Wallet.signOut())
  await expect.poll(async () => (await hostState(page)).session).toBeNull()
  expect((await checkSession(token, origins.demo)).status).toBe(401)
})

test('declining shows "Signature declined" and the view again; Escape and close do nothing while required', async ({
  page,
}) => {
  const wallet = await setup(page, 'required')
  await connect(page)
  const frame = widget(page)
  await expect(frame.getByRole('button', { name: 'Close' })).toHaveCount(0)
  await expect(page.locator('iframe[title="Porthole wallet"]')).toBeFocused()
  await page.keyboard.press('Escape')
  await page.evaluate(() => (window as unknown as SessionWindow).Wallet.close())
  expect((await hostState(page)).open).toBe(true)
  expect((await hostState(page)).view).toBe('SIWXSignMessage')

  wallet.setBehaviour('reject')
  await frame.getByRole('button', { name: 'Sign in' }).click()
  await expect(frame.getByRole('alert')).toHaveText('Signature declined')
  expect((await hostState(page)).view).toBe('SIWXSignMessage')
  expect((await hostState(page)).session).toBeNull()

  // Cancel in required mode disconnects.
  await frame.getByRole('button', { name: 'Disconnect' }).click()
  await expect.poll(async () => (await hostState(page)).status).toBe('disconnected')
})

test('optional sign-in: Cancel just closes the modal and stays connected', async ({ page }) => {
  await setup(page, 'optional')
  await connect(page)
  const frame = widget(page)
  await expect(frame.getByRole('button', { name: 'Close' })).toBeVisible()
  await expectWidgetAccessible(page, 'SIWXSignMessage')
  await frame.getByRole('button', { name: 'Cancel' }).click()
  await expect.poll(async () => (await hostState(page)).open).toBe(false)
  const state = await hostState(page)
  expect([state.status, state.session]).toEqual(['connected', null])
  // The host may ask again.
  await page.evaluate(() => (window as unknown as SessionWindow).Wallet.signIn())
  await expect.poll(async () => (await hostState(page)).view).toBe('SIWXSignMessage')
})

test('another network with no session asks for a new sign-in', async ({ page }) => {
  await setup(page, 'optional')
  await connect(page)
  await widget(page).getByRole('button', { name: 'Sign in' }).click()
  await expect.poll(async () => (await hostState(page)).session).not.toBeNull()
  await page.evaluate(() =>
    (
      window as unknown as {
        Wallet: {
          provider: { request(args: { method: string; params: unknown[] }): Promise<unknown> }
        }
      }
    ).Wallet.provider.request({
      method: 'wallet_switchEthereumChain',
      params: [{ chainId: '0xaa36a7' }],
    }),
  )
  await expect.poll(async () => (await hostState(page)).chainId).toBe('eip155:11155111')
  await expect.poll(async () => (await hostState(page)).view).toBe('SIWXSignMessage')
  expect((await hostState(page)).session).toBeNull()
})

test('an EIP-1271 smart-contract signer on anvil signs in (and is told sites may not support it)', async ({
  page,
}) => {
  // A smart account owned by this worker's key, deployed on the stack's anvil.
  const privateKey = workerKey(test.info().parallelIndex)
  const { account, publicClient, walletClient } = createAnvilClients({
    rpcUrl: anvilUrl,
    privateKey,
  })
  const { abi, bytecode } = compileContract(SMART_ACCOUNT_SOURCE, 'SmartAccount')
  const hash = await walletClient.deployContract({ abi, bytecode, args: [account.address] })
  const { contractAddress } = await publicClient.waitForTransactionReceipt({ hash })
  if (!contractAddress) throw new Error('SmartAccount was not deployed')

  const wallet = await installTestWallet(page, { privateKey, smartAccount: contractAddress })
  await openHost(page, { siwx: 'required' })
  await connect(page)
  const frame = widget(page)
  await expect(frame.getByText('This application might not support Smart Accounts')).toBeVisible()
  await frame.getByRole('button', { name: 'Sign in' }).click()
  await expect.poll(async () => (await hostState(page)).open).toBe(false)
  const session = await page.evaluate(() =>
    (window as unknown as SessionWindow).Wallet.getSession(),
  )
  expect(String(session?.data.address).toLowerCase()).toBe(contractAddress.toLowerCase())
  expect(wallet.address.toLowerCase()).toBe(contractAddress.toLowerCase())
  expect((await checkSession(String(session?.data.token), origins.demo)).status).toBe(200)
})
