import { localChain } from '@porthole/chains/Evm'
import type { Session } from '@porthole/protocol/Host'
import * as Siwx from '@porthole/protocol/Siwx'
import { type Hex, verifyMessage } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { parseSiweMessage } from 'viem/siwe'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import { createConfig, http } from 'wagmi'
import { connect, getConnection } from 'wagmi/actions'
import { mock } from 'wagmi/connectors'
import { queryClient } from '../../data/queryClient.js'
import { storage } from '../../data/storage.js'
import { apiUrl, SiwxConfig } from '../../env.js'
import {
  type Connection,
  disconnected,
  initialState,
  store,
  type WidgetState,
} from '../../state/store.js'
import type { EvmConfig } from './config.js'
import {
  followSession,
  isSmartAccount,
  SiwxError,
  SiwxErrorMessage,
  SiwxMessage,
  signIn,
  signOut,
  storedSession,
} from './siwx.js'

// Anvil's first dev account: the mock wallet signs with it (through the RPC stub below).
const wallet = privateKeyToAccount(
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
)
const hostOrigin = 'http://127.0.0.1:5170'
const otherOrigin = 'http://127.0.0.1:5171'
const caipAddress = `eip155:${localChain.id}:${wallet.address}`
const nonce = 'q8Xv2LmN4pR7sT1uW3yZ5aBc'
const token = 'tok_0123456789abcdefghijklmnopqrstuvwxyzABC'
const contractCode = '0x6080604052348015600f57600080fd5b50'

// ---------------------------------------------------------------------------
// The API and the RPC, played by a `fetch` stub. It stays in place for the
// whole file, so a late call (analytics) never leaves for the network.

type Call = { method: string; url: URL; headers: Headers; body: unknown }

type Script = {
  /** `POST /siwx/nonce`: a status and body, or a network failure. */
  nonce: { status: number; body: unknown } | 'network-error'
  /** `POST /siwx/sessions`: the status; 201 answers the session, as the API does. */
  sessionStatus: number
  /** What `eth_getCode` answers for the wallet's address. */
  code: Hex
}

let script: Script
let calls: Call[] = []
let inFlight = 0

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

/** `POST /siwx/sessions` as the API answers it: it reads the message with the protocol's parser. */
function answerSession(body: unknown): Response {
  const request = Siwx.SiwxSessionRequest.parse(body)
  let fields: Siwx.SiwxMessage
  try {
    fields = Siwx.parse(request.message)
  } catch (error) {
    return json({ error: { code: 'invalid_message', message: String(error) } }, 400)
  }
  if (script.sessionStatus !== 201)
    return json(
      { error: { code: 'invalid_signature', message: 'The signature does not match' } },
      script.sessionStatus,
    )
  const session: Siwx.SiwxSession = {
    address: fields.address,
    chainId: fields.chainId,
    domain: fields.domain,
    uri: fields.uri,
    issuedAt: fields.issuedAt.toISOString(),
    expirationTime: fields.expirationTime?.toISOString() ?? null,
    expiresAt: (
      fields.expirationTime ?? new Date(fields.issuedAt.getTime() + 86_400_000)
    ).toISOString(),
    token,
    message: request.message,
    signature: request.signature,
  }
  return json(session, 201)
}

async function answerRpc(body: unknown): Promise<Response> {
  const { id, method, params } = body as { id: number; method: string; params: unknown[] }
  // The mock connector turns `personal_sign` into `eth_sign` (address, data) over the chain's RPC.
  if (method === 'eth_sign')
    return json({
      jsonrpc: '2.0',
      id,
      result: await wallet.signMessage({ message: { raw: params[1] as Hex } }),
    })
  if (method === 'eth_getCode') return json({ jsonrpc: '2.0', id, result: script.code })
  return json({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } })
}

async function play(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : String(input))
  const method = init.method ?? 'GET'
  const body: unknown = typeof init.body === 'string' ? JSON.parse(init.body) : undefined
  calls.push({ method, url, headers: new Headers(init.headers), body })
  if (url.origin === 'http://127.0.0.1:8545' || url.origin === 'http://127.0.0.1:1')
    return answerRpc(body)
  const path = url.href.startsWith(apiUrl) ? url.pathname : null
  if (method === 'POST' && path === '/siwx/nonce') {
    if (script.nonce === 'network-error') throw new TypeError('fetch failed')
    return json(script.nonce.body, script.nonce.status)
  }
  if (method === 'POST' && path === '/siwx/sessions') return answerSession(body)
  if (method === 'DELETE' && path === '/siwx/sessions') return new Response(null, { status: 204 })
  if (method === 'GET' && path === '/getAnalyticsConfig') return json({ isAnalyticsEnabled: false })
  return json({ error: { code: 'not_found', message: `${method} ${url.href}` } }, 404)
}

const callsTo = (method: string, path: string) =>
  calls.filter((call) => call.method === method && call.url.href.startsWith(`${apiUrl}${path}?`))

const signatureRequests = () =>
  calls.filter((call) => (call.body as { method?: unknown } | undefined)?.method === 'eth_sign')

beforeAll(() => {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      inFlight++
      try {
        return await play(input, init)
      } finally {
        inFlight--
      }
    }),
  )
})

afterAll(async () => {
  await vi.waitFor(() => {
    expect(inFlight).toBe(0)
    expect(queryClient.isFetching()).toBe(0)
  })
  vi.unstubAllGlobals()
})

// ---------------------------------------------------------------------------
// The widget's state, the wallet and stored sessions.

const siwxSettings = {
  required: true,
  statement: 'Sign in to Porthole Demo',
  expirationTime: 3600,
} satisfies NonNullable<WidgetState['siwx']>

beforeEach(() => {
  calls = []
  script = {
    nonce: {
      status: 200,
      body: { nonce, expiresAt: new Date(Date.now() + 600_000).toISOString() },
    },
    sessionStatus: 201,
    code: '0x',
  }
  store.setState({ ...initialState, hostOrigin, siwx: siwxSettings })
  for (const origin of [hostOrigin, otherOrigin]) storage.removeItem(`porthole.siwx.${origin}`)
})

afterEach(async () => {
  // Analytics calls run in the background: let them land in this test.
  await vi.waitFor(() => expect(inFlight).toBe(0))
})

function setup(features?: Parameters<typeof mock>[0]['features']): EvmConfig {
  return createConfig({
    chains: [localChain],
    connectors: [mock({ accounts: [wallet.address], features })],
    transports: { [localChain.id]: http('http://127.0.0.1:1') },
    storage: null,
    multiInjectedProviderDiscovery: false,
  })
}

/** Connects the mock wallet and mirrors the connection in the store, as `connection.ts` does. */
async function connectWallet(config: EvmConfig): Promise<Connection> {
  const [connector] = config.connectors
  if (!connector) throw new Error('the mock connector is missing')
  await connect(config, { connector })
  const connection: Connection = {
    status: 'connected',
    namespace: 'eip155',
    address: wallet.address,
    chainId: localChain.id,
    connectorId: connector.id,
    connectorName: connector.name,
  }
  store.setState({ connection })
  return connection
}

const connected: Connection = {
  status: 'connected',
  namespace: 'eip155',
  address: wallet.address,
  chainId: localChain.id,
  connectorId: 'mock',
  connectorName: 'Mock Connector',
}

function sessionUntil(expiresAt: Date, origin = hostOrigin): Session {
  return {
    data: {
      address: wallet.address,
      chainId: `eip155:${localChain.id}`,
      domain: new URL(origin).host,
      uri: origin,
      issuedAt: new Date(expiresAt.getTime() - 3_600_000).toISOString(),
      expirationTime: expiresAt.toISOString(),
      expiresAt: expiresAt.toISOString(),
      token,
    },
    message: `${new URL(origin).host} wants you to sign in with your Ethereum account:`,
    signature: '0x1234',
  }
}

const inAnHour = () => new Date(Date.now() + 3_600_000)
const anHourAgo = () => new Date(Date.now() - 3_600_000)

/** Stores sessions as the widget writes them: per host origin, keyed by lowercase CAIP-10 address. */
function writeStored(origin: string, entries: Record<string, unknown>) {
  storage.setItem(
    `porthole.siwx.${origin}`,
    JSON.stringify(
      Object.fromEntries(Object.entries(entries).map(([key, value]) => [key.toLowerCase(), value])),
    ),
  )
}

// ---------------------------------------------------------------------------

describe('SiwxMessage', () => {
  test.each([
    ['initFailed', 'A problem occurred while trying initialize authentication'],
    ['declined', 'Signature declined'],
    ['smartAccount', 'This application might not support Smart Accounts'],
    ['authenticating', 'Authenticating...'],
  ] as const)('%s is the catalogue text %j', (key, text) => {
    expect(SiwxMessage[key]).toBe(text)
  })

  test('has no copy outside the catalogue', () => {
    expect(Object.keys(SiwxMessage).sort()).toEqual(
      ['authenticating', 'declined', 'initFailed', 'smartAccount'].sort(),
    )
  })
})

describe('SiwxErrorMessage', () => {
  test.each([
    ['notEnabled', 'SIWX is not enabled'],
    ['noAddress', 'No ActiveCaipAddress found'],
    ['noNetwork', 'No ActiveCaipNetwork or client found'],
    ['noClient', 'No ConnectionController client found'],
  ] as const)('%s is the catalogue text %j', (key, text) => {
    expect(SiwxErrorMessage[key]).toBe(text)
  })
})

describe('storedSession', () => {
  test('finds a live session whatever the case of the address', () => {
    const session = sessionUntil(inAnHour())
    writeStored(hostOrigin, { [caipAddress]: session })
    expect(storedSession(hostOrigin, caipAddress)).toEqual(session)
    expect(storedSession(hostOrigin, caipAddress.toUpperCase())).toEqual(session)
  })

  test.each([
    ['it has expired', hostOrigin, caipAddress, anHourAgo],
    ['it belongs to another host origin', otherOrigin, caipAddress, inAnHour],
    ['it belongs to another network', hostOrigin, `eip155:1:${wallet.address}`, inAnHour],
  ])('answers null when %s', (_, origin, storedFor, expiresAt) => {
    writeStored(origin, { [storedFor]: sessionUntil(expiresAt(), origin) })
    expect(storedSession(hostOrigin, caipAddress)).toBeNull()
  })

  test('answers null for storage that is not JSON', () => {
    storage.setItem(`porthole.siwx.${hostOrigin}`, '{not json')
    expect(storedSession(hostOrigin, caipAddress)).toBeNull()
  })
})

describe('followSession', () => {
  test('with sign-in off, clears the session and leaves the view alone', () => {
    writeStored(hostOrigin, { [caipAddress]: sessionUntil(inAnHour()) })
    store.setState({
      siwx: null,
      connection: connected,
      session: sessionUntil(inAnHour()),
      history: ['Account'],
    })
    followSession(connected, true)
    expect(store.getState()).toMatchObject({ session: null, open: false, history: ['Account'] })
  })

  test.each<[string, () => void]>([
    [
      'opens SIWXSignMessage for a connected account on a supported network without a session',
      () => {},
    ],
    [
      'treats an expired stored session as none',
      () => writeStored(hostOrigin, { [caipAddress]: sessionUntil(anHourAgo()) }),
    ],
    [
      "never uses another host origin's stored session (SECURITY.md 9)",
      () => writeStored(otherOrigin, { [caipAddress]: sessionUntil(inAnHour(), otherOrigin) }),
    ],
    [
      'treats a malformed stored entry as no session',
      () => writeStored(hostOrigin, { [caipAddress]: { message: 'm', signature: '0x00' } }),
    ],
  ])('%s', (_, stored) => {
    stored()
    store.setState({ connection: connected, history: ['Account'] })
    expect(() => followSession(connected, true)).not.toThrow()
    expect(store.getState()).toMatchObject({
      session: null,
      open: true,
      history: ['SIWXSignMessage'],
    })
  })

  test("takes the account's stored live session and asks nothing", () => {
    const session = sessionUntil(inAnHour())
    writeStored(hostOrigin, { [caipAddress]: session })
    store.setState({ connection: connected, history: ['Account'] })
    followSession(connected, true)
    expect(store.getState()).toMatchObject({ session, open: false, history: ['Account'] })
  })

  test('asks nothing on an unsupported network', () => {
    const unsupported: Connection = { ...connected, chainId: 1 }
    store.setState({ connection: unsupported, history: ['Account'] })
    followSession(unsupported, false)
    expect(store.getState()).toMatchObject({ session: null, open: false, history: ['Account'] })
  })

  test('keeps the history of a sign-in view that already shows', () => {
    store.setState({ connection: connected, open: true, history: ['Account', 'SIWXSignMessage'] })
    followSession(connected, true)
    expect(store.getState()).toMatchObject({
      open: true,
      history: ['Account', 'SIWXSignMessage'],
    })
  })

  test('on disconnect, clears the session and leaves a showing SIWXSignMessage for home', () => {
    store.setState({
      connection: disconnected,
      session: sessionUntil(inAnHour()),
      open: true,
      history: ['Account', 'SIWXSignMessage'],
    })
    followSession(disconnected, true)
    expect(store.getState()).toMatchObject({ session: null, open: true, history: ['Connect'] })
  })
})

describe('isSmartAccount', () => {
  test.each([
    ['an account without code', '0x', false],
    ['a contract account', contractCode, true],
  ] as const)('answers %s with %s', async (_, code, expected) => {
    script.code = code
    const config = setup()
    await connectWallet(config)
    await expect(isSmartAccount(config)).resolves.toBe(expected)
  })

  test('answers false without a connected account, asking no RPC', async () => {
    await expect(isSmartAccount(setup())).resolves.toBe(false)
    expect(calls).toEqual([])
  })
})

describe('signIn', () => {
  test('throws "SIWX is not enabled" without sign-in settings', async () => {
    store.setState({ siwx: null })
    const config = setup()
    await connectWallet(config)
    const error = await signIn(config).catch((error: unknown) => error)
    expect(error).toBeInstanceOf(SiwxError)
    expect(error).toMatchObject({ shortMessage: 'SIWX is not enabled' })
  })

  test('throws "No ActiveCaipAddress found" without a connected wallet', async () => {
    const error = await signIn(setup()).catch((error: unknown) => error)
    expect(error).toBeInstanceOf(SiwxError)
    expect(error).toMatchObject({ shortMessage: 'No ActiveCaipAddress found' })
  })

  test('throws "No ActiveCaipNetwork or client found" on a network the config lacks', async () => {
    const config = setup()
    await connectWallet(config)
    // The wallet moves to mainnet on its own, which the project does not offer.
    config.connectors[0]?.onChainChanged('0x1')
    expect(getConnection(config).chainId).toBe(1)
    const error = await signIn(config).catch((error: unknown) => error)
    expect(error).toBeInstanceOf(SiwxError)
    expect(error).toMatchObject({ shortMessage: 'No ActiveCaipNetwork or client found' })
    expect(callsTo('POST', '/siwx/nonce')).toEqual([])
  })

  test.each([
    ['the API answers 500', { status: 500, body: { error: { code: 'internal', message: 'x' } } }],
    ['the nonce is malformed', { status: 200, body: { nonce: 'short', expiresAt: 'soon' } }],
    ['the network fails', 'network-error'],
  ] as const)(
    'throws the init failure when %s, before any signature',
    async (_, answer: Script['nonce']) => {
      script.nonce = answer
      const config = setup()
      await connectWallet(config)
      const error = await signIn(config).catch((error: unknown) => error)
      expect(error).toBeInstanceOf(SiwxError)
      expect((error as SiwxError).shortMessage).toBe(
        'A problem occurred while trying initialize authentication',
      )
      expect((error as SiwxError).cause).toBeDefined()
      expect(callsTo('POST', '/siwx/nonce')).toHaveLength(1)
      expect(signatureRequests()).toEqual([])
    },
  )

  test('signs the EIP-4361 message for the host origin, stores the session and closes the modal', async () => {
    const config = setup()
    await connectWallet(config)
    store.setState({ open: true, history: ['SIWXSignMessage'] })

    await expect(signIn(config)).resolves.toBe('signed')

    const [post] = callsTo('POST', '/siwx/sessions')
    const { message, signature } = Siwx.SiwxSessionRequest.parse(post?.body)
    const lines = message.split('\n')
    expect(lines[0]).toBe('http://127.0.0.1:5170 wants you to sign in with your Ethereum account:')
    expect(lines[1]).toBe(wallet.address)
    expect(lines).toContain('Sign in to Porthole Demo')
    expect(lines).toContain('URI: http://127.0.0.1:5170')
    expect(lines).toContain('Version: 1')
    expect(lines).toContain('Chain ID: 31337')
    expect(lines).toContain(`Nonce: ${nonce}`)
    expect(lines.find((line) => line.startsWith('Request ID: '))).toMatch(
      /^Request ID: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    )
    const fields = parseSiweMessage(message)
    expect(fields.expirationTime?.getTime()).toBe((fields.issuedAt?.getTime() ?? 0) + 3_600_000)
    expect(lines).toContain(`Expiration Time: ${fields.expirationTime?.toISOString()}`)
    // The wallet signed exactly the message the API received.
    expect(signatureRequests()).toHaveLength(1)
    await expect(
      verifyMessage({ address: wallet.address, message, signature: signature as Hex }),
    ).resolves.toBe(true)

    const { session } = store.getState()
    expect(session?.data.token).toBe(token)
    expect(session).toMatchObject({ message, signature, data: { address: wallet.address } })
    expect(storedSession(hostOrigin, caipAddress)).toEqual(session)
    expect(store.getState()).toMatchObject({ open: false, history: ['Account'] })
  })

  test('writes no Expiration Time when the settings give none', async () => {
    store.setState({ siwx: { required: false } })
    const config = setup()
    await connectWallet(config)
    await expect(signIn(config)).resolves.toBe('signed')
    const { message } = Siwx.SiwxSessionRequest.parse(callsTo('POST', '/siwx/sessions')[0]?.body)
    expect(message).not.toMatch(/^Expiration Time:/m)
    expect(parseSiweMessage(message).statement).toBeUndefined()
  })

  test('answers declined, with no session, when the API refuses the signature (401)', async () => {
    script.sessionStatus = 401
    const config = setup()
    await connectWallet(config)
    store.setState({ open: true, history: ['SIWXSignMessage'] })
    await expect(signIn(config)).resolves.toBe('declined')
    expect(callsTo('POST', '/siwx/sessions')).toHaveLength(1)
    expect(storedSession(hostOrigin, caipAddress)).toBeNull()
    expect(store.getState()).toMatchObject({
      session: null,
      open: true,
      history: ['SIWXSignMessage'],
    })
  })

  test('answers declined, asking the API nothing, when the wallet rejects the signature', async () => {
    const config = setup({ signMessageError: true })
    await connectWallet(config)
    await expect(signIn(config)).resolves.toBe('declined')
    expect(callsTo('POST', '/siwx/sessions')).toEqual([])
    expect(store.getState().session).toBeNull()
  })

  test.each([
    ['a statement with a non-ASCII letter', { statement: 'Bienvenue à bord' }],
    ['a statement with a tab', { statement: 'Sign in\tto continue' }],
    ['a resource with a non-ASCII path', { resources: ['https://example.com/café'] }],
  ])('signs in with %s, or the site settings refuse it up front', async (_, settings) => {
    const parsed = SiwxConfig.safeParse(settings)
    const config = setup()
    await connectWallet(config)
    if (parsed.success) store.setState({ siwx: { ...parsed.data, required: false } })
    const outcome = parsed.success
      ? await signIn(config).catch((error: Error) => `threw ${error.name}`)
      : 'refused by the settings'
    expect(outcome).toBeOneOf(['signed', 'refused by the settings'])
  })
})

describe('signOut', () => {
  test('forgets the session in the store, in storage and at the API, and keeps the wallet', async () => {
    const config = setup()
    await connectWallet(config)
    await expect(signIn(config)).resolves.toBe('signed')
    expect(storedSession(hostOrigin, caipAddress)).not.toBeNull()

    await signOut(config)

    expect(store.getState().session).toBeNull()
    expect(storedSession(hostOrigin, caipAddress)).toBeNull()
    const deletes = callsTo('DELETE', '/siwx/sessions')
    expect(deletes).toHaveLength(1)
    expect(deletes[0]?.headers.get('Authorization')).toBe(`Bearer ${token}`)
    expect(getConnection(config).status).toBe('connected')
  })

  test("keeps another host origin's session", async () => {
    const other = sessionUntil(inAnHour(), otherOrigin)
    writeStored(otherOrigin, { [caipAddress]: other })
    const config = setup()
    await connectWallet(config)
    await expect(signIn(config)).resolves.toBe('signed')
    await signOut(config)
    expect(storedSession(otherOrigin, caipAddress)).toEqual(other)
  })

  test('calls the API only when there is a session to end', async () => {
    const config = setup()
    await connectWallet(config)
    await signOut(config)
    expect(callsTo('DELETE', '/siwx/sessions')).toEqual([])
    expect(store.getState().session).toBeNull()
  })
})
