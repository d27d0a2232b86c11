/**
 * The account views for a Solana connection (a Wallet Standard wallet of the
 * host page), on the real local Solana node: Account's address, SOL and SPL
 * balances, sends of SOL and of the dev token (the chain moves by exactly the
 * amounts), Sign message, and the network list.
 */
import { truncate } from '@porthole/chains/Address'
import { devnet, localnet } from '@porthole/chains/Solana'
import { base58 } from '@scure/base'
import { Keypair } from '@solana/web3.js'
import { beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { page, userEvent } from 'vitest/browser'
import { projectConfig, serveApi } from '../../test/api.js'
import { solanaRpc, solanaRpcRoute } from '../../test/solanaRpc.js'
import { verifyMessage } from '../../test/solanaWallet.js'
import { address, behaviour, keypair, openHost } from '../../test/standardHost.js'
import { renderWidget } from '../../test/view.js'
import { loadChain } from '../lib/chains/index.js'
import { store } from '../lib/state/store.js'

const ptt = {
  address: 'CaCcsu1dCe8yFmhR8bgwRU1McvfheUzgeY5GYXFBbXbR',
  name: 'Porthole Test Token',
  symbol: 'PTT',
  decimals: 6,
}

/** The project offers Solana Local, Solana Devnet and Ethereum; the API lists PTT on Solana Local. */
const serveSolana = () =>
  serveApi({
    'GET /appkit/v1/config': () => ({
      ...projectConfig,
      networks: [localnet.caipNetworkId, devnet.caipNetworkId, 'eip155:1'],
    }),
    'POST /v1/': solanaRpcRoute(),
    'GET /tokens': ({ url }) =>
      url.searchParams.get('chainId') === localnet.caipNetworkId
        ? {
            tokens: [
              ptt,
              { ...ptt, address: keypair.publicKey.toBase58(), symbol: 'NFT', decimals: 0 },
            ],
          }
        : { tokens: [] },
  })

const lamports = async (owner: string) =>
  BigInt(((await solanaRpc('getBalance', [owner])) as { value: number }).value)

const tokenAmount = async (owner: string) => {
  const { value } = (await solanaRpc('getTokenAccountsByOwner', [
    owner,
    { mint: ptt.address },
    { encoding: 'jsonParsed' },
  ])) as {
    value: { account: { data: { parsed: { info: { tokenAmount: { amount: string } } } } } }[]
  }
  return value.reduce(
    (sum, { account }) => sum + BigInt(account.data.parsed.info.tokenAmount.amount),
    0n,
  )
}

beforeAll(async () => {
  serveSolana()
  await openHost()
  await (await loadChain('solana')).connect('standard:Test Solana Wallet')
})

beforeEach(() => {
  serveSolana()
  behaviour.declines = false
})

const balance = page.getByTestId('account-balance')

describe('Account for a Solana account', () => {
  test('shows the address truncated, the SOL balance, the network and the SPL tokens (0 decimals dropped)', async () => {
    const sol = await lamports(address)
    await renderWidget({ history: ['Account'] })
    await expect.element(page.getByTestId('account-address')).toHaveTextContent(truncate(address))
    await expect.element(page.getByTestId('account-address')).toHaveAttribute('title', address)
    await expect.element(balance).toHaveTextContent(/ SOL$/)
    expect(Number.parseFloat(balance.element().textContent ?? '')).toBeCloseTo(Number(sol) / 1e9, 2)
    await expect.element(page.getByText('Connected with Test Solana Wallet')).toBeVisible()
    await expect.element(page.getByRole('button', { name: 'Network Solana Local' })).toBeVisible()
    const tokens = page.getByRole('list', { name: 'Tokens' })
    await expect.element(tokens).toHaveTextContent(/^PTT[\d,.]+$/)
  })
})

describe('WalletSend for a Solana account', () => {
  const amountField = page.getByRole('textbox', { name: 'Amount' })
  const receiverField = page.getByRole('textbox', { name: 'Receiver address' })
  const token = page.getByRole('combobox', { name: 'Token' })
  const error = page.getByRole('alert')

  async function fill(values: { token?: string; amount?: string; receiver?: string }) {
    await renderWidget({ history: ['Account', 'WalletSend'] })
    await expect.element(token.getByRole('option', { name: /^PTT/ })).toBeInTheDocument()
    if (values.token) await token.selectOptions(values.token)
    if (values.amount) await userEvent.fill(amountField, values.amount)
    if (values.receiver) await userEvent.fill(receiverField, values.receiver)
    await page.getByRole('button', { name: 'Preview send' }).click()
  }

  test("the seed's validation: amount and receiver required, a Solana address of 32 to 44 base58 characters", async () => {
    await fill({ amount: '1' })
    await expect.element(error).toHaveTextContent('An amount and receiver address are required')
    await expect.element(receiverField).toHaveAttribute('placeholder', 'Solana address')
    await userEvent.fill(receiverField, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    await page.getByRole('button', { name: 'Preview send' }).click()
    await expect
      .element(error)
      .toHaveTextContent('Enter a valid Solana address (32 to 44 base58 characters).')
  })

  test('sends SOL (no token chosen: SOL): the receiver gets exactly the amount', async () => {
    const receiver = Keypair.generate().publicKey.toBase58()
    await fill({ amount: '0.25', receiver })
    await expect.element(page.getByText('0.25 SOL')).toBeVisible()
    await page.getByRole('button', { name: 'Send', exact: true }).click()
    await expect.element(page.getByText('Transaction confirmed')).toBeVisible()
    expect(await lamports(receiver)).toBe(250_000_000n)
    expect(store.getState().history.at(-1)).toBe('Account')
  })

  test("sends PTT, creating the receiver's token account: it gets exactly the amount", async () => {
    const receiver = Keypair.generate().publicKey.toBase58()
    const before = await tokenAmount(address)
    await fill({ token: ptt.address, amount: '12.5', receiver })
    await page.getByRole('button', { name: 'Send', exact: true }).click()
    await expect.element(page.getByText('Transaction confirmed')).toBeVisible()
    expect(await tokenAmount(receiver)).toBe(12_500_000n)
    expect(before - (await tokenAmount(address))).toBe(12_500_000n)
  })

  test('a decline in the wallet shows the decline copy and sends nothing', async () => {
    const receiver = Keypair.generate().publicKey.toBase58()
    behaviour.declines = true
    await fill({ amount: '0.1', receiver })
    await page.getByRole('button', { name: 'Send', exact: true }).click()
    await expect
      .element(page.getByText('You declined the transaction in your wallet.'))
      .toBeVisible()
    expect(await lamports(receiver)).toBe(0n)
  })
})

describe('SignMessage for a Solana account', () => {
  test('shows a base58 signature of the message by the account', async () => {
    await renderWidget({ history: ['Account', 'SignMessage'] })
    await userEvent.fill(page.getByRole('textbox', { name: 'Message' }), 'Hello Solana')
    await page.getByRole('button', { name: 'Sign', exact: true }).click()
    const signature = page.getByRole('textbox', { name: 'Signature' })
    await expect.element(signature).toBeVisible()
    const value = (signature.element() as HTMLTextAreaElement).value
    expect(
      verifyMessage(
        base58.decode(value),
        new TextEncoder().encode('Hello Solana'),
        keypair.publicKey.toBytes(),
      ),
    ).toBe(true)
  })

  test('a decline shows the decline copy', async () => {
    behaviour.declines = true
    await renderWidget({ history: ['Account', 'SignMessage'] })
    await userEvent.fill(page.getByRole('textbox', { name: 'Message' }), 'No')
    await page.getByRole('button', { name: 'Sign', exact: true }).click()
    await expect.element(page.getByText('You declined the signature in your wallet.')).toBeVisible()
  })
})

describe('SwitchNetwork for a Solana account', () => {
  test("lists the project's networks and switches among the Solana ones", async () => {
    await renderWidget({ history: ['Account', 'SwitchNetwork'] })
    await page.getByRole('button', { name: /Solana Devnet/ }).click()
    await expect.poll(() => store.getState().connection.chainId).toBe(devnet.id)
    await expect.poll(() => store.getState().history.at(-1)).toBe('Account')
    await (await loadChain()).switchNetwork(localnet.caipNetworkId)
    expect(store.getState().connection.chainId).toBe(localnet.id)
  })
})

describe('SwitchActiveChain from a Solana account (last: it disconnects)', () => {
  test('picking Ethereum offers to disconnect; confirming ends the Solana connection and Connect asks for an EVM wallet', async () => {
    await renderWidget({ history: ['Account', 'SwitchNetwork'] })
    await page.getByRole('button', { name: /Ethereum/ }).click()
    await expect.poll(() => store.getState().history.at(-1)).toBe('SwitchActiveChain')
    await expect
      .element(
        page.getByText(
          'Ethereum is a EVM network, and the connected wallet works with Solana networks only. Disconnect, then connect a wallet that supports Ethereum.',
        ),
      )
      .toBeVisible()
    await page.getByRole('button', { name: 'Disconnect and choose a wallet' }).click()
    // The status turns disconnected inside disconnect(); the view sets the namespace and goes to Connect after it.
    await expect.poll(() => store.getState().requestedNamespace).toBe('eip155')
    expect(store.getState()).toMatchObject({
      history: ['Connect'],
      connection: { status: 'disconnected' },
    })
  })
})
