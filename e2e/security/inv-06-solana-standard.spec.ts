/**
 * SECURITY.md 6, 17 and 20 through Porthole as a Wallet Standard wallet on
 * the host page (issue 13, red team): a hostile host connects Porthole's
 * Standard wallet to the embedded wallet's Solana account, then tries to get
 * a signature without the approval window: a message that is a transaction,
 * a send on another network, a send with smuggled options, posted
 * "approve" messages. Positive control: Approve in the window sends exactly
 * the transaction, and its own signature comes back.
 */
import { expect, type Page, test } from '@playwright/test'
import { devSolanaKeypair } from '@porthole/dev-stack/solanaKeys'
import {
  freshSolanaAddress,
  solanaBalance,
  solanaRpc,
  solanaTransferNow,
} from '@porthole/dev-stack/solanaTransfers'
import { solanaUrl } from '@porthole/dev-stack/stack'
import { base58 } from '@scure/base'
import { approveInWindow, freshEmail, loginWithEmail, primaryButton } from '../embeddedFixtures.ts'
import { openHost, origins } from '../fixtures.ts'

type Outcome = { result?: unknown; error?: { code?: number; message?: string } }
type RedWindow = Window & {
  porthole?: {
    features: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>>
    accounts: { address: string }[]
  }
  call(feature: string, method: string, input: unknown): Promise<Outcome>
  started: Record<string, Promise<Outcome>>
}

/** Finds Porthole's Standard wallet as a stock app would, and keeps a helper that never throws. */
async function findPorthole(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as RedWindow
    w.started = {}
    const register = (...wallets: unknown[]) => {
      for (const wallet of wallets as RedWindow['porthole'][])
        if ((wallet as { name?: string }).name === 'Porthole') w.porthole = wallet
      return () => undefined
    }
    addEventListener('wallet-standard:register-wallet', (event) =>
      (event as CustomEvent<(api: unknown) => void>).detail({ register }),
    )
    dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: { register } }))
    w.call = (feature, method, input) =>
      Promise.resolve()
        .then(() => w.porthole?.features[feature]?.[method]?.(input))
        .then(
          (result) => {
            const r = result as Array<{ signature?: Uint8Array }> | undefined
            return {
              result: Array.isArray(r)
                ? r.map((o) => ({ signature: o.signature ? Array.from(o.signature) : undefined }))
                : result,
            }
          },
          (error: { code?: number; message?: string }) => ({
            error: { code: error.code, message: error.message },
          }),
        )
  })
  await expect
    .poll(() => page.evaluate(() => Boolean((window as unknown as RedWindow).porthole)))
    .toBe(true)
}

const start = (page: Page, name: string, feature: string, method: string, input: unknown) =>
  page.evaluate(
    ({ name, feature, method, input }) => {
      const w = window as unknown as RedWindow
      const account = w.porthole?.accounts[0]
      const withAccount = { ...(input as object), account }
      const decoded = Object.fromEntries(
        Object.entries(withAccount).map(([key, value]) => [
          key,
          typeof value === 'string' && key !== 'chain'
            ? Uint8Array.from(atob(value), (c) => c.charCodeAt(0))
            : value,
        ]),
      )
      w.started[name] = w.call(feature, method, decoded)
    },
    { name, feature, method, input },
  )
const outcome = (page: Page, name: string) =>
  page.evaluate((name) => (window as unknown as RedWindow).started[name] as Promise<Outcome>, name)
const isSettled = (page: Page, name: string) =>
  page.evaluate(
    (name) =>
      Promise.race([
        (window as unknown as RedWindow).started[name]?.then(() => true),
        new Promise((resolve) => setTimeout(() => resolve(false), 50)),
      ]),
    name,
  )

async function fund(address: string, lamports: number) {
  const funder = devSolanaKeypair(5 + (test.info().parallelIndex % 5))
  const transaction = await solanaTransferNow(solanaUrl, {
    from: funder.publicKey.toBase58(),
    to: address,
    lamports,
    signer: funder,
  })
  const sent = await solanaRpc(solanaUrl, 'sendTransaction', [transaction, { encoding: 'base64' }])
  expect(sent.error).toBeUndefined()
}

test('inv-06 a host gets no Solana signature through Porthole’s Standard wallet without Approve in the window', async ({
  page,
}) => {
  test.setTimeout(120_000)
  await openHost(page)
  await findPorthole(page)
  // The host's app connects Porthole: the modal asks for a Solana wallet; the visitor logs in by email.
  // (Through the provider: Porthole's Standard connect only opens the modal, which then
  // connects the email wallet on the project's default namespace, EVM here.)
  await page.evaluate(() => {
    const w = window as unknown as RedWindow & {
      Wallet: { provider: { request(args: { method: string }): Promise<unknown> } }
    }
    w.started.connect = w.Wallet.provider.request({ method: 'standard:connect' }).then(
      (result) => ({ result }),
      (error: { code?: number; message?: string }) => ({
        error: { code: error.code, message: error.message },
      }),
    )
  })
  await loginWithEmail(page, freshEmail('inv06sol'))
  const connected = await outcome(page, 'connect')
  expect(connected.error).toBeUndefined()
  const wallet = await page.evaluate(
    () => (window as unknown as RedWindow).porthole?.accounts[0]?.address as string,
  )
  expect(wallet).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
  await fund(wallet, 1_000_000_000)
  const receiver = freshSolanaAddress()
  const transaction = await solanaTransferNow(solanaUrl, {
    from: wallet,
    to: receiver,
    lamports: 123_000_000,
  })
  const bytes = Buffer.from(transaction, 'base64')
  const message = bytes.subarray(1 + 64 * (bytes[0] ?? 1)).toString('base64')
  const opened: Page[] = []
  page.context().on('page', (popup) => opened.push(popup))

  // 1. The transaction's message offered as a "message": refused before any approval.
  await start(page, 'asMessage', 'solana:signMessage', 'signMessage', { message })
  expect((await outcome(page, 'asMessage')).error).toMatchObject({ code: -32602 })
  await expect(primaryButton(page)).toHaveCount(0)

  // 2. A send on a network Porthole is not on: 4901, the widget never asked.
  await start(page, 'mainnet', 'solana:signAndSendTransaction', 'signAndSendTransaction', {
    transaction,
    chain: 'solana:mainnet',
  })
  expect((await outcome(page, 'mainnet')).error).toMatchObject({ code: 4901 })
  await expect(primaryButton(page)).toHaveCount(0)

  // 3. The send, with options carrying extra keys; the host posts "approve" everywhere.
  await start(page, 'send', 'solana:signAndSendTransaction', 'signAndSendTransaction', {
    transaction,
    chain: 'solana:localnet',
    options: {
      preflightCommitment: 'confirmed',
      encoding: 'base58',
      skipPreflight: true,
      extra: 1,
    },
  })
  await expect(primaryButton(page)).toBeVisible()
  await page.evaluate(
    ({ widgetOrigin, secureOrigin }) => {
      const widget = document.querySelector<HTMLIFrameElement>('iframe[title="Porthole wallet"]')
      for (const data of [
        { type: 'approve' },
        { method: 'approve', params: {} },
        { kind: 'request', method: 'approve', id: crypto.randomUUID() },
      ]) {
        widget?.contentWindow?.postMessage(data, widgetOrigin)
        widget?.contentWindow?.frames[0]?.postMessage(data, secureOrigin)
      }
    },
    { widgetOrigin: origins.widget, secureOrigin: origins.secure },
  )
  await page.waitForTimeout(1_500)
  expect(await isSettled(page, 'send')).toBe(false)
  expect(opened).toHaveLength(0)
  expect(await solanaBalance(solanaUrl, receiver)).toBe(0)

  // Positive control: Approve in the window sends it; the signature is the transaction's own.
  await approveInWindow(page)
  const sent = await outcome(page, 'send')
  expect(sent.error).toBeUndefined()
  const signature = base58.encode(
    Uint8Array.from((sent.result as Array<{ signature: number[] }>)[0]?.signature ?? []),
  )
  const { result } = await solanaRpc(solanaUrl, 'getSignatureStatuses', [[signature]])
  expect(result).toMatchObject({ value: [{ err: null }] })
  expect(await solanaBalance(solanaUrl, receiver)).toBe(123_000_000)
})
