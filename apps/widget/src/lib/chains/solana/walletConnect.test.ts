/**
 * The Solana side of the WalletConnect session over real parts: the dapp's
 * universal provider (as the widget's connector starts it) paired through the
 * dev stack's relay with the WalletKit test wallet, which signs with the dev
 * Solana key. A wallet's answers are untrusted: the last test plays a wallet
 * that answers garbage.
 */
import { createPublicKey, verify } from 'node:crypto'
import * as Solana from '@porthole/chains/Solana'
import { createRelay, type Relay } from '@porthole/dev-stack/relay'
import { base58 } from '@porthole/dev-stack/solanaRpcFormat'
import {
  createMemoryStorage,
  createTestWalletKit,
  type TestWalletKit,
} from '@porthole/dev-stack/walletKit'
import { ErrorCode } from '@porthole/protocol/Errors'
import { UniversalProvider } from '@walletconnect/universal-provider'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  registerWalletConnectProvider,
  solanaNamespace,
  type WalletConnectProvider,
} from '../walletConnect/provider.js'
import {
  disconnectSolana,
  onSolanaSessionChange,
  requestSolana,
  solanaSession,
} from './walletConnect.js'

const local = Solana.localnet.caipNetworkId
const devnet = Solana.devnet.caipNetworkId
const closers: (() => Promise<void>)[] = []
let relay: Relay
let wallet: TestWalletKit
let provider: WalletConnectProvider

/** ed25519 verification (SPKI DER of the raw 32-byte key). */
const verifies = (signature: string, message: Uint8Array, address: string) =>
  verify(
    null,
    message,
    createPublicKey({
      key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), base58.decode(address)]),
      format: 'der',
      type: 'spki',
    }),
    base58.decode(signature),
  )

beforeAll(async () => {
  relay = await createRelay({ port: 0 })
  wallet = await createTestWalletKit({ relayUrl: relay.url })
  closers.push(() => wallet.close())
  provider = await UniversalProvider.init({
    projectId: 'porthole-test',
    relayUrl: relay.url,
    metadata: { name: 'Porthole', description: 'test', url: 'http://127.0.0.1', icons: [] },
    storage: createMemoryStorage(),
    customStoragePrefix: `porthole-widget-${crypto.randomUUID()}`,
    telemetryEnabled: false,
    disableProviderPing: true,
  })
  closers.push(async () => {
    provider.client.core.heartbeat.stop()
    await provider.client.core.relayer.transportClose()
  })
})

afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined)
  await relay?.close()
})

test('solanaNamespace proposes the project Solana networks only, and nothing when it has none', () => {
  expect(solanaNamespace(['eip155:1', local, Solana.mainnet.caipNetworkId])).toEqual({
    solana: {
      chains: [local, Solana.mainnet.caipNetworkId],
      methods: ['solana_signMessage', 'solana_signTransaction', 'solana_signAndSendTransaction'],
      events: [],
    },
  })
  expect(solanaNamespace(['eip155:1', 'eip155:31337'])).toEqual({})
})

describe('a session paired with the solana namespace', () => {
  let changes = 0

  beforeAll(async () => {
    registerWalletConnectProvider(provider)
    onSolanaSessionChange(() => changes++)
    expect(solanaSession()).toBeUndefined()
    const uri = new Promise<string>((resolve) => provider.once('display_uri', resolve))
    const session = provider.connect({
      optionalNamespaces: {
        eip155: { chains: ['eip155:31337'], methods: ['personal_sign'], events: [] },
        ...solanaNamespace(['eip155:31337', local, devnet]),
      },
    })
    await wallet.pair(await uri)
    await session
  })

  test('solanaSession() lists the wallet Solana account on the proposed network, and listeners heard of it', () => {
    expect(solanaSession()).toEqual({
      accounts: [`${local}:${wallet.solanaAddress}`, `${devnet}:${wallet.solanaAddress}`],
      chains: [local, devnet],
    })
    expect(changes).toBeGreaterThan(0)
  })

  test('solana_signMessage returns a signature that verifies for the dev Solana key', async () => {
    const message = new TextEncoder().encode('Porthole over WalletConnect')
    const { signature } = await requestSolana(
      'solana_signMessage',
      { message: base58.encode(message), pubkey: wallet.solanaAddress },
      local,
    )
    expect(verifies(signature, message, wallet.solanaAddress)).toBe(true)
  })

  test('a network the session did not approve is 4902, and the wallet is not asked', async () => {
    const asked = wallet.requests.length
    await expect(
      requestSolana(
        'solana_signMessage',
        { message: '2', pubkey: wallet.solanaAddress },
        Solana.testnet.caipNetworkId,
      ),
    ).rejects.toMatchObject({ code: ErrorCode.unknownChain })
    expect(wallet.requests).toHaveLength(asked)
  })

  test('malformed params are -32602, and the wallet is not asked', async () => {
    const asked = wallet.requests.length
    await expect(
      requestSolana('solana_signMessage', { message: '0OIl', pubkey: wallet.solanaAddress }, local),
    ).rejects.toMatchObject({ code: ErrorCode.invalidParams })
    await expect(
      requestSolana('solana_signTransaction', { transaction: 'not base64!' }, local),
    ).rejects.toMatchObject({ code: ErrorCode.invalidParams })
    expect(wallet.requests).toHaveLength(asked)
  })

  test("the wallet's refusal comes back as 4001", async () => {
    wallet.setBehaviour('reject')
    try {
      await expect(
        requestSolana('solana_signMessage', { message: '2', pubkey: wallet.solanaAddress }, local),
      ).rejects.toMatchObject({ code: ErrorCode.userRejected })
    } finally {
      wallet.setBehaviour('approve')
    }
  })

  test('a Solana network change is relayed with its base58 reference and Solana accounts (what the EVM connector drops)', async () => {
    const events: [string, unknown][] = []
    const chainChanged = (data: unknown) => events.push(['chainChanged', data])
    const accountsChanged = (data: unknown) => events.push(['accountsChanged', data])
    provider.on('chainChanged', chainChanged)
    provider.on('accountsChanged', accountsChanged)
    try {
      provider.setDefaultChain(devnet)
      await expect.poll(() => events).toHaveLength(2)
      expect(events).toEqual([
        ['chainChanged', Solana.devnet.id],
        ['accountsChanged', [wallet.solanaAddress]],
      ])
    } finally {
      provider.removeListener('chainChanged', chainChanged)
      provider.removeListener('accountsChanged', accountsChanged)
      provider.setDefaultChain(local)
    }
  })

  test('disconnectSolana ends the session on both sides and tells the listeners', async () => {
    const before = changes
    await disconnectSolana()
    expect(solanaSession()).toBeUndefined()
    expect(changes).toBeGreaterThan(before)
    await expect.poll(() => wallet.sessions()).toEqual([])
    await expect(
      requestSolana('solana_signMessage', { message: '2', pubkey: wallet.solanaAddress }, local),
    ).rejects.toMatchObject({ code: ErrorCode.unauthorized })
  })
})

describe('a hostile wallet', () => {
  const address = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'
  const signature = base58.encode(new Uint8Array(64).fill(7))
  let answer: unknown

  beforeAll(() => {
    // The wallet's side of the session, as the relay would deliver it: whatever it likes.
    registerWalletConnectProvider({
      session: {
        namespaces: {
          solana: {
            accounts: [`${local}:${address}`, 'solana:short:x', `${local}:<img src=x>`],
          },
        },
      },
      on() {},
      request: async () => answer,
    } as unknown as WalletConnectProvider)
  })

  test('its malformed accounts are not in the session', () => {
    expect(solanaSession()).toEqual({ accounts: [`${local}:${address}`], chains: [local] })
  })

  test.each([
    ['solana_signMessage', null],
    ['solana_signMessage', {}],
    ['solana_signMessage', { signature: '<script>' }],
    ['solana_signMessage', { signature: 7 }],
    ['solana_signTransaction', {}],
    ['solana_signTransaction', { transaction: 'not base64!' }],
    ['solana_signTransaction', { transaction: 'AAAA'.repeat(500) }],
    ['solana_signAndSendTransaction', { transaction: 'AAAA' }],
  ] as const)(
    'its malformed answer to %s (%j) never reaches the adapter: -32603',
    async (method, result) => {
      answer = result
      const params =
        method === 'solana_signMessage'
          ? { message: '2', pubkey: address }
          : { transaction: 'AAAA' }
      await expect(requestSolana(method, params as never, local)).rejects.toMatchObject({
        code: ErrorCode.internal,
      })
    },
  )

  test('signTransaction may answer the signature, the transaction or both; only those fields pass', async () => {
    answer = { signature, extra: 'dropped' }
    expect(await requestSolana('solana_signTransaction', { transaction: 'AAAA' }, local)).toEqual({
      signature,
    })
    answer = { transaction: 'AQID' }
    expect(await requestSolana('solana_signTransaction', { transaction: 'AAAA' }, local)).toEqual({
      transaction: 'AQID',
    })
  })
})
