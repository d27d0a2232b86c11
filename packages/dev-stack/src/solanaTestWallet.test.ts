/**
 * The e2e Solana test wallet against a real local Solana node (on a free
 * port, not the stack's 8899) and Debian Chromium: Wallet Standard
 * registration, connect, a message signature that verifies, a real transfer,
 * rejection and the account's `change` events.
 */

import { verify } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Browser, chromium, type Page } from '@playwright/test'
import { standardFeatures } from '@porthole/protocol/HostGuards'
import {
  Connection,
  LAMPORTS_PER_SOL,
  SystemProgram,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { chromiumArgs } from '../../../playwright.config.ts'
import { devSolanaKeypair } from './solanaKeys.ts'
import { createSolanaNode, type SolanaNode } from './solanaNode.ts'
import { installSolanaTestWallet, type SolanaTestWallet } from './solanaTestWallet.ts'

type PageWallet = {
  name: string
  chains: string[]
  accounts: Array<{ address: string; publicKey: Uint8Array }>
  features: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>>
}
type TestWindow = Window & {
  wallets: PageWallet[]
  changes: string[][]
  call(feature: string, method: string, input?: unknown): Promise<unknown>
}

let node: SolanaNode
let connection: Connection
let browser: Browser
let server: Server
let host: string
let page: Page
let wallet: SolanaTestWallet
const payer = devSolanaKeypair(3)
const receiver = devSolanaKeypair(4).publicKey

beforeAll(async () => {
  node = await createSolanaNode({ port: 0 })
  connection = new Connection(node.url, 'confirmed')
  server = createServer((_, response) => {
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>host</title>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
  await node?.close()
})

beforeEach(async () => {
  page = await browser.newPage()
  wallet = await installSolanaTestWallet(page, { keypair: payer, rpcUrl: node.url })
  await page.goto(`${host}/`)
  // An app as `@wallet-standard/app` is: it registers the wallets, later and earlier ones.
  await page.evaluate(() => {
    const w = window as unknown as TestWindow
    w.wallets = []
    w.changes = []
    const api = Object.freeze({
      register(...wallets: PageWallet[]) {
        w.wallets.push(...wallets)
        return () => {}
      },
    })
    window.addEventListener('wallet-standard:register-wallet', (event) =>
      (event as CustomEvent<(api: unknown) => void>).detail(api),
    )
    window.dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: api }))
    const [first] = w.wallets
    ;(
      first?.features['standard:events']?.on as unknown as (
        e: string,
        l: (p: { accounts: Array<{ address: string }> }) => void,
      ) => void
    )?.('change', ({ accounts }) => w.changes.push(accounts.map(({ address }) => address)))
    w.call = async (feature, method, input) => {
      const target = w.wallets[0] as PageWallet
      const args =
        input && typeof input === 'object' && 'account' in input
          ? [{ ...input, account: target.accounts[0] ?? { address: 'none' } }]
          : input === undefined
            ? []
            : [input]
      try {
        const call = target.features[feature]?.[method] as
          | ((...a: unknown[]) => Promise<unknown>)
          | undefined
        if (!call) throw new Error(`The wallet has no ${feature}.${method}`)
        const result = await call.apply(target.features[feature], args)
        return JSON.parse(
          JSON.stringify(result, (_, value) =>
            value instanceof Uint8Array ? Array.from(value) : value,
          ),
        )
      } catch (error) {
        const { code, message } = error as { code?: number; message?: string }
        return { error: { code, message } }
      }
    }
  })
})

afterEach(async () => {
  await page?.close()
})

const call = (feature: string, method: string, input?: unknown) =>
  page.evaluate(
    ([feature, method, input]) => (window as unknown as TestWindow).call(feature, method, input),
    [feature, method, input] as const,
  ) as Promise<Record<string, unknown>>

const connect = async () => {
  expect(await call('standard:connect', 'connect')).toMatchObject({
    accounts: [{ address: wallet.address }],
  })
}

/** A transfer of `lamports` from the wallet's account, serialised as the page sends it. */
async function transfer(lamports: number) {
  const { blockhash } = await connection.getLatestBlockhash()
  const message = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: blockhash,
    instructions: [
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: receiver, lamports }),
    ],
  }).compileToV0Message()
  return Array.from(new VersionedTransaction(message).serialize())
}

const spki = (publicKey: Uint8Array) => ({
  key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]),
  format: 'der' as const,
  type: 'spki' as const,
})

describe('Solana test wallet', () => {
  test('registers with the Wallet Standard, with its name, chains and Solana features', async () => {
    const registered = await page.evaluate(() =>
      (window as unknown as TestWindow).wallets.map(({ name, chains, features, accounts }) => ({
        name,
        chains,
        features: Object.keys(features),
        accounts: accounts.length,
      })),
    )
    expect(registered).toEqual([
      {
        name: 'Porthole Solana Test Wallet',
        chains: ['solana:localnet'],
        features: standardFeatures,
        accounts: 0,
      },
    ])
  })

  test('connects (not silently), then tells the page of a disconnect in the wallet', async () => {
    expect(await call('standard:connect', 'connect', { silent: true })).toEqual({ accounts: [] })
    await connect()
    expect(wallet.connected).toBe(true)
    await wallet.disconnect()
    const changes = await page.evaluate(() => (window as unknown as TestWindow).changes)
    expect(changes).toEqual([[wallet.address], []])
  })

  test('signs a message that verifies with its public key', async () => {
    await connect()
    const message = [...Buffer.from('Sign in to Porthole')]
    const result = await call('solana:signMessage', 'signMessage', { account: true, message })
    const signature = Buffer.from(result[0] ? (result[0] as { signature: number[] }).signature : [])
    expect(signature).toHaveLength(64)
    expect(verify(null, Buffer.from(message), spki(payer.publicKey.toBytes()), signature)).toBe(
      true,
    )
  })

  test('signs a transaction, and signs and sends one: the balances move by the amount', async () => {
    await connect()
    const signed = (await call('solana:signTransaction', 'signTransaction', {
      account: true,
      transaction: await transfer(1),
    })) as unknown as Array<{ signedTransaction: number[] }>
    const transaction = VersionedTransaction.deserialize(
      Uint8Array.from(signed[0]?.signedTransaction ?? []),
    )
    expect(
      verify(
        null,
        transaction.message.serialize(),
        spki(payer.publicKey.toBytes()),
        transaction.signatures[0] as Uint8Array,
      ),
    ).toBe(true)

    const before = await connection.getBalance(receiver)
    const sent = (await call('solana:signAndSendTransaction', 'signAndSendTransaction', {
      account: true,
      chain: 'solana:localnet',
      transaction: await transfer(LAMPORTS_PER_SOL / 4),
      options: { preflightCommitment: 'confirmed' },
    })) as unknown as Array<{ signature: number[] }>
    expect(sent[0]?.signature).toHaveLength(64)
    expect((await connection.getBalance(receiver)) - before).toBe(LAMPORTS_PER_SOL / 4)
  })

  test('rejects with 4001 when set to reject, and an account it has not given with 4100', async () => {
    wallet.setBehaviour('reject')
    expect(await call('standard:connect', 'connect')).toEqual({
      error: { code: 4001, message: 'User rejected the request.' },
    })
    expect(
      await call('solana:signMessage', 'signMessage', { account: true, message: [1] }),
    ).toMatchObject({
      error: { code: 4100 },
    })
    wallet.setBehaviour('approve')
    await connect()
    wallet.setBehaviour('reject')
    expect(
      await call('solana:signMessage', 'signMessage', { account: true, message: [1] }),
    ).toEqual({
      error: { code: 4001, message: 'User rejected the request.' },
    })
    expect(wallet.requests.map(({ feature }) => feature)).toEqual([
      'standard:connect',
      'solana:signMessage',
      'standard:connect',
      'solana:signMessage',
    ])
  })
})
