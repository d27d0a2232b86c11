/**
 * The e2e test wallet against a real anvil (on a free port, not the stack's
 * 8545) and Debian Chromium: EIP-6963 discovery, accounts, signing, a real
 * transfer, rejection and the 4902 → add → switch path.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Browser, chromium, type Page } from '@playwright/test'
import {
  createPublicClient,
  type Hex,
  http,
  parseEther,
  verifyMessage,
  verifyTypedData,
} from 'viem'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { chromiumArgs } from '../../../playwright.config.ts'
import { type LocalAnvil, startAnvil } from './anvil.ts'
import { installTestWallet, type TestWallet } from './testWallet.ts'

/** Anvil's second default dev account. */
const OTHER_DEV_ACCOUNT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

type ProviderLike = {
  request(args: { method: string; params?: unknown }): Promise<unknown>
  on(event: string, listener: (data: unknown) => void): unknown
}
type Detail = {
  info: { uuid: string; name: string; icon: string; rdns: string }
  provider: unknown
}
type TestWindow = Window & {
  announced: Detail[]
  provider: ProviderLike
  events: { event: string; data: unknown }[]
}

let anvil: LocalAnvil | undefined
let rpcUrl: string
let browser: Browser
let server: Server
let host: string
let page: Page
let wallet: TestWallet

/** The host pages. Not `page.setContent`: its document.open() erases the window's listeners. */
const pages: Record<string, string> = {
  '/': '<!doctype html><title>host</title><h1>host</h1>',
  '/framed': '<!doctype html><title>framed</title><iframe src="/"></iframe>',
}

/** Runs `provider.request` in the page; resolves to the result or the error's code and data. */
function pageRequest(method: string, params?: unknown) {
  return page.evaluate(
    async ([method, params]) => {
      try {
        const result = await (window as unknown as TestWindow).provider.request({ method, params })
        return { result }
      } catch (error) {
        const e = error as { code?: unknown; message?: unknown; data?: unknown }
        return {
          error: {
            isError: error instanceof Error,
            code: e.code,
            message: e.message,
            data: e.data,
          },
        }
      }
    },
    [method, params] as const,
  )
}

async function connect() {
  const answer = await pageRequest('eth_requestAccounts')
  expect(answer).toEqual({ result: [wallet.address] })
}

beforeAll(async () => {
  anvil = await startAnvil()
  rpcUrl = anvil.url
  server = createServer((request, response) => {
    const body = pages[request.url ?? '']
    response.writeHead(body ? 200 : 404, { 'content-type': 'text/html' }).end(body ?? '')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs })
})

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
  await anvil?.stop()
})

beforeEach(async () => {
  page = await browser.newPage()
  wallet = await installTestWallet(page, { rpcUrl })
  await page.goto(`${host}/`)
  // Discovery as a dapp does it after load: listen, then ask.
  await page.evaluate(() => {
    const w = window as unknown as TestWindow
    w.announced = []
    w.events = []
    window.addEventListener('eip6963:announceProvider', (event) => {
      const detail = (event as CustomEvent<Detail>).detail
      w.announced.push(detail)
      w.provider = detail.provider as ProviderLike
    })
    window.dispatchEvent(new Event('eip6963:requestProvider'))
    for (const event of ['accountsChanged', 'chainChanged', 'connect', 'disconnect'])
      w.provider?.on(event, (data) => w.events.push({ event, data }))
  })
})

afterEach(async () => {
  await page?.close()
})

describe('test wallet', () => {
  it('is announced with EIP-6963 to a listener registered after load', async () => {
    const announced = await page.evaluate(() => {
      const w = window as unknown as TestWindow
      const [detail] = w.announced
      return {
        count: w.announced.length,
        info: detail?.info,
        frozen: Object.isFrozen(detail) && Object.isFrozen(detail?.info),
        hasRequest: typeof (detail?.provider as ProviderLike | undefined)?.request === 'function',
      }
    })
    expect(announced).toEqual({
      count: 1,
      info: {
        uuid: wallet.uuid,
        name: 'Porthole Test Wallet',
        rdns: 'dev.porthole.testwallet',
        icon: expect.stringMatching(/^data:image\/svg\+xml,/),
      },
      frozen: true,
      hasRequest: true,
    })
    expect(wallet.uuid).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('is not injected into iframes', async () => {
    await page.goto(`${host}/framed`)
    const frame = page.frames()[1]
    expect(frame?.url()).toBe(`${host}/`)
    const inFrame = await frame?.evaluate(() => {
      let seen = false
      window.addEventListener('eip6963:announceProvider', () => {
        seen = true
      })
      window.dispatchEvent(new Event('eip6963:requestProvider'))
      return seen
    })
    expect(inFrame).toBe(false)
  })

  it('returns no accounts until connected, then the address; reports the chain', async () => {
    expect(await pageRequest('eth_accounts')).toEqual({ result: [] })
    expect(await pageRequest('eth_chainId')).toEqual({ result: '0x7a69' })
    await connect()
    expect(await pageRequest('eth_accounts')).toEqual({ result: [wallet.address] })
    expect(wallet.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    expect(await page.evaluate(() => (window as unknown as TestWindow).events)).toEqual([
      { event: 'accountsChanged', data: [wallet.address] },
    ])
    expect(wallet.requests.map((r) => r.method)).toEqual([
      'eth_accounts',
      'eth_chainId',
      'eth_requestAccounts',
      'eth_accounts',
    ])
  })

  it('signs with personal_sign (raw hex) and eth_signTypedData_v4', async () => {
    await connect()
    const message = '0x48656c6c6f20506f7274686f6c65' as Hex // "Hello Porthole"
    const signed = await pageRequest('personal_sign', [message, wallet.address])
    expect(typeof signed.result).toBe('string')
    expect(
      await verifyMessage({
        address: wallet.address,
        message: { raw: message },
        signature: signed.result as Hex,
      }),
    ).toBe(true)
    // A signature over different bytes must not verify.
    expect(
      await verifyMessage({
        address: wallet.address,
        message: 'Hello Porthole!',
        signature: signed.result as Hex,
      }),
    ).toBe(false)

    const typed = {
      domain: { name: 'Porthole', version: '1', chainId: 31337 },
      types: { Greeting: [{ name: 'text', type: 'string' }] },
      primaryType: 'Greeting',
      message: { text: 'gm' },
    } as const
    const signedTyped = await pageRequest('eth_signTypedData_v4', [
      wallet.address,
      JSON.stringify(typed),
    ])
    expect(
      await verifyTypedData({
        ...typed,
        address: wallet.address,
        signature: signedTyped.result as Hex,
      }),
    ).toBe(true)
  })

  it('sends 1 ETH to another dev account on anvil', async () => {
    const client = createPublicClient({ transport: http(rpcUrl) })
    const before = {
      from: await client.getBalance({ address: wallet.address }),
      to: await client.getBalance({ address: OTHER_DEV_ACCOUNT }),
    }
    await connect()
    const sent = await pageRequest('eth_sendTransaction', [
      { from: wallet.address, to: OTHER_DEV_ACCOUNT, value: '0xde0b6b3a7640000' },
    ])
    expect(sent.result).toMatch(/^0x[0-9a-f]{64}$/)
    const receipt = await client.waitForTransactionReceipt({ hash: sent.result as Hex })
    expect(receipt.status).toBe('success')
    const after = {
      from: await client.getBalance({ address: wallet.address }),
      to: await client.getBalance({ address: OTHER_DEV_ACCOUNT }),
    }
    expect(after.to - before.to).toBe(parseEther('1'))
    const fee = receipt.gasUsed * receipt.effectiveGasPrice
    expect(before.from - after.from).toBe(parseEther('1') + fee)
    // The page's read path goes to the same node.
    const receiptInPage = await pageRequest('eth_getTransactionReceipt', [sent.result])
    expect((receiptInPage.result as { status: string }).status).toBe('0x1')
  })

  it("answers 4001 to approvals in 'reject' behaviour, as an Error", async () => {
    wallet.setBehaviour('reject')
    expect(await pageRequest('eth_requestAccounts')).toEqual({
      error: { isError: true, code: 4001, message: 'User rejected the request.' },
    })
    expect(await pageRequest('eth_accounts')).toEqual({ result: [] })
    wallet.setBehaviour('approve')
    await connect()
    wallet.setBehaviour('reject')
    const signed = await pageRequest('personal_sign', ['0x1234', wallet.address])
    expect(signed.error?.code).toBe(4001)
    const sent = await pageRequest('eth_sendTransaction', [
      { from: wallet.address, to: OTHER_DEV_ACCOUNT, value: '0x1' },
    ])
    expect(sent.error?.code).toBe(4001)
  })

  it('answers -32602 to bad params and 4200 to unsupported methods', async () => {
    await connect()
    expect((await pageRequest('personal_sign', ['0x1234'])).error?.code).toBe(-32602)
    expect(
      (await pageRequest('wallet_switchEthereumChain', [{ chainId: 'mainnet' }])).error?.code,
    ).toBe(-32602)
    expect((await pageRequest('eth_sign', [wallet.address, '0x12'])).error?.code).toBe(4200)
  })

  it('switches to an unknown chain only after wallet_addEthereumChain, firing chainChanged', async () => {
    await connect()
    const unknown = await pageRequest('wallet_switchEthereumChain', [{ chainId: '0x1' }])
    expect(unknown.error?.code).toBe(4902)
    expect(wallet.chainId).toBe(31337)

    const added = await pageRequest('wallet_addEthereumChain', [
      {
        chainId: '0x1',
        chainName: 'Ethereum',
        rpcUrls: ['https://eth.example'],
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      },
    ])
    expect(added).toEqual({ result: null })
    expect(await pageRequest('wallet_switchEthereumChain', [{ chainId: '0x1' }])).toEqual({
      result: null,
    })
    expect(wallet.chainId).toBe(1)
    expect(await pageRequest('eth_chainId')).toEqual({ result: '0x1' })
    const events = await page.evaluate(() => (window as unknown as TestWindow).events)
    expect(events).toContainEqual({ event: 'chainChanged', data: '0x1' })

    // Back on anvil's chain, known by default in 'approve' behaviour.
    expect(await pageRequest('wallet_switchEthereumChain', [{ chainId: '0x7a69' }])).toEqual({
      result: null,
    })
  })

  it("answers 4902 to every chain not added in 'unknownChain' behaviour", async () => {
    await connect()
    wallet.setBehaviour('unknownChain')
    expect(
      (await pageRequest('wallet_switchEthereumChain', [{ chainId: '0x7a69' }])).error?.code,
    ).toBe(4902)
    await pageRequest('wallet_addEthereumChain', [
      { chainId: '0x2105', chainName: 'Base', rpcUrls: ['https://base.example'] },
    ])
    expect(await pageRequest('wallet_switchEthereumChain', [{ chainId: '0x2105' }])).toEqual({
      result: null,
    })
    expect(wallet.chainId).toBe(8453)
  })
})
