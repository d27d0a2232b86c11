/**
 * WalletConnect without the internet: the local relay (relay.ts) on
 * its own with raw WebSockets, then the dapp side the widget uses
 * (`@walletconnect/universal-provider`) paired over it with a real WalletKit
 * wallet (walletKit.ts) that answers on a real anvil and a real local Solana
 * node (each on a free port, not the stack's 8545 and 8899).
 */
import { createPublicKey, verify } from 'node:crypto'
import * as Solana from '@porthole/chains/Solana'
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js'
import { UniversalProvider } from '@walletconnect/universal-provider'
import {
  createPublicClient,
  type Hex,
  http,
  numberToHex,
  parseEther,
  toHex,
  verifyMessage,
  verifyTypedData,
} from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { WebSocket } from 'ws'
import { type LocalAnvil, startAnvil } from './anvil.ts'
import { createRelay, type Relay } from './relay.ts'
import { devSolanaKeypair } from './solanaKeys.ts'
import { createSolanaNode, type SolanaNode } from './solanaNode.ts'
import { base58 } from './solanaRpcFormat.ts'
import {
  createMemoryStorage,
  createTestWalletKit,
  type TestWalletKit,
  type TestWalletKitOptions,
} from './walletKit.ts'

/** Anvil's fourth default dev account, which no test signs with. */
const RECIPIENT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'

const METHODS = [
  'personal_sign',
  'eth_sendTransaction',
  'eth_signTypedData_v4',
  'wallet_switchEthereumChain',
  'wallet_addEthereumChain',
]
const EVENTS = ['accountsChanged', 'chainChanged']

let anvil: LocalAnvil | undefined
let solanaNode: SolanaNode | undefined
let rpcUrl: string
let relay: Relay
const closers: (() => Promise<void>)[] = []

type Payload = {
  id: number | string
  method?: string
  params?: unknown
  result?: unknown
  error?: { code: number; message: string }
}

/** A bare relay client: JSON-RPC requests out, and every payload in, in order. */
async function connectRaw(url: string) {
  const socket = new WebSocket(url)
  await new Promise((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
  })
  closers.push(async () => {
    socket.close()
  })
  const received: Payload[] = []
  const raw: string[] = []
  const waiters: (() => void)[] = []
  socket.on('message', (data) => {
    raw.push(data.toString())
    received.push(JSON.parse(data.toString()))
    for (const wake of waiters.splice(0)) wake()
  })
  let nextId = 1

  /** Waits for the first payload matching, received so far or later. */
  const next = async (match: (payload: Payload) => boolean): Promise<Payload> => {
    for (;;) {
      const found = received.find(match)
      if (found) return found
      await new Promise<void>((resolve) => waiters.push(resolve))
    }
  }

  return {
    received,
    raw,
    next,
    send(text: string) {
      socket.send(text)
    },
    async request(method: string, params: unknown): Promise<Payload> {
      const id = nextId++
      socket.send(JSON.stringify({ id, jsonrpc: '2.0', method, params }))
      return next((payload) => payload.id === id && payload.method === undefined)
    },
    /** The next irn_subscription for a topic, acknowledged as the SDK does. */
    async subscription(topic: string) {
      const payload = await next(
        (payload) =>
          payload.method === 'irn_subscription' &&
          (payload.params as { data: { topic: string } }).data.topic === topic,
      )
      socket.send(JSON.stringify({ id: payload.id, jsonrpc: '2.0', result: true }))
      return payload.params as {
        id: string
        data: { topic: string; message: string; publishedAt: number; tag?: number }
      }
    },
  }
}

const randomTopic = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')

beforeAll(async () => {
  anvil = await startAnvil()
  rpcUrl = anvil.url
  relay = await createRelay({ port: 0 })
  solanaNode = await createSolanaNode({ port: 0 })
})

afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined)
  await relay?.close()
  await anvil?.stop()
  await solanaNode?.close()
})

describe('createRelay', () => {
  test('delivers a publish to the other subscribers as irn_subscription, not back to the publisher', async () => {
    const topic = randomTopic()
    const alice = await connectRaw(relay.url)
    const bob = await connectRaw(relay.url)

    const aliceSubscription = await alice.request('irn_subscribe', { topic })
    expect(aliceSubscription.result).toMatch(/^[0-9a-f]{64}$/)
    expect((await bob.request('irn_subscribe', { topic })).result).toMatch(/^[0-9a-f]{64}$/)

    const published = await bob.request('irn_publish', {
      topic,
      message: 'from bob',
      ttl: 300,
      tag: 1108,
      prompt: true,
    })
    expect(published.result).toBe(true)
    const delivered = await alice.subscription(topic)
    expect(delivered.id).toBe(aliceSubscription.result)
    expect(delivered.data).toMatchObject({ topic, message: 'from bob', tag: 1108 })
    expect(delivered.data.publishedAt).toBeGreaterThan(Date.now() - 60_000)

    await alice.request('irn_publish', { topic, message: 'from alice', ttl: 300, tag: 1109 })
    // Bob's first delivery on the topic is Alice's message: his own never came back.
    expect((await bob.subscription(topic)).data.message).toBe('from alice')
  })

  test('keeps a message for a client that subscribes or fetches after it was published', async () => {
    const topic = randomTopic()
    const publisher = await connectRaw(relay.url)
    await publisher.request('irn_publish', { topic, message: 'early', ttl: 300, tag: 1100 })

    const subscriber = await connectRaw(relay.url)
    await subscriber.request('irn_batchSubscribe', { topics: [topic] })
    expect((await subscriber.subscription(topic)).data).toMatchObject({
      topic,
      message: 'early',
      tag: 1100,
    })

    const fetcher = await connectRaw(relay.url)
    const fetched = await fetcher.request('irn_batchFetchMessages', { topics: [topic] })
    expect(fetched.result).toEqual({
      messages: [expect.objectContaining({ topic, message: 'early', tag: 1100 })],
      hasMore: false,
    })
  })

  test('answers with the request id as sent, and -32601 for an unknown method', async () => {
    const client = await connectRaw(relay.url)
    // The SDK's ids are beyond 2^53: they must come back digit for digit.
    client.send('{"id":1736000000000000001,"jsonrpc":"2.0","method":"irn_foo","params":{}}')
    await client.next((payload) => payload.error !== undefined)
    expect(client.raw.at(-1)).toContain('"id":1736000000000000001')
    expect(client.received.at(-1)?.error).toEqual({
      code: -32601,
      message: 'Method not found: irn_foo',
    })
  })
})

describe('createTestWalletKit', () => {
  let wallet: TestWalletKit

  type Dapp = Awaited<ReturnType<typeof UniversalProvider.init>>

  async function createDapp(): Promise<Dapp> {
    const provider = await UniversalProvider.init({
      projectId: 'porthole-test',
      relayUrl: relay.url,
      metadata: {
        name: 'Porthole test dapp',
        description: 'The dapp side of the WalletConnect tests',
        url: 'http://127.0.0.1',
        icons: [],
      },
      storage: createMemoryStorage(),
      // One core per dapp: the SDK shares a core per storage prefix in a process.
      customStoragePrefix: `porthole-test-dapp-${crypto.randomUUID()}`,
      telemetryEnabled: false,
      disableProviderPing: true,
    })
    closers.push(async () => {
      provider.client.core.heartbeat.stop()
      await provider.client.core.relayer.transportClose()
    })
    return provider
  }

  const eip155Namespace = {
    eip155: {
      chains: ['eip155:31337'],
      methods: METHODS,
      events: EVENTS,
      rpcMap: { 31337: rpcUrl },
    },
  }

  /** Connects a dapp to `withWallet` as the widget would: URI out, the wallet pairs with it. */
  async function connect(
    provider: Dapp,
    withWallet: TestWalletKit,
    optionalNamespaces: NonNullable<
      Parameters<Dapp['connect']>[0]['optionalNamespaces']
    > = eip155Namespace,
  ) {
    const uri = new Promise<string>((resolve) => provider.once('display_uri', resolve))
    const session = provider.connect({ optionalNamespaces })
    // A connect that fails before showing a URI fails the test now, not at its timeout.
    const failed = session.then(() => Promise.reject(new Error('connected without a URI')))
    await withWallet.pair(await Promise.race([uri, failed]))
    return session
  }

  async function createWallet(namespaces?: TestWalletKitOptions['namespaces']) {
    const created = await createTestWalletKit({
      relayUrl: relay.url,
      rpcUrl,
      solanaRpcUrl: solanaNode?.url,
      namespaces,
    })
    closers.push(() => created.close())
    return created
  }

  beforeAll(async () => {
    wallet = await createWallet()
  })

  afterEach(() => {
    wallet.setBehaviour('approve')
    expect(wallet.errors).toEqual([])
  })

  describe('with an approved session', () => {
    let dapp: Dapp

    beforeAll(async () => {
      dapp = await createDapp()
      await connect(dapp, wallet)
    })

    test('the session holds the wallet account on the requested chain', async () => {
      const session = dapp.session
      expect(session?.namespaces.eip155?.accounts).toEqual([`eip155:31337:${wallet.address}`])
      expect(session?.peer.metadata.name).toBe('Porthole Test Wallet')
      expect(await dapp.request({ method: 'eth_accounts' })).toEqual([wallet.address])
      expect(wallet.sessions().map(({ topic }) => topic)).toEqual([session?.topic])
    })

    test('personal_sign returns a signature of the message by the wallet account', async () => {
      const message = 'Sign in to Porthole'
      const signature = await dapp.request<Hex>({
        method: 'personal_sign',
        params: [toHex(message), wallet.address],
      })
      expect(await verifyMessage({ address: wallet.address, message, signature })).toBe(true)
      expect(wallet.requests.at(-1)).toMatchObject({
        method: 'personal_sign',
        chainId: 'eip155:31337',
      })
    })

    test('eth_signTypedData_v4 returns a signature of the typed data', async () => {
      const typedData = {
        domain: { name: 'Porthole', version: '1', chainId: 31337 },
        types: { Greeting: [{ name: 'text', type: 'string' }] },
        primaryType: 'Greeting',
        message: { text: 'hello' },
      } as const
      const signature = await dapp.request<Hex>({
        method: 'eth_signTypedData_v4',
        params: [wallet.address, JSON.stringify(typedData)],
      })
      expect(await verifyTypedData({ address: wallet.address, ...typedData, signature })).toBe(true)
    })

    test('eth_sendTransaction sends 1 ether on anvil', async () => {
      const client = createPublicClient({ transport: http(rpcUrl) })
      const before = await client.getBalance({ address: RECIPIENT })
      const hash = await dapp.request<Hex>({
        method: 'eth_sendTransaction',
        params: [{ from: wallet.address, to: RECIPIENT, value: numberToHex(parseEther('1')) }],
      })
      const receipt = await client.waitForTransactionReceipt({ hash })
      expect(receipt.status).toBe('success')
      expect(await client.getBalance({ address: RECIPIENT })).toBe(before + parseEther('1'))
    })

    test('wallet_switchEthereumChain to an unapproved chain: the wallet adds it and emits chainChanged', async () => {
      const changed = new Promise<unknown>((resolve) => dapp.once('chainChanged', resolve))
      await dapp.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x1' }] })
      expect(Number(await changed)).toBe(1)
      expect(dapp.session?.namespaces.eip155?.chains).toContain('eip155:1')
      expect(await dapp.request({ method: 'eth_chainId' })).toBe(1)
      await dapp.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x7a69' }] })
      expect(await dapp.request({ method: 'eth_chainId' })).toBe(31337)
    })

    test('with the reject behaviour, personal_sign fails with 4001', async () => {
      wallet.setBehaviour('reject')
      await expect(
        dapp.request({ method: 'personal_sign', params: [toHex('no'), wallet.address] }),
      ).rejects.toEqual({ code: 4001, message: 'User rejected the request.' })
    })
  })

  test('with the reject behaviour, the proposal is rejected with USER_REJECTED', async () => {
    wallet.setBehaviour('reject')
    const dapp = await createDapp()
    await expect(connect(dapp, wallet)).rejects.toMatchObject({
      code: 5000,
      message: 'User rejected.',
    })
    expect(dapp.session).toBeUndefined()
  })

  test('a disconnect in the wallet ends the session on both sides', async () => {
    const ownWallet = await createWallet()
    const dapp = await createDapp()
    await connect(dapp, ownWallet)
    expect(ownWallet.sessions()).toHaveLength(1)

    const disconnected = new Promise<unknown>((resolve) => dapp.once('disconnect', resolve))
    await ownWallet.disconnect()
    expect(await disconnected).toMatchObject({ code: 6000 })
    expect(ownWallet.sessions()).toEqual([])
    expect(dapp.session).toBeUndefined()
  })

  test('a disconnect in the dapp ends the session on both sides', async () => {
    const ownWallet = await createWallet()
    const dapp = await createDapp()
    await connect(dapp, ownWallet)
    expect(ownWallet.sessions()).toHaveLength(1)

    await dapp.disconnect()
    expect(dapp.session).toBeUndefined()
    await expect.poll(() => ownWallet.sessions()).toEqual([])
  })

  describe('with the solana namespace', () => {
    const local = Solana.localnet.caipNetworkId

    /** The optional namespaces the widget proposes: EIP-155 and the project's Solana networks. */
    const bothNamespaces = {
      eip155: { chains: ['eip155:31337'], methods: METHODS, events: EVENTS },
      solana: {
        chains: [local],
        methods: ['solana_signMessage', 'solana_signTransaction', 'solana_signAndSendTransaction'],
        events: [],
      },
    }

    /** ed25519 verification with Node's own crypto (SPKI DER of the raw 32-byte key). */
    const verifies = (signature: Uint8Array, message: Uint8Array, address: string) =>
      verify(
        null,
        message,
        createPublicKey({
          key: Buffer.concat([
            Buffer.from('302a300506032b6570032100', 'hex'),
            new PublicKey(address).toBuffer(),
          ]),
          format: 'der',
          type: 'spki',
        }),
        signature,
      )

    /** A transfer of `lamports` from the wallet's Solana account, with a fresh blockhash of the node. */
    async function transfer(from: string, to: PublicKey, lamports: number) {
      const connection = new Connection(solanaNode?.url as string, 'confirmed')
      const { blockhash } = await connection.getLatestBlockhash()
      const message = new TransactionMessage({
        payerKey: new PublicKey(from),
        recentBlockhash: blockhash,
        instructions: [
          SystemProgram.transfer({ fromPubkey: new PublicKey(from), toPubkey: to, lamports }),
        ],
      }).compileToV0Message()
      return { connection, transaction: new VersionedTransaction(message) }
    }

    const base64Of = (transaction: VersionedTransaction) =>
      Buffer.from(transaction.serialize()).toString('base64')

    let solanaWallet: TestWalletKit
    let solanaDapp: Dapp

    beforeAll(async () => {
      solanaWallet = await createWallet()
      solanaDapp = await createDapp()
      await connect(solanaDapp, solanaWallet, bothNamespaces)
    })

    afterEach(() => {
      solanaWallet.setBehaviour('approve')
      expect(solanaWallet.errors).toEqual([])
    })

    test('the session holds the dev Solana account on the proposed Solana network, beside EIP-155', () => {
      expect(solanaWallet.proposals.at(-1)?.optionalNamespaces.solana?.chains).toEqual([local])
      expect(solanaWallet.solanaAddress).toBe(devSolanaKeypair(0).publicKey.toBase58())
      expect(solanaDapp.session?.namespaces.solana?.accounts).toEqual([
        `${local}:${solanaWallet.solanaAddress}`,
      ])
      expect(solanaDapp.session?.namespaces.eip155?.accounts).toEqual([
        `eip155:31337:${solanaWallet.address}`,
      ])
    })

    test('solana_signMessage returns an ed25519 signature of the message by the dev key', async () => {
      const message = new TextEncoder().encode(`Sign in to Porthole ${Date.now()}`)
      const { signature } = await solanaDapp.request<{ signature: string }>(
        {
          method: 'solana_signMessage',
          params: { message: base58.encode(message), pubkey: solanaWallet.solanaAddress },
        },
        local,
      )
      expect(verifies(base58.decode(signature), message, solanaWallet.solanaAddress)).toBe(true)
      expect(verifies(base58.decode(signature), message.slice(1), solanaWallet.solanaAddress)).toBe(
        false,
      )
      expect(solanaWallet.requests.at(-1)).toMatchObject({
        method: 'solana_signMessage',
        chainId: local,
      })
    })

    test('solana_signMessage for another account is refused with 4100', async () => {
      await expect(
        solanaDapp.request(
          {
            method: 'solana_signMessage',
            params: {
              message: base58.encode(new Uint8Array([1])),
              pubkey: PublicKey.default.toBase58(),
            },
          },
          local,
        ),
      ).rejects.toMatchObject({ code: 4100 })
    })

    test('solana_signTransaction returns the signed transaction and its signature', async () => {
      const { transaction } = await transfer(
        solanaWallet.solanaAddress,
        Keypair.generate().publicKey,
        1,
      )
      const result = await solanaDapp.request<{ signature: string; transaction: string }>(
        { method: 'solana_signTransaction', params: { transaction: base64Of(transaction) } },
        local,
      )
      const signed = VersionedTransaction.deserialize(Buffer.from(result.transaction, 'base64'))
      expect(base58.encode(signed.signatures[0] as Uint8Array)).toBe(result.signature)
      expect(
        verifies(
          base58.decode(result.signature),
          signed.message.serialize(),
          solanaWallet.solanaAddress,
        ),
      ).toBe(true)
    })

    test('solana_signAndSendTransaction sends 1 SOL on the local node', async () => {
      const receiver = Keypair.generate().publicKey
      const { connection, transaction } = await transfer(
        solanaWallet.solanaAddress,
        receiver,
        LAMPORTS_PER_SOL,
      )
      const { signature } = await solanaDapp.request<{ signature: string }>(
        {
          method: 'solana_signAndSendTransaction',
          params: {
            transaction: base64Of(transaction),
            sendOptions: { preflightCommitment: 'confirmed' },
          },
        },
        local,
      )
      const status = await connection.getSignatureStatus(signature)
      expect(status.value?.err).toBeNull()
      expect(await connection.getBalance(receiver)).toBe(LAMPORTS_PER_SOL)
    })

    test('with the reject behaviour, solana_signMessage fails with 4001', async () => {
      solanaWallet.setBehaviour('reject')
      await expect(
        solanaDapp.request(
          {
            method: 'solana_signMessage',
            params: {
              message: base58.encode(new Uint8Array([1])),
              pubkey: solanaWallet.solanaAddress,
            },
          },
          local,
        ),
      ).rejects.toEqual({ code: 4001, message: 'User rejected the request.' })
    })

    test('a Solana-only solanaWallet approves only the solana namespace of the proposal', async () => {
      const solanaOnly = await createWallet(['solana'])
      const other = await createDapp()
      await connect(other, solanaOnly, bothNamespaces)
      expect(Object.keys(other.session?.namespaces ?? {})).toEqual(['solana'])
    })

    test('an EVM-only solanaWallet still pairs with a proposal that offers solana', async () => {
      const evmOnly = await createWallet(['eip155'])
      const other = await createDapp()
      await connect(other, evmOnly, bothNamespaces)
      expect(Object.keys(other.session?.namespaces ?? {})).toEqual(['eip155'])
    })
  })
})
