import { Evm } from '@porthole/chains'
import {
  type Address,
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionResult,
  type Hex,
  numberToHex,
  parseAbi,
  parseEther,
  zeroAddress,
} from 'viem'
import { beforeAll, describe, expect, test } from 'vitest'
import { page, userEvent } from 'vitest/browser'
import { deferred, NodeError, rpcRoute, serveApi } from '../../test/api.js'
import { connectHostWallet } from '../../test/host.js'
import { renderWidget } from '../../test/view.js'
import { receiverProfileQuery } from '../lib/chains/queries.js'
import { queryClient } from '../lib/data/queryClient.js'
import { ResolveNameError } from '../lib/errors.js'
import { store } from '../lib/state/store.js'

const usdc = {
  address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  name: 'USD Coin',
  symbol: 'USDC',
  decimals: 6,
}
const receiver = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

/** The API for the sender: 1.5 ETH and 12.5 USDC. */
function serveBalances(balance: () => unknown = () => numberToHex(parseEther('1.5'))) {
  return serveApi({
    'POST /v1/': rpcRoute({
      eth_chainId: () => '0x1',
      eth_getBalance: balance,
      eth_call: () => encodeAbiParameters([{ type: 'uint256' }], [12_500_000n]),
    }),
    'GET /tokens': () => ({ tokens: [usdc] }),
  })
}

beforeAll(async () => {
  serveBalances()
  await connectHostWallet()
})

const token = page.getByRole('combobox', { name: 'Token' })
const amount = page.getByRole('textbox', { name: 'Amount' })
const receiverField = page.getByRole('textbox', { name: 'Receiver address' })
const preview = page.getByRole('button', { name: 'Preview send' })
const max = page.getByRole('button', { name: 'Max' })
const error = page.getByRole('alert')

type Fill = { token?: string; amount?: string; receiver?: string }

const renderSend = () => renderWidget({ history: ['Account', 'WalletSend'] })
const options = () =>
  Array.from((token.element() as HTMLSelectElement).options, (option) => option.text)

describe('WalletSend', () => {
  test('offers the native token and the ERC-20s with their balances', async () => {
    serveBalances()
    await renderSend()
    await expect.element(page.getByRole('heading', { name: 'Send' })).toBeVisible()
    await expect.element(token.getByRole('option', { name: 'USDC (12.5)' })).toBeInTheDocument()
    expect(options()).toEqual(['—', 'ETH (1.5)', 'USDC (12.5)'])
    await expect.element(receiverField).toHaveAttribute('placeholder', '0x…')
  })

  test('offers no token until the balances arrive', async () => {
    const answer = deferred()
    serveBalances(async () => {
      await answer.promise
      return numberToHex(parseEther('1'))
    })
    await renderSend()
    await expect.element(token.getByRole('option', { name: 'USDC (12.5)' })).toBeInTheDocument()
    expect(options()).toEqual(['—', 'USDC (12.5)'])
    answer.resolve()
    await expect.element(token.getByRole('option', { name: 'ETH (1)' })).toBeInTheDocument()
  })

  test.each<{ case: string; fill: Fill; message: string }>([
    { case: 'nothing', fill: {}, message: 'An amount and receiver address are required' },
    {
      case: 'no token',
      fill: { amount: '1', receiver },
      message: 'A token is required',
    },
    {
      case: 'a malformed address',
      fill: { token: 'native', amount: '1', receiver: '0x1234' },
      message: 'Enter a valid EVM address (40 hex characters).',
    },
    {
      case: 'a zero amount',
      fill: { token: 'native', amount: '0', receiver },
      message: 'Enter an amount greater than 0.',
    },
    {
      case: 'more than the balance',
      fill: { token: 'native', amount: '2', receiver },
      message: 'The amount is more than your balance.',
    },
  ])('refuses $case with “$message”', async ({ fill, message }) => {
    serveBalances()
    await renderSend()
    await expect.element(token.getByRole('option', { name: 'ETH (1.5)' })).toBeInTheDocument()
    if (fill.token) await token.selectOptions(fill.token)
    if (fill.amount) await amount.fill(fill.amount)
    if (fill.receiver) await receiverField.fill(fill.receiver)
    await preview.click()
    await expect.element(error).toHaveTextContent(message)
    expect(store.getState().history).toEqual(['Account', 'WalletSend'])
    // The error goes as soon as the form changes.
    await amount.fill('0.5')
    await expect.element(error).not.toBeInTheDocument()
  })

  test('Max fills in the whole balance of the token', async () => {
    serveBalances()
    await renderSend()
    await expect.element(token.getByRole('option', { name: 'USDC (12.5)' })).toBeInTheDocument()
    await expect.element(max).not.toBeInTheDocument()
    await token.selectOptions(usdc.address)
    await max.click()
    await expect.element(amount).toHaveValue('12.5')
  })

  describe('keyboard', () => {
    test('Tab goes token, amount, Max, receiver, Preview send; Enter previews a valid send', async () => {
      serveBalances()
      await renderSend()
      await expect.element(token.getByRole('option', { name: 'ETH (1.5)' })).toBeInTheDocument()
      await expect.element(token).toHaveFocus()
      await token.selectOptions('native')
      await userEvent.keyboard('{Tab}')
      await expect.element(amount).toHaveFocus()
      await userEvent.keyboard('0.25')
      await userEvent.keyboard('{Tab}')
      await expect.element(max).toHaveFocus()
      await userEvent.keyboard('{Tab}')
      await expect.element(receiverField).toHaveFocus()
      await userEvent.keyboard(receiver)
      await userEvent.keyboard('{Tab}')
      await expect.element(preview).toHaveFocus()
      await userEvent.keyboard('{Shift>}{Tab}{/Shift}')
      await userEvent.keyboard('{Enter}')
      await expect.element(page.getByRole('heading', { name: 'Review Send' })).toBeVisible()
      expect(store.getState().send).toMatchObject({
        token: { kind: 'native', symbol: 'ETH' },
        sendTokenAmount: '0.25',
        receiverAddress: receiver,
      })
    })

    test('Escape closes the modal', async () => {
      serveBalances()
      await renderSend()
      // Once the balances are in: the token list is rendered anew when they arrive, and
      // a key pressed before may land on the page's body (seen failing on CI).
      await expect.element(token.getByRole('option', { name: 'ETH (1.5)' })).toBeInTheDocument()
      await expect.element(token).toHaveFocus()
      await userEvent.keyboard('{Escape}')
      await expect.poll(() => store.getState().open).toBe(false)
    })
  })
})

/** The UniversalResolver's functions viem's getEnsName and getEnsText call, and the resolver's `text`. */
const universalResolverAbi = parseAbi([
  'function reverseWithGateways(bytes lookupAddress, uint256 coinType, string[] gateways) view returns (string, address, address)',
  'function resolveWithGateways(bytes name, bytes data, string[] gateways) view returns (bytes, address)',
  'function text(bytes32 node, string key) view returns (string)',
])
const resolver = '0x231b0Ee14048e9dCcD1d247744d114a4EB5E8E63'
const avatar = `data:image/svg+xml;base64,${btoa('<svg xmlns="http://www.w3.org/2000/svg"/>')}`

/**
 * The API for the sender, with Ethereum's UniversalResolver answering: `names`
 * gives each address's primary name, `avatars` each name's avatar record; an
 * address or a name it lacks has none. `reverse` replaces the reverse answer.
 */
function serveNames(
  options: {
    names?: Record<string, string>
    avatars?: Record<string, string>
    reverse?: (address: Address) => unknown
  } = {},
) {
  const { names = {}, avatars = {} } = options
  const lookups: Address[] = []
  const api = serveApi({
    'POST /v1/': rpcRoute({
      eth_chainId: () => '0x1',
      eth_getBalance: () => numberToHex(parseEther('1.5')),
      eth_call: async (params) => {
        const [{ to, data }] = params as [{ to: Address; data: Hex }]
        if (to.toLowerCase() !== Evm.mainnet.contracts.ensUniversalResolver.address)
          return encodeAbiParameters([{ type: 'uint256' }], [12_500_000n])
        const call = decodeFunctionData({ abi: universalResolverAbi, data })
        if (call.functionName === 'reverseWithGateways') {
          const address = call.args[0] as Address
          lookups.push(address)
          if (options.reverse) return options.reverse(address)
          const name = names[address.toLowerCase()] ?? ''
          return encodeFunctionResult({
            abi: universalResolverAbi,
            functionName: 'reverseWithGateways',
            result: [name, name ? resolver : zeroAddress, resolver],
          })
        }
        if (call.functionName === 'resolveWithGateways') {
          const { args } = decodeFunctionData({ abi: universalResolverAbi, data: call.args[1] })
          const name = Object.keys(avatars).find((key) => key === nameOf(call.args[0]))
          const record = args[1] === 'avatar' && name ? (avatars[name] ?? '') : ''
          return encodeFunctionResult({
            abi: universalResolverAbi,
            functionName: 'resolveWithGateways',
            result: [
              encodeFunctionResult({
                abi: universalResolverAbi,
                functionName: 'text',
                result: record,
              }),
              resolver,
            ],
          })
        }
        return new NodeError('execution reverted')
      },
    }),
    'GET /tokens': () => ({ tokens: [usdc] }),
  })
  return { ...api, lookups }
}

/** A DNS-encoded name as text (`porthole-dev.eth`). */
function nameOf(dns: Hex): string {
  const bytes = Uint8Array.from(dns.slice(2).match(/../g) ?? [], (byte) =>
    Number.parseInt(byte, 16),
  )
  const labels: string[] = []
  for (let offset = 0; bytes[offset]; offset += (bytes[offset] ?? 0) + 1)
    labels.push(
      new TextDecoder().decode(bytes.slice(offset + 1, offset + 1 + (bytes[offset] ?? 0))),
    )
  return labels.join('.')
}

const review = page.getByRole('dialog', { name: 'Review Send' })
const toRow = () => review.getByRole('definition').nth(2)
const truncatedReceiver = `${receiver.slice(0, 4)}…${receiver.slice(-6)}`

/** From the form: ETH, 0.25, to `to`, then Preview. */
async function previewSendTo(to: string) {
  await renderSend()
  await expect.element(token.getByRole('option', { name: 'ETH (1.5)' })).toBeInTheDocument()
  await token.selectOptions('native')
  await amount.fill('0.25')
  await receiverField.fill(to)
  await preview.click()
  await expect.element(page.getByRole('heading', { name: 'Review Send' })).toBeVisible()
}

describe('the receiver’s name', () => {
  test('shows in the preview, with its avatar, beside the address', async () => {
    const api = serveNames({
      names: { [receiver.toLowerCase()]: 'porthole-dev.eth' },
      avatars: { 'porthole-dev.eth': avatar },
    })
    await previewSendTo(receiver)
    await expect.element(toRow()).toHaveTextContent(`porthole-dev.eth${truncatedReceiver}`)
    const image = review.getByRole('img', { name: 'Avatar of porthole-dev.eth' })
    await expect.element(image).toHaveAttribute('src', avatar)
    await expect.poll(() => (image.element() as HTMLImageElement).naturalWidth).toBeGreaterThan(0)
    expect(store.getState().send).toMatchObject({
      receiverAddress: receiver,
      receiverProfileName: 'porthole-dev.eth',
      receiverProfileImageUrl: avatar,
    })
    // Looked up once, for the address given (the form's lookup serves the preview).
    expect(api.lookups).toEqual([receiver.toLowerCase()])
  })

  test('the preview resolves it itself when it opens first', async () => {
    serveNames({ names: { [receiver.toLowerCase()]: 'porthole-dev.eth' } })
    await renderWidget({
      history: ['Account', 'WalletSend', 'WalletSendPreview'],
      send: {
        ...store.getState().send,
        token: { kind: 'native', symbol: 'ETH', decimals: 18 },
        sendTokenAmount: '0.25',
        receiverAddress: receiver.slice(2),
      },
    })
    await expect.element(toRow()).toHaveTextContent(`porthole-dev.eth${truncatedReceiver}`)
    // No avatar record: no image, and its place is not kept.
    expect(review.getByRole('img').elements()).toEqual([])
  })

  test.each<[string, Parameters<typeof serveNames>[0]]>([
    ['the address has no name', {}],
    ['the lookup fails', { reverse: () => new NodeError('upstream down') }],
    ['the name is not normalized', { names: { [receiver.toLowerCase()]: 'Porthole-Dev.eth' } }],
  ])('is left out when %s: the address shows, and the send goes on', async (_case, options) => {
    const api = serveNames(options)
    await previewSendTo(receiver)
    await expect.poll(() => api.lookups.length).toBeGreaterThan(0)
    await expect.element(toRow()).toHaveTextContent(truncatedReceiver)
    expect(toRow().element().textContent).toBe(truncatedReceiver)
    await expect.element(review.getByRole('button', { name: 'Send', exact: true })).toBeEnabled()
    expect(store.getState().send.receiverProfileName).toBeNull()
  })

  test('a failed lookup is the seed’s “Error resolving name”, kept out of sight', async () => {
    serveNames({ reverse: () => new NodeError('upstream down') })
    await previewSendTo(receiver)
    const key = receiverProfileQuery(receiver, 'eip155:1').queryKey
    await expect.poll(() => queryClient.getQueryState(key)?.status).toBe('error')
    const error = queryClient.getQueryState(key)?.error
    expect(error).toBeInstanceOf(ResolveNameError)
    expect((error as ResolveNameError).shortMessage).toBe('Error resolving name')
    expect(page.getByRole('alert').elements()).toEqual([])
  })

  test('a long name is cut, never the address', async () => {
    const long = `${'porthole-'.repeat(8)}dev.eth`
    serveNames({ names: { [receiver.toLowerCase()]: long } })
    await previewSendTo(receiver)
    const address = toRow().getByText(truncatedReceiver)
    await expect.element(toRow().getByText(long)).toBeVisible()
    const row = toRow().element().getBoundingClientRect()
    const shown = address.element().getBoundingClientRect()
    expect(shown.right).toBeLessThanOrEqual(row.right + 0.5)
    expect(address.element().scrollWidth).toBe((address.element() as HTMLElement).offsetWidth)
  })

  test('an avatar that is not a data: image is not shown (the CSP would block it)', async () => {
    serveNames({
      names: { [receiver.toLowerCase()]: 'porthole-dev.eth' },
      avatars: { 'porthole-dev.eth': 'https://example.com/avatar.png' },
    })
    await previewSendTo(receiver)
    await expect.element(toRow()).toHaveTextContent(`porthole-dev.eth${truncatedReceiver}`)
    expect(review.getByRole('img').elements()).toEqual([])
    expect(store.getState().send.receiverProfileImageUrl).toBeNull()
  })

  test('goes as soon as the address changes, and comes back with the address', async () => {
    const other = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
    serveNames({ names: { [receiver.toLowerCase()]: 'porthole-dev.eth' } })
    await renderSend()
    await receiverField.fill(receiver)
    await expect.poll(() => store.getState().send.receiverProfileName).toBe('porthole-dev.eth')
    await receiverField.fill(other)
    expect(store.getState().send).toMatchObject({
      receiverAddress: other,
      receiverProfileName: null,
    })
    await receiverField.fill(receiver)
    await expect.poll(() => store.getState().send.receiverProfileName).toBe('porthole-dev.eth')
  })
})
