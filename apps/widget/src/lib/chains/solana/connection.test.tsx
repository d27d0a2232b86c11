/**
 * A Solana wallet of the host page (Wallet Standard, through the loader's
 * bridge) in the widget: listed in Connect, connected with a click, the
 * connection reaching the host's state, and the host's Solana requests
 * (Porthole's own Standard wallet on its page) answered by the wallet.
 */
import { localnet, mainnet } from '@porthole/chains/Solana'
import { ErrorCode } from '@porthole/protocol/Errors'
import type { HostWallet } from '@porthole/protocol/Host'
import { base58, base64 } from '@scure/base'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { page } from 'vitest/browser'
import { projectConfig, serveApi } from '../../../../test/api.js'
import { verifyMessage } from '../../../../test/solanaWallet.js'
import {
  address,
  behaviour,
  hostStates,
  keypair,
  listWallets,
  openHost,
  requests,
  standardWallet,
} from '../../../../test/standardHost.js'
import { renderWidget } from '../../../../test/view.js'
import { store } from '../../state/store.js'
import { loadChain } from '../index.js'

/** The project offers Solana Local first, then Ethereum. */
const serveProject = () =>
  serveApi({
    'GET /appkit/v1/config': () => ({
      ...projectConfig,
      networks: [localnet.caipNetworkId, 'eip155:1'],
    }),
    'GET /getWallets': () => ({ count: 0, data: [] }),
  })

let host: Awaited<ReturnType<typeof openHost>>

beforeEach(async () => {
  serveProject()
  behaviour.declines = false
  requests.length = 0
  hostStates.length = 0
  host ??= await openHost()
  listWallets([standardWallet])
})

afterEach(async () => {
  await (await loadChain('solana')).disconnect()
})

const list = page.getByRole('list', { name: 'Connect a wallet' })
const lastState = () => hostStates.at(-1)

/** Connects the wallet as a click on it in Connect does; the modal then closes. */
async function connectByClick(patch = {}) {
  await renderWidget(patch)
  await list.getByRole('button', { name: /Test Solana Wallet/ }).click()
  await expect.poll(() => store.getState().connection.status).toBe('connected')
}

describe('Connect with a Wallet Standard wallet', () => {
  test('lists it as Installed, connects it with a click, and the host sees the Solana account', async () => {
    await renderWidget()
    const row = list.getByRole('button', { name: /Test Solana Wallet/ })
    await expect.element(row).toHaveTextContent('Installed')
    await row.click()
    await expect.poll(() => lastState()?.caipAddress).toBe(`${localnet.caipNetworkId}:${address}`)
    expect(lastState()).toMatchObject({
      status: 'connected',
      address,
      chainId: localnet.caipNetworkId,
      connector: 'Test Solana Wallet',
      open: false,
    })
    expect(requests[0]).toEqual({ id: 'standard:0', feature: 'standard:connect', input: {} })
    expect(store.getState().recent[0]).toBe('standard:Test Solana Wallet')
  })

  test('a wallet with an EIP-6963 and a Standard listing is one entry, which connects Solana for a Solana project', async () => {
    const twin: HostWallet = {
      uuid: 'uuid-twin',
      name: 'Test Solana Wallet',
      icon: '',
      rdns: 'com.example.twin',
    }
    await renderWidget({ hostWallets: [twin] })
    const rows = list.getByRole('button', { name: /Test Solana Wallet/ })
    await expect.element(rows).toHaveTextContent('Installed')
    expect(rows.elements()).toHaveLength(1)
    await rows.click()
    await expect.poll(() => store.getState().connection.status).toBe('connected')
    expect(store.getState().connection).toMatchObject({ namespace: 'solana', address })
    expect(requests.map(({ feature }) => feature)).toEqual(['standard:connect'])
  })

  test('lists it once as Recent after a connection', async () => {
    await renderWidget({ recent: ['standard:Test Solana Wallet'] })
    const rows = list.getByRole('button', { name: /Test Solana Wallet/ })
    await expect.element(rows).toHaveTextContent('Recent')
    expect(rows.elements()).toHaveLength(1)
  })

  test('a decline shows the wallet copy and Try again', async () => {
    behaviour.declines = true
    await renderWidget()
    await list.getByRole('button', { name: /Test Solana Wallet/ }).click()
    await expect.element(page.getByText('Connection declined')).toBeVisible()
    expect(store.getState().connection.status).toBe('disconnected')
  })

  test('a wallet on no Solana network the project offers gets UnsupportedChain', async () => {
    listWallets([{ ...standardWallet, chains: ['solana:mainnet'] }])
    await renderWidget()
    await list.getByRole('button', { name: /Test Solana Wallet/ }).click()
    await expect.poll(() => store.getState().history.at(-1)).toBe('UnsupportedChain')
    await expect.poll(() => lastState()?.chainId).toBe(mainnet.caipNetworkId)
  })

  test('disconnect ends it in the wallet and for the host', async () => {
    await connectByClick()
    await (await loadChain()).disconnect()
    await expect.poll(() => lastState()?.status).toBe('disconnected')
    expect(requests.at(-1)?.feature).toBe('standard:disconnect')
  })

  test('the wallet taking back its authorisation disconnects', async () => {
    await connectByClick()
    listWallets([{ ...standardWallet, accounts: [] }])
    await expect.poll(() => store.getState().connection.status).toBe('disconnected')
  })
})

describe("the host's Solana requests", () => {
  test('standard:connect opens Connect and resolves with the account the user connects', async () => {
    await renderWidget({ open: false })
    const answer = host.request('standard:connect')
    await expect.poll(() => store.getState().open).toBe(true)
    await list.getByRole('button', { name: /Test Solana Wallet/ }).click()
    expect(await answer).toEqual({ accounts: [address] })
    // Connected: asked again, it answers at once.
    expect(await host.request('standard:connect')).toEqual({ accounts: [address] })
  })

  test('standard:connect rejects with 4001 when the modal closes without a connection', async () => {
    await renderWidget({ open: false })
    const answer = host.request('standard:connect')?.catch((error: unknown) => error)
    await expect.poll(() => store.getState().open).toBe(true)
    await page.getByRole('button', { name: 'Close' }).click()
    expect(await answer).toMatchObject({ code: ErrorCode.userRejected })
  })

  test('solana_signMessage: a signature of the bytes by the account, in base58', async () => {
    await connectByClick()
    const message = new TextEncoder().encode('Hello from the host')
    const { signature } = (await host.request('solana_signMessage', {
      message: base58.encode(message),
      pubkey: address,
    })) as { signature: string }
    expect(verifyMessage(base58.decode(signature), message, keypair.publicKey.toBytes())).toBe(true)
  })

  test('solana_signMessage for another account is refused (4100), malformed params are -32602', async () => {
    await connectByClick()
    const other = base58.encode(new Uint8Array(32).fill(7))
    await expect(
      host.request('solana_signMessage', {
        message: base58.encode(new Uint8Array([1])),
        pubkey: other,
      }),
    ).rejects.toMatchObject({ code: ErrorCode.unauthorized })
    await expect(
      host.request('solana_signMessage', { message: '0OIl', pubkey: address }),
    ).rejects.toMatchObject({ code: ErrorCode.invalidParams })
    await expect(
      host.request('solana_signTransaction', { transaction: 'not base64!' }),
    ).rejects.toMatchObject({ code: ErrorCode.invalidParams })
  })

  test('a decline in the wallet reaches the host as 4001', async () => {
    await connectByClick()
    behaviour.declines = true
    await expect(
      host.request('solana_signMessage', {
        message: base58.encode(new Uint8Array([1, 2, 3])),
        pubkey: address,
      }),
    ).rejects.toMatchObject({ code: ErrorCode.userRejected, message: 'User rejected the request.' })
  })

  test('with no Solana wallet connected, a signing request is refused (4100)', async () => {
    await renderWidget({ open: false })
    await expect(
      host.request('solana_signTransaction', { transaction: base64.encode(new Uint8Array([0])) }),
    ).rejects.toMatchObject({ code: ErrorCode.unauthorized })
  })

  test('another method is unsupported (4200)', async () => {
    await connectByClick()
    await expect(host.request('solana_getBalance', {})).rejects.toMatchObject({
      code: ErrorCode.unsupportedMethod,
    })
  })
})
