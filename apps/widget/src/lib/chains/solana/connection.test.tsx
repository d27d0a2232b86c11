/**
 * A Solana wallet of the host page (Wallet Standard, through the loader's
 * bridge) in the widget: listed in Connect, connected with a click, the
 * connection reaching the host's state, and the host's Solana requests
 * (Porthole's own Standard wallet on its page) answered by the wallet.
 */
import { localnet, mainnet } from '@porthole/chains/Solana'
import { ErrorCode } from '@porthole/protocol/Errors'
import type { HostWallet } from '@porthole/protocol/Host'
import * as Siwx from '@porthole/protocol/Siwx'
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
  behaviour.lies = false
  requests.length = 0
  hostStates.length = 0
  host ??= await openHost()
  listWallets([standardWallet])
})

afterEach(async () => {
  const solana = await loadChain('solana')
  // A session stored by a sign-in would spare the next connection its SIWXSignMessage.
  await solana.signOut()
  await solana.disconnect()
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
    await expect.poll(() => lastState()?.open).toBe(false)
    expect(lastState()).toMatchObject({
      caipAddress: `${localnet.caipNetworkId}:${address}`,
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

  test("inv-20 solana_signMessage: a wallet's signature of other bytes never reaches the host (-32603)", async () => {
    await connectByClick()
    behaviour.lies = true
    await expect(
      host.request('solana_signMessage', {
        message: base58.encode(new TextEncoder().encode('Hello from the host')),
        pubkey: address,
      }),
    ).rejects.toMatchObject({ code: ErrorCode.internal })
  })

  test('inv-18 unknown keys in a Solana request (a chain, a send option the wallet never reads) are -32602, the wallet never asked', async () => {
    await connectByClick()
    const asked = requests.length
    const transaction = base64.encode(new Uint8Array([1, 2, 3]))
    for (const params of [
      { transaction, chain: 'solana:mainnet' },
      { transaction, sendOptions: { encoding: 'base58' } },
      { transaction, sendOptions: { preflightCommitment: 'confirmed', commitment: 'processed' } },
    ])
      await expect(host.request('solana_signAndSendTransaction', params)).rejects.toMatchObject({
        code: ErrorCode.invalidParams,
      })
    await expect(
      host.request('solana_signTransaction', { transaction, chain: 'solana:mainnet' }),
    ).rejects.toMatchObject({ code: ErrorCode.invalidParams })
    await expect(
      host.request('solana_signMessage', {
        message: base58.encode(new Uint8Array([1])),
        pubkey: address,
        display: 'utf8',
      }),
    ).rejects.toMatchObject({ code: ErrorCode.invalidParams })
    expect(requests).toHaveLength(asked)
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

describe('sign-in (SIWX) with a Solana account', () => {
  const nonce = 'n0nce0f16letters'
  /** The API's sign-in: a nonce, then a session for a CAIP-122 message the account signed (checked here). */
  const serveSignIn = () => {
    const sessions: string[] = []
    serveApi({
      'GET /appkit/v1/config': () => ({
        ...projectConfig,
        networks: [localnet.caipNetworkId, 'eip155:1'],
      }),
      'POST /siwx/nonce': () => ({
        nonce,
        expiresAt: new Date(Date.now() + 600_000).toISOString(),
      }),
      'POST /siwx/sessions': ({ body }) => {
        const { message, signature } = body as { message: string; signature: string }
        const fields = Siwx.parse(message)
        const valid = verifyMessage(
          base58.decode(signature),
          new TextEncoder().encode(message),
          keypair.publicKey.toBytes(),
        )
        if (!valid || fields.address !== address || fields.nonce !== nonce)
          return Response.json({ error: { code: 'bad_signature', message: 'No' } }, { status: 401 })
        sessions.push(message)
        return {
          address,
          chainId: fields.chainId,
          domain: fields.domain,
          uri: fields.uri,
          issuedAt: fields.issuedAt.toISOString(),
          expirationTime: null,
          expiresAt: new Date(Date.now() + 600_000).toISOString(),
          token: 'a'.repeat(43),
          message,
          signature,
        }
      },
    })
    return sessions
  }

  test('a connection asks to sign in; Sign in signs a CAIP-122 Solana message the session is made of', async () => {
    const sessions = serveSignIn()
    await connectByClick({ siwx: { required: true, statement: 'Sign in to the shop.' } })
    await expect.poll(() => store.getState().history.at(-1)).toBe('SIWXSignMessage')
    await page.getByRole('button', { name: 'Sign in' }).click()
    // The API's session first: polling the host's state alone would pass at once,
    // both undefined, and leave the sign-in running into the next test.
    await expect.poll(() => sessions.length).toBe(1)
    await expect.poll(() => lastState()?.session?.message).toBe(sessions[0])
    const fields = Siwx.parse(sessions[0] as string)
    expect(fields).toMatchObject({
      domain: '127.0.0.1:5170',
      address,
      chainId: localnet.caipNetworkId,
      statement: 'Sign in to the shop.',
    })
    expect(sessions[0]).toContain('wants you to sign in with your Solana account:')
    expect(store.getState().open).toBe(false)
  })

  test('a declined signature keeps the view and says so', async () => {
    serveSignIn()
    await connectByClick({ siwx: { required: false } })
    await expect.poll(() => store.getState().history.at(-1)).toBe('SIWXSignMessage')
    behaviour.declines = true
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.element(page.getByText('Signature declined')).toBeVisible()
    expect(store.getState().session).toBeNull()
  })
})
