/**
 * Porthole as a Wallet Standard wallet on the host page (issue 13): a stock
 * Solana app, `@wallet-standard/app`'s `getWallets()` started before the
 * loader, finds Porthole among its wallets with no code of ours, connects it
 * (the visitor picks the Solana test wallet in the modal) and signs a
 * message through it that verifies for the test wallet's key.
 */

import { verify } from 'node:crypto'
import { join } from 'node:path'
import { expect, type FrameLocator, test } from '@playwright/test'
import * as Solana from '@porthole/chains/Solana'
import { devSolanaKeypair } from '@porthole/dev-stack/solanaKeys'
import { installSolanaTestWallet } from '@porthole/dev-stack/solanaTestWallet'
import { standardFeatures } from '@porthole/protocol/HostGuards'
import { build } from 'esbuild'
import { hostState, openHost, widget } from './fixtures.ts'

type StandardWallet = {
  name: string
  chains: string[]
  accounts: Array<{ address: string }>
  features: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>>
}
type AppWindow = Window & {
  standardApp: { get(): StandardWallet[] }
  connecting: Promise<{ accounts: Array<{ address: string }> }>
}

const connectList = (frame: FrameLocator) => frame.getByRole('list', { name: 'Connect a wallet' })

/** The app's script: `@wallet-standard/app` as a site bundles it. */
let appScript: string
test.beforeAll(async () => {
  const { outputFiles } = await build({
    stdin: {
      contents:
        "import { getWallets } from '@wallet-standard/app'\nwindow.standardApp = getWallets()",
      resolveDir: join(import.meta.dirname, '..'),
    },
    bundle: true,
    format: 'iife',
    write: false,
    logLevel: 'warning',
  })
  appScript = outputFiles[0]?.text ?? ''
})

test('a stock Wallet Standard app finds Porthole and signs a message through it', async ({
  page,
}) => {
  const keypair = devSolanaKeypair(0)
  const wallet = await installSolanaTestWallet(page, { keypair })
  // The site's app starts before the loader.
  await page.addInitScript({ content: `if (window.top === window) {${appScript}}` })
  await openHost(page)

  const names = () =>
    page.evaluate(() => (window as unknown as AppWindow).standardApp.get().map(({ name }) => name))
  await expect.poll(names).toContain('Porthole')
  expect(await names()).toContain(wallet.name)
  const porthole = await page.evaluate(() => {
    const found = (window as unknown as AppWindow).standardApp
      .get()
      .find(({ name }) => name === 'Porthole') as StandardWallet
    return {
      chains: found.chains,
      features: Object.keys(found.features),
      accounts: found.accounts.length,
    }
  })
  expect(porthole).toEqual({
    chains: ['solana:mainnet', 'solana:testnet', 'solana:devnet', 'solana:localnet'],
    features: standardFeatures,
    accounts: 0,
  })

  // The app connects Porthole: the modal opens, the visitor picks their Solana wallet.
  await page.evaluate(() => {
    const w = window as unknown as AppWindow
    const found = w.standardApp.get().find(({ name }) => name === 'Porthole') as StandardWallet
    w.connecting = found.features['standard:connect']?.connect?.() as AppWindow['connecting']
  })
  await expect.poll(async () => (await hostState(page)).open).toBe(true)
  await connectList(widget(page))
    .getByRole('button', { name: new RegExp(wallet.name) })
    .click()
  const connected = await page.evaluate(async () =>
    (await (window as unknown as AppWindow).connecting).accounts.map(({ address }) => address),
  )
  expect(connected).toEqual([wallet.address])
  expect(await hostState(page)).toMatchObject({
    status: 'connected',
    caipAddress: `${Solana.localnet.caipNetworkId}:${wallet.address}`,
    chainId: Solana.localnet.caipNetworkId,
  })

  // It signs a message through Porthole; the test wallet's key signed it.
  const message = 'Hello from a stock Wallet Standard app'
  const signature = await page.evaluate(async (message) => {
    const w = window as unknown as AppWindow
    const found = w.standardApp.get().find(({ name }) => name === 'Porthole') as StandardWallet
    const outputs = (await found.features['solana:signMessage']?.signMessage?.({
      account: found.accounts[0],
      message: new TextEncoder().encode(message),
    })) as Array<{ signature: Uint8Array }>
    return Array.from(outputs[0]?.signature ?? [])
  }, message)
  expect(signature).toHaveLength(64)
  const publicKey = {
    key: Buffer.concat([
      Buffer.from('302a300506032b6570032100', 'hex'),
      keypair.publicKey.toBytes(),
    ]),
    format: 'der' as const,
    type: 'spki' as const,
  }
  expect(verify(null, Buffer.from(message), publicKey, Buffer.from(signature))).toBe(true)
  expect(wallet.requests.map(({ feature }) => feature)).toEqual([
    'standard:connect',
    'solana:signMessage',
  ])
})

test('a page without the Wallet Standard never downloads loader-solana.js', async ({ page }) => {
  const fetched: string[] = []
  page.on('request', (request) => fetched.push(new URL(request.url()).pathname))
  await openHost(page)
  await page.evaluate(() =>
    (window as unknown as { Wallet: { open(): Promise<void> } }).Wallet.open(),
  )
  await expect.poll(async () => (await hostState(page)).open).toBe(true)
  expect(fetched).toContain('/loader.js')
  expect(fetched).not.toContain('/loader-solana.js')
})

test("inv-01 a hostile page's Standard wallets: the modal lists only a well-formed one, and the bridge leaves the page nothing new", async ({
  page,
}) => {
  const fetched: string[] = []
  page.on('request', (request) => fetched.push(new URL(request.url()).pathname))
  await installSolanaTestWallet(page)
  // Registered before the loader: wallets whose getters throw, a flood, a huge icon, no Solana chain.
  await page.addInitScript(() => {
    if (window.top !== window) return
    ;(window as unknown as { keysBefore: string[] }).keysBefore = Object.keys(window)
    const trap = {
      get() {
        throw new Error('trap')
      },
    }
    const feature = { version: '1.0.0', connect: async () => ({ accounts: [] }) }
    const wallets: unknown[] = [
      Object.defineProperty({ name: 'Trap Wallet', chains: ['solana:localnet'] }, 'features', trap),
      new Proxy({}, { get: trap.get }),
      { name: 'EVM Only', chains: ['eip155:1'], features: { 'standard:connect': feature } },
      ...Array.from({ length: 200 }, (_, index) => ({
        name: `Flood ${index}`,
        chains: [],
        features: {},
      })),
    ]
    const callback = ({ register }: { register(...wallets: unknown[]): unknown }) =>
      register(...wallets)
    window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: callback }))
    window.addEventListener('wallet-standard:app-ready', (event) =>
      callback((event as CustomEvent<{ register(...wallets: unknown[]): unknown }>).detail),
    )
  })
  await openHost(page)
  await page.evaluate(() =>
    (window as unknown as { Wallet: { open(): Promise<void> } }).Wallet.open(),
  )
  const list = connectList(widget(page))
  await expect(list.getByRole('button', { name: /Porthole Solana Test Wallet/ })).toBeVisible()
  await expect(list.getByRole('button', { name: /Trap Wallet|EVM Only|Flood/ })).toHaveCount(0)
  expect(fetched).toContain('/loader-solana.js')
  const added = await page.evaluate(() => {
    const before = new Set((window as unknown as { keysBefore: string[] }).keysBefore)
    return Object.keys(window).filter((key) => !before.has(key))
  })
  // The loader's one global (beside the widget's frame, window[0]); the bridge adds none.
  const ours = ['0', 'keysBefore']
  expect(
    added.filter((key) => !ours.includes(key) && !key.startsWith('__portholeSolanaTestWallet')),
  ).toEqual(['Wallet'])
})
