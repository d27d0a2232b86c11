import { encodeAbiParameters, numberToHex, parseEther } from 'viem'
import { beforeAll, describe, expect, test } from 'vitest'
import { page, userEvent } from 'vitest/browser'
import {
  deferred,
  NodeError,
  projectConfig,
  rpcRoute,
  serveApi,
  serverError,
} from '../../test/api.js'
import { account, connectHostWallet } from '../../test/host.js'
import { pricesSettled } from '../../test/prices.js'
import { renderWidget } from '../../test/view.js'
import { store } from '../lib/state/store.js'

const usdc = {
  address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  name: 'USD Coin',
  symbol: 'USDC',
  decimals: 6,
}

/**
 * The API for a connected account: 1.5 ETH, and 12.5 USDC when `tokens` lists
 * it; `prices` is `GET /prices`'s answer (none served, a 404, by default).
 */
function serveAccount(
  options: { tokens?: unknown; balance?: () => unknown; prices?: unknown } = {},
) {
  const { tokens = { tokens: [usdc] }, balance = () => numberToHex(parseEther('1.5')) } = options
  return serveApi({
    'POST /v1/': rpcRoute({
      eth_chainId: () => '0x1',
      eth_getBalance: balance,
      eth_call: () => encodeAbiParameters([{ type: 'uint256' }], [12_500_000n]),
    }),
    'GET /tokens': () => tokens,
    ...(options.prices === undefined ? {} : { 'GET /prices': () => options.prices }),
  })
}

beforeAll(async () => {
  serveAccount()
  await connectHostWallet()
})

const renderAccount = () => renderWidget({ history: ['Account'] })
const balance = page.getByTestId('account-balance')

describe('Account', () => {
  test('shows the address truncated, the balance, the wallet, the network and the tokens', async () => {
    serveAccount()
    await renderAccount()
    await expect.element(page.getByRole('heading', { name: 'Account' })).toBeVisible()
    await expect.element(page.getByTestId('account-address')).toHaveTextContent('0xf3…b92266')
    await expect
      .element(page.getByTestId('account-address'))
      .toHaveAttribute('title', account.address)
    await expect.element(balance).toHaveTextContent('1.5 ETH')
    await expect.element(page.getByText('Connected with Test Wallet')).toBeVisible()
    await expect.element(page.getByRole('button', { name: 'Network Ethereum' })).toBeVisible()
    const tokens = page.getByRole('list', { name: 'Tokens' })
    await expect.element(tokens).toHaveTextContent('USDC12.5')
  })

  test('shows no balance until it arrives', async () => {
    const answer = deferred()
    serveAccount({
      balance: async () => {
        await answer.promise
        return numberToHex(parseEther('2'))
      },
    })
    await renderAccount()
    await expect.element(page.getByText('Connected with Test Wallet')).toBeVisible()
    await expect.element(balance).not.toBeInTheDocument()
    answer.resolve()
    await expect.element(balance).toHaveTextContent('2 ETH')
  })

  test('says the balance is unavailable when the network does not answer', async () => {
    serveAccount({ balance: () => new NodeError('header not found') })
    await renderAccount()
    await expect.element(page.getByText('Balance unavailable')).toBeVisible()
    await expect.element(balance).not.toBeInTheDocument()
  })

  test('a network the API has no RPC upstream for: says balances cannot be read, asks nothing', async () => {
    const served = serveApi({
      'GET /appkit/v1/config': () => ({ ...projectConfig, networksWithoutRpc: ['eip155:1'] }),
      'POST /v1/': rpcRoute({
        eth_chainId: () => '0x1',
        eth_getBalance: () => numberToHex(parseEther('1.5')),
      }),
      'GET /tokens': () => ({ tokens: [usdc] }),
    })
    await renderAccount()
    await expect
      .element(page.getByTestId('account-balance-unreadable'))
      .toHaveTextContent("Balances can't be read on this network")
    await expect.element(page.getByRole('list', { name: 'Tokens' })).not.toBeInTheDocument()
    expect(served.callsTo('/tokens')).toEqual([])
    expect(
      served
        .callsTo('/v1/')
        .filter(({ body }) => (body as { method?: string })?.method === 'eth_getBalance'),
    ).toEqual([])
  })

  test('says when the account holds none of the network’s tokens', async () => {
    serveAccount({ tokens: { tokens: [] } })
    await renderAccount()
    await expect.element(page.getByText('No tokens on this network.')).toBeVisible()
  })

  test('shows the toast Token Balance Unavailable when the token balances fail, and hides the tokens', async () => {
    serveAccount({ tokens: serverError() })
    await renderAccount()
    await expect.element(page.getByText('Token Balance Unavailable')).toBeVisible()
    await expect.element(page.getByRole('heading', { name: 'Tokens' })).not.toBeInTheDocument()
    expect(store.getState().send.lastRetry).toEqual(expect.any(Number))
  })

  test('after that failure, the token balances are asked again only 30 s later (SPEC 9)', async () => {
    const api = serveAccount({ tokens: serverError() })
    await renderAccount()
    await expect.element(page.getByText('Token Balance Unavailable')).toBeVisible()
    const asked = api.callsTo('/tokens').length
    const failedAt = (at: number) =>
      store.setState((state) => ({ send: { ...state.send, lastRetry: at } }))
    // 29 s on: nothing is asked.
    failedAt(Date.now() - 29_000)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(api.callsTo('/tokens')).toHaveLength(asked)
    // 30 s on: asked once more.
    failedAt(Date.now() - 30_000)
    await expect.poll(() => api.callsTo('/tokens').length).toBe(asked + 1)
  })

  test('Send opens the send form, Sign message the signing view', async () => {
    serveAccount()
    await renderAccount()
    await page.getByRole('button', { name: 'Send' }).click()
    await expect.element(page.getByRole('heading', { name: 'Send' })).toBeVisible()
    await page.getByRole('button', { name: 'Back' }).click()
    await page.getByRole('button', { name: 'Sign message' }).click()
    await expect.element(page.getByRole('heading', { name: 'Sign Message' })).toBeVisible()
  })

  describe('keyboard', () => {
    test('focuses Copy address on opening; Tab goes to Network, Send, Receive, Sign message, Disconnect', async () => {
      serveAccount()
      await renderAccount()
      await expect.element(balance).toBeVisible()
      await expect.element(page.getByRole('button', { name: 'Copy address' })).toHaveFocus()
      for (const name of ['Network Ethereum', 'Send', 'Receive', 'Sign message', 'Disconnect']) {
        await userEvent.keyboard('{Tab}')
        await expect.element(page.getByRole('button', { name, exact: true })).toHaveFocus()
      }
    })

    test('Enter on Network opens Choose Network; Escape closes the modal', async () => {
      serveAccount()
      await renderAccount()
      // Once the view has all its parts: until then the Modal keeps focus on its first control.
      await expect.element(page.getByRole('list', { name: 'Tokens' })).toBeVisible()
      page.getByRole('button', { name: 'Network Ethereum' }).element().focus()
      await userEvent.keyboard('{Enter}')
      await expect.element(page.getByRole('heading', { name: 'Choose Network' })).toBeVisible()
      await userEvent.keyboard('{Escape}')
      await expect.poll(() => store.getState().open).toBe(false)
      expect(store.getState().history).toEqual(['Account'])
    })
  })

  // Last: it ends the file's connection.
  test('Disconnect disconnects the wallet and closes the modal', async () => {
    serveAccount()
    await renderAccount()
    const disconnect = page.getByRole('button', { name: 'Disconnect' })
    await disconnect.click()
    await expect.poll(() => store.getState().connection.status).toBe('disconnected')
    expect(store.getState().open).toBe(false)
  })
})

describe('Account’s fiat values', () => {
  const total = page.getByTestId('account-total')
  const tokenFiat = page.getByTestId('token-fiat')
  // The test above disconnects.
  beforeAll(async () => {
    serveAccount()
    await connectHostWallet()
  })

  test('each priced token shows its value, and the account its total, in dollars to 2 decimals', async () => {
    serveAccount({ prices: { currency: 'USD', native: 2000, tokens: { [usdc.address]: 1.0001 } } })
    await renderAccount()
    const tokens = page.getByRole('list', { name: 'Tokens' })
    await expect.element(tokens).toHaveTextContent('USDC12.5$12.50')
    await expect.element(tokenFiat).toHaveTextContent('$12.50')
    // 1.5 ETH at 2000 and 12.5 USDC at 1.0001.
    await expect.element(total).toHaveTextContent('Total $3,012.50')
  })

  test('a held token without a price: no value for it, and no total (it would be short)', async () => {
    serveAccount({ prices: { currency: 'USD', native: 2000, tokens: {} } })
    await renderAccount()
    await expect.element(page.getByRole('list', { name: 'Tokens' })).toHaveTextContent('USDC12.5')
    await expect.element(balance).toHaveTextContent('1.5 ETH')
    await pricesSettled()
    expect(tokenFiat.elements()).toEqual([])
    expect(total.elements()).toEqual([])
  })

  test('a token not held needs no price for the total', async () => {
    serveAccount({ tokens: { tokens: [] }, prices: { currency: 'USD', native: 2000, tokens: {} } })
    await renderAccount()
    await expect.element(total).toHaveTextContent('Total $3,000.00')
  })

  test('no prices at all (the API has none, or fails): no fiat anywhere, never $0.00', async () => {
    const api = serveAccount()
    await renderAccount()
    await expect.element(page.getByRole('list', { name: 'Tokens' })).toHaveTextContent('USDC12.5')
    await expect.poll(() => api.callsTo('/prices').length).toBeGreaterThan(0)
    await pricesSettled()
    expect(tokenFiat.elements()).toEqual([])
    expect(total.elements()).toEqual([])
    expect(document.body.textContent).not.toContain('$')
  })
})
