import { encodeAbiParameters, numberToHex, parseEther } from 'viem'
import { beforeAll, describe, expect, test } from 'vitest'
import { page } from 'vitest/browser'
import { rpcRoute, serveApi } from '../../test/api.js'
import { connectHostWallet } from '../../test/host.js'
import { pricesSettled } from '../../test/prices.js'
import { renderWidget } from '../../test/view.js'
import { type SendToken, store } from '../lib/state/store.js'

const usdc = {
  address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  symbol: 'USDC',
  decimals: 6,
}
const receiver = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

/** The API for the sender; `prices` is `GET /prices`'s answer, or none served (404). */
function serveSender(prices?: unknown) {
  return serveApi({
    'POST /v1/': rpcRoute({
      eth_chainId: () => '0x1',
      eth_getBalance: () => numberToHex(parseEther('1.5')),
      eth_call: () => encodeAbiParameters([{ type: 'uint256' }], [12_500_000n]),
    }),
    'GET /tokens': () => ({ tokens: [{ ...usdc, name: 'USD Coin' }] }),
    ...(prices === undefined ? {} : { 'GET /prices': () => prices }),
  })
}

beforeAll(async () => {
  serveSender()
  await connectHostWallet()
})

const review = page.getByRole('dialog', { name: 'Review Send' })
const amountRow = () => review.getByRole('definition').first()
const fiat = page.getByTestId('send-amount-fiat')

const renderPreview = (token: SendToken, amount: string) =>
  renderWidget({
    history: ['Account', 'WalletSend', 'WalletSendPreview'],
    send: { ...store.getState().send, token, sendTokenAmount: amount, receiverAddress: receiver },
  })

describe('the send preview’s fiat value', () => {
  test("shows the amount's value at the token's price, in dollars to 2 decimals", async () => {
    const api = serveSender({ currency: 'USD', native: 3000, tokens: { [usdc.address]: 0.9998 } })
    await renderPreview({ kind: 'token', ...usdc }, '2.5')
    await expect.element(amountRow()).toHaveTextContent('2.5 USDC ($2.50)')
    await expect.element(fiat).toHaveTextContent('($2.50)')
    expect(api.callsTo('/prices')[0]?.url.searchParams.get('chainId')).toBe('eip155:1')
  })

  test("the native coin's value at its price", async () => {
    serveSender({ currency: 'USD', native: 3012.5, tokens: {} })
    await renderPreview({ kind: 'native', symbol: 'ETH', decimals: 18 }, '0.25')
    await expect.element(fiat).toHaveTextContent('($753.13)')
  })

  test('no price, no fiat value: never $0.00', async () => {
    serveSender({ currency: 'USD', native: 3000, tokens: {} })
    await renderPreview({ kind: 'token', ...usdc }, '2.5')
    await expect.element(amountRow()).toHaveTextContent('2.5 USDC')
    // The native coin's price came (the same answer), the token's did not.
    await pricesSettled()
    expect(fiat.elements()).toEqual([])
    expect(amountRow().element().textContent).toBe('2.5 USDC')
  })

  test('prices that fail to load: no fiat value, and the send is offered as before', async () => {
    const api = serveSender()
    await renderPreview({ kind: 'native', symbol: 'ETH', decimals: 18 }, '0.25')
    await expect.poll(() => api.callsTo('/prices').length).toBeGreaterThan(0)
    await expect.element(amountRow()).toHaveTextContent('0.25 ETH')
    await pricesSettled()
    await expect.element(review.getByRole('button', { name: 'Send' })).toBeEnabled()
    expect(fiat.elements()).toEqual([])
  })
})
