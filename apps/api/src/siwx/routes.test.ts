import { execFile } from 'node:child_process'
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { serve } from '@hono/node-server'
import * as Api from '@porthole/protocol/Api'
import * as Siwx from '@porthole/protocol/Siwx'
import { base58 } from '@scure/base'
import type { Hono } from 'hono'
import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { createSiweMessage } from 'viem/siwe'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { behindProxy, createTestDb, type TestDb } from '../../test/db.js'
import { createApp } from '../app.js'
import { createProject, setProjectOrigins } from '../projects/projects.js'
import {
  maxClockSkewSeconds,
  maxSessionBodyBytes,
  nonceIpLimit,
  nonceLength,
  nonceLimit,
  noncePrefixLimit,
  pruneSiwx,
  sessionTtlSeconds,
} from './routes.js'

/** The dev project's two allowed origins: two hosts, as far as sessions go. */
const hostA = 'http://127.0.0.1:5170'
const hostB = 'http://localhost:5170'
const solanaDevnet = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'
/** What the widget sends with every call that changes something (SECURITY.md 21). */
const fromWidget = { 'content-type': 'application/json', origin: 'http://widget.localhost:5171' }

const owner = privateKeyToAccount(generatePrivateKey())
const stranger = privateKeyToAccount(generatePrivateKey())

let testDb: TestDb
let app: Hono
let rpc: Server
/** JSON-RPC methods the stand-in node was asked, in order. */
const rpcCalls: string[] = []
const onError = vi.fn()

/**
 * A stand-in for the chain's node: it answers the deployless ERC-6492
 * validator's `eth_call` with `false`, as a real node does for a signature
 * that no contract and no key at the address made.
 */
async function startFakeNode(chainIdHex = '0x7a69'): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString()
    })
    request.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string }
      rpcCalls.push(method)
      const results: Record<string, string> = { eth_call: '0x00', eth_chainId: chainIdHex }
      const answer =
        method in results
          ? { jsonrpc: '2.0', id, result: results[method] }
          : { jsonrpc: '2.0', id, error: { code: -32601, message: 'no such method' } }
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify(answer))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

beforeAll(async () => {
  const node = await startFakeNode()
  rpc = node.server
  // Every in-process request comes from one client ('unknown'): scaled as in the e2e stack.
  testDb = await createTestDb({ rpcUpstreams: { 'eip155:31337': node.url }, ipLimitScale: 100 })
  app = createApp({ config: testDb.config, db: testDb.db, onError })
  await createProject(testDb.db, { id: 'open', name: 'No origins: the dev defaults' })
  await createProject(testDb.db, {
    id: 'shop',
    name: 'Shop',
    allowedOrigins: ['https://shop.example.com', 'https://*.shop.example.com'],
  })
})
afterAll(async () => {
  await testDb?.close()
  await new Promise((resolve) => rpc?.close(resolve))
})

async function newNonce(projectId = 'porthole-dev', on = app) {
  const response = await on.request(`/siwx/nonce?projectId=${projectId}&clientId=${randomUUID()}`, {
    method: 'POST',
    headers: fromWidget,
  })
  expect(response.status).toBe(200)
  return Siwx.SiwxNonce.parse(await response.json())
}

type SiweFields = Parameters<typeof createSiweMessage>[0]

/** A SIWE message for host A on the local chain, signed by `account` (default: the owner). */
async function signIn(
  overrides: Partial<SiweFields> = {},
  { account = owner, projectId = 'porthole-dev' } = {},
) {
  const nonce = overrides.nonce ?? (await newNonce(projectId)).nonce
  const message = createSiweMessage({
    address: owner.address,
    chainId: 31337,
    scheme: 'http',
    domain: '127.0.0.1:5170',
    uri: `${hostA}/login`,
    nonce,
    version: '1',
    statement: 'Sign in to the Porthole demo',
    ...overrides,
  })
  const signature = await account.signMessage({ message })
  return { body: { message, signature }, message, signature, nonce }
}

function postSession(body: unknown, projectId = 'porthole-dev', on = app) {
  return on.request(`/siwx/sessions?projectId=${projectId}`, {
    method: 'POST',
    headers: fromWidget,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

/** Signs in and returns the session. */
async function session(overrides: Partial<SiweFields> = {}, projectId = 'porthole-dev') {
  const { body } = await signIn(overrides, { projectId })
  const response = await postSession(body, projectId)
  expect(response.status).toBe(201)
  return Siwx.SiwxSession.parse(await response.json())
}

function check(token: string, origin: string, projectId = 'porthole-dev') {
  return app.request(
    `/siwx/sessions/check?projectId=${projectId}&origin=${encodeURIComponent(origin)}`,
    { headers: { authorization: `Bearer ${token}` } },
  )
}

function signOut(token: string, projectId = 'porthole-dev') {
  return app.request(`/siwx/sessions?projectId=${projectId}`, {
    method: 'DELETE',
    headers: { ...fromWidget, authorization: `Bearer ${token}` },
  })
}

/** Asserts an error answer, and that it quotes none of the secrets given. */
async function expectError(
  response: Response,
  status: number,
  code: string,
  secrets: string[] = [],
) {
  const text = await response.text()
  expect({
    status: response.status,
    code: Api.ErrorBody.parse(JSON.parse(text)).error.code,
  }).toEqual({ status, code })
  for (const secret of secrets) expect(text).not.toContain(secret)
  return JSON.parse(text) as Api.ErrorBody
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

describe('POST /siwx/nonce', () => {
  test(`gives ${nonceLength} letters and digits (over 96 random bits), valid for 10 minutes`, async () => {
    const before = Date.now()
    const { nonce, expiresAt } = await newNonce()
    expect(nonce).toMatch(/^[A-Za-z0-9]{16,}$/)
    expect(nonce).toHaveLength(nonceLength)
    expect(nonceLength * Math.log2(62)).toBeGreaterThan(96)
    const ttl = new Date(expiresAt).getTime() - before
    expect(ttl).toBeGreaterThan(10 * 60_000 - 5_000)
    expect(ttl).toBeLessThanOrEqual(10 * 60_000 + 5_000)
    const [row] = await testDb.db.query(
      'SELECT project_id, used_at FROM siwx_nonces WHERE nonce = $1',
      [nonce],
    )
    expect(row).toEqual({ project_id: 'porthole-dev', used_at: null })
  })

  test('never gives the same nonce twice and is not cached', async () => {
    const nonces = await Promise.all(Array.from({ length: 25 }, () => newNonce()))
    expect(new Set(nonces.map((n) => n.nonce)).size).toBe(25)
    const response = await app.request('/siwx/nonce?projectId=porthole-dev', {
      method: 'POST',
      headers: fromWidget,
    })
    expect(response.headers.get('cache-control')).toBe('no-store')
  })

  test(`is limited to ${nonceLimit.limit} per ${nonceLimit.windowSeconds} s per client`, async () => {
    const ask = (clientId: string) =>
      app.request(`/siwx/nonce?projectId=shop&clientId=${clientId}`, {
        method: 'POST',
        headers: fromWidget,
      })
    for (let i = 0; i < nonceLimit.limit; i++) expect((await ask('greedy')).status).toBe(200)
    const refused = await ask('greedy')
    await expectError(refused, 429, 'rate_limited')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await ask('patient')).status).toBe(200)
  })

  test('checks the project and the query', async () => {
    const post = (query: string) =>
      app.request(`/siwx/nonce?${query}`, { method: 'POST', headers: fromWidget })
    await expectError(await post(''), 400, 'missing_project_id')
    await expectError(await post('projectId=nobody'), 403, 'unknown_project')
    await expectError(await post('projectId=porthole-dev&extra=1'), 400, 'invalid_query')
  })
})

describe('inv-22 POST /siwx/nonce is limited per IP, then per prefix, whatever the clientId', () => {
  /** An app behind the proxy 10.0.0.1, which names each client in `X-Forwarded-For`. */
  let proxied: Hono
  beforeAll(() => {
    proxied = createApp({ config: behindProxy(testDb.config), db: testDb.db })
  })
  const askFrom = (ip: string, projectId = 'porthole-dev') =>
    proxied.request(
      `/siwx/nonce?projectId=${projectId}&clientId=${randomUUID()}`,
      { method: 'POST', headers: { ...fromWidget, 'x-forwarded-for': ip } },
      { incoming: { socket: { remoteAddress: '10.0.0.1' } } },
    )

  test(`a new clientId (and project) each time buys nothing: 429 with Retry-After after ${nonceIpLimit.limit}`, async () => {
    // The address's earlier nonces (each with a new clientId too), then ten more.
    await testDb.db.query(
      'INSERT INTO rate_limits (key, window_start, count) VALUES ($1, now(), $2)',
      ['siwx-nonce-ip:198.51.100.40', nonceIpLimit.limit - 10],
    )
    for (let i = 0; i < 10; i++)
      expect((await askFrom('198.51.100.40', i % 2 ? 'shop' : 'porthole-dev')).status).toBe(200)
    const refused = await askFrom('198.51.100.40', 'open')
    await expectError(refused, 429, 'rate_limited')
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(nonceIpLimit.windowSeconds)
    expect((await askFrom('198.51.100.41')).status).toBe(200)
  })

  test('once a /24 has spent its bucket, a fresh address in it is refused; another /24 is not', async () => {
    await testDb.db.query(
      'INSERT INTO rate_limits (key, window_start, count) VALUES ($1, now(), $2)',
      ['siwx-nonce-prefix:192.0.2.0/24', noncePrefixLimit.limit],
    )
    await expectError(await askFrom('192.0.2.50'), 429, 'rate_limited')
    expect((await askFrom('192.0.3.50')).status).toBe(200)
  })
})

describe('POST /siwx/sessions', () => {
  test('an EOA signature of a message for an allowed host gives a session, without an RPC call', async () => {
    const {
      body: request,
      message,
      signature,
    } = await signIn({
      expirationTime: new Date(Date.now() + 60 * 60_000),
    })
    const calls = rpcCalls.length
    const response = await postSession(request)
    expect(response.status).toBe(201)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = Siwx.SiwxSession.parse(await response.json())
    const parsed = Siwx.parse(message)
    expect(body).toEqual({
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      address: owner.address,
      chainId: 'eip155:31337',
      domain: '127.0.0.1:5170',
      uri: `${hostA}/login`,
      issuedAt: parsed.issuedAt.toISOString(),
      expirationTime: parsed.expirationTime?.toISOString(),
      // The message expires before the session would.
      expiresAt: parsed.expirationTime?.toISOString(),
      message,
      signature,
    })
    expect(rpcCalls.length).toBe(calls)
    // Only the token's SHA-256 is stored.
    const rows = await testDb.db.query('SELECT * FROM siwx_sessions WHERE nonce = $1', [
      parsed.nonce,
    ])
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ token_sha256: sha256(body.token), origin: hostA })
    expect(JSON.stringify(rows)).not.toContain(body.token)
  })

  test(`without an expiration time a session lasts ${sessionTtlSeconds / 86_400} days`, async () => {
    const before = Date.now()
    const { expiresAt, expirationTime } = await session()
    expect(expirationTime).toBeNull()
    const ttl = new Date(expiresAt).getTime() - before
    expect(ttl).toBeGreaterThanOrEqual(sessionTtlSeconds * 1000 - 5_000)
    expect(ttl).toBeLessThanOrEqual(sessionTtlSeconds * 1000 + 5_000)
  })

  test('a lowercase address is answered checksummed', async () => {
    const { address } = await session({ address: owner.address.toLowerCase() as Hex })
    expect(address).toBe(owner.address)
  })

  test('a project without origins accepts the dev hosts only', async () => {
    const local = await signIn(
      { domain: 'localhost:3000', uri: 'http://localhost:3000/' },
      { projectId: 'open' },
    )
    expect((await postSession(local.body, 'open')).status).toBe(201)
    const remote = await signIn(
      { scheme: 'https', domain: 'example.com', uri: 'https://example.com/' },
      { projectId: 'open' },
    )
    await expectError(await postSession(remote.body, 'open'), 403, 'domain_not_allowed')
  })

  test('a wildcard origin of the project covers its subdomains', async () => {
    const fields = {
      scheme: 'https',
      domain: 'eu.shop.example.com',
      uri: 'https://eu.shop.example.com/',
    }
    const signed = await signIn(fields, { projectId: 'shop' })
    expect((await postSession(signed.body, 'shop')).status).toBe(201)
  })

  test('a Solana ed25519 signature gives a session; a wrong one is refused', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519')
    const address = base58.encode(publicKey.export({ format: 'der', type: 'spki' }).subarray(12))
    const make = async () =>
      Siwx.create({
        chainId: solanaDevnet,
        address,
        scheme: 'http',
        domain: '127.0.0.1:5170',
        uri: hostA,
        nonce: (await newNonce()).nonce,
      })
    const message = await make()
    const signature = base58.encode(sign(null, Buffer.from(message), privateKey))
    const response = await postSession({ message, signature })
    expect(response.status).toBe(201)
    expect(await response.json()).toMatchObject({ address, chainId: solanaDevnet })

    const other = await make()
    await expectError(await postSession({ message: other, signature }), 401, 'invalid_signature', [
      signature,
    ])
  })

  test('the chain must have an RPC upstream (EVM) or be a known Solana network', async () => {
    await expectError(
      await postSession((await signIn({ chainId: 1 })).body),
      400,
      'unsupported_chain',
    )
    const message = Siwx.create({
      chainId: 'solana:unknownNetwork',
      address: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
      domain: 'localhost:5170',
      scheme: 'http',
      uri: hostB,
      nonce: (await newNonce()).nonce,
    })
    await expectError(
      await postSession({ message, signature: '1'.repeat(64) }),
      400,
      'unsupported_chain',
    )
  })

  test('a signature by another key is refused after the node says no', async () => {
    const signed = await signIn({}, { account: stranger })
    const calls = rpcCalls.length
    await expectError(await postSession(signed.body), 401, 'invalid_signature', [
      signed.signature,
      signed.nonce,
    ])
    expect(rpcCalls.slice(calls)).toContain('eth_call')
  })

  test('a message changed after signing is refused', async () => {
    const signed = await signIn()
    const message = signed.message.replace('Sign in to the Porthole demo', 'Sign in to evil')
    await expectError(await postSession({ ...signed.body, message }), 401, 'invalid_signature')
  })

  test('with the node unreachable, an EOA still signs in, and other signatures cannot be told (502)', async () => {
    const offline = createApp({
      config: { ...testDb.config, rpcUpstreams: { 'eip155:31337': 'http://127.0.0.1:9' } },
      db: testDb.db,
      onError,
    })
    const good = await signIn()
    expect((await postSession(good.body, 'porthole-dev', offline)).status).toBe(201)
    const bad = await signIn({}, { account: stranger })
    await expectError(
      await postSession(bad.body, 'porthole-dev', offline),
      502,
      'signature_check_unavailable',
      [bad.signature],
    )
  })

  test('an upstream serving another chain than the message is not trusted to check (502)', async () => {
    const mainnet = await startFakeNode('0x1')
    try {
      const misconfigured = createApp({
        config: { ...testDb.config, rpcUpstreams: { 'eip155:31337': mainnet.url } },
        db: testDb.db,
      })
      const bad = await signIn({}, { account: stranger })
      await expectError(
        await postSession(bad.body, 'porthole-dev', misconfigured),
        502,
        'signature_check_unavailable',
      )
    } finally {
      await new Promise((resolve) => mainnet.server.close(resolve))
    }
  })

  test('a signature verifier can be injected', async () => {
    const verifySignature = vi.fn(async () => false)
    const custom = createApp({ config: testDb.config, db: testDb.db, verifySignature })
    const signed = await signIn()
    await expectError(
      await postSession(signed.body, 'porthole-dev', custom),
      401,
      'invalid_signature',
    )
    expect(verifySignature).toHaveBeenCalledWith({
      chainId: 'eip155:31337',
      address: owner.address,
      message: signed.message,
      signature: signed.signature,
    })
  })
})

describe('POST /siwx/sessions: nonces are single use', () => {
  test('a replayed message is refused', async () => {
    const signed = await signIn()
    expect((await postSession(signed.body)).status).toBe(201)
    await expectError(await postSession(signed.body), 401, 'nonce_used', [signed.nonce])
  })

  test('a nonce spent by a failed attempt cannot be used again', async () => {
    const bad = await signIn({}, { account: stranger })
    await expectError(await postSession(bad.body), 401, 'invalid_signature')
    const good = await signIn({ nonce: bad.nonce })
    await expectError(await postSession(good.body), 401, 'nonce_used')
  })

  test('the same message sent to two replicas at once makes exactly one session', async () => {
    const replica = createApp({ config: testDb.config, db: await testDb.openReplica() })
    const signed = await signIn()
    const responses = await Promise.all([
      postSession(signed.body),
      postSession(signed.body, 'porthole-dev', replica),
    ])
    expect(responses.map((r) => r.status).sort()).toEqual([201, 401])
    const [count] = await testDb.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM siwx_sessions WHERE nonce = $1',
      [signed.nonce],
    )
    expect(count?.n).toBe(1)
  })

  test('an unknown nonce is refused', async () => {
    const signed = await signIn({ nonce: 'NeverIssuedByTheApi1234' })
    await expectError(await postSession(signed.body), 401, 'unknown_nonce')
  })

  test("another project's nonce is unknown here", async () => {
    const { nonce } = await newNonce('shop')
    await expectError(await postSession((await signIn({ nonce })).body), 401, 'unknown_nonce')
  })

  test('an expired nonce is refused', async () => {
    const signed = await signIn()
    await testDb.db.query(
      `UPDATE siwx_nonces SET expires_at = now() - interval '1 second' WHERE nonce = $1`,
      [signed.nonce],
    )
    await expectError(await postSession(signed.body), 401, 'nonce_expired')
  })

  test('pruning drops expired sessions and long-expired nonces only', async () => {
    const live = await signIn()
    const old = await signIn()
    await testDb.db.query(
      `UPDATE siwx_nonces SET expires_at = now() - interval '2 hours' WHERE nonce = $1`,
      [old.nonce],
    )
    const { token } = await session()
    await testDb.db.query(
      `UPDATE siwx_sessions SET expires_at = now() - interval '1 second' WHERE token_sha256 = $1`,
      [sha256(token)],
    )
    const pruned = await pruneSiwx(testDb.db)
    expect(pruned.nonces).toBeGreaterThanOrEqual(1)
    expect(pruned.sessions).toBeGreaterThanOrEqual(1)
    await expectError(await postSession(old.body), 401, 'unknown_nonce')
    expect((await postSession(live.body)).status).toBe(201)
  })
})

describe('POST /siwx/sessions: the message must be for this host and now', () => {
  test('a domain the project does not allow is refused, and its nonce stays usable', async () => {
    const evil = await signIn({
      scheme: 'https',
      domain: 'evil.example.com',
      uri: 'https://evil.example.com/',
    })
    await expectError(await postSession(evil.body), 403, 'domain_not_allowed')
    expect((await postSession((await signIn({ nonce: evil.nonce })).body)).status).toBe(201)
  })

  test('without a scheme the domain means https, which the dev project does not allow', async () => {
    const signed = await signIn({ scheme: undefined, uri: 'https://127.0.0.1:5170/' })
    await expectError(await postSession(signed.body), 403, 'domain_not_allowed')
  })

  test.each([
    ['another allowed host', `${hostB}/login`],
    ['another scheme', 'https://127.0.0.1:5170/login'],
    ['another port', 'http://127.0.0.1:5171/login'],
    ['a non-web URI', 'did:pkh:eip155:1:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'],
  ])('a URI on %s than the domain is refused', async (_, uri) => {
    await expectError(await postSession((await signIn({ uri })).body), 400, 'uri_origin_mismatch')
  })

  test('an expired message is refused', async () => {
    const signed = await signIn({
      issuedAt: new Date(Date.now() - 60_000),
      expirationTime: new Date(Date.now() - 1_000),
    })
    await expectError(await postSession(signed.body), 401, 'message_expired')
  })

  test('a message not yet valid is refused', async () => {
    const signed = await signIn({ notBefore: new Date(Date.now() + 60 * 60_000) })
    await expectError(await postSession(signed.body), 401, 'message_not_yet_valid')
  })

  test(`a message issued in the future is refused beyond ${maxClockSkewSeconds} s of clock skew`, async () => {
    const ahead = await signIn({ issuedAt: new Date(Date.now() + 60 * 60_000) })
    await expectError(await postSession(ahead.body), 401, 'message_issued_in_future')
    const skewed = await signIn({ issuedAt: new Date(Date.now() + 30_000) })
    expect((await postSession(skewed.body)).status).toBe(201)
  })
})

describe('inv-18 POST /siwx/sessions parses strictly', () => {
  const valid = { message: 'x', signature: '0xab' }
  test.each([
    ['an unknown key', { ...valid, extra: 1 }, 'invalid_body'],
    ['a missing signature', { message: 'x' }, 'invalid_body'],
    ['a numeric message', { ...valid, message: 1 }, 'invalid_body'],
    ['an odd-length hex signature', { ...valid, signature: '0xabc' }, 'invalid_body'],
    [
      'an over-long message',
      { ...valid, message: 'x'.repeat(Siwx.maxMessageLength + 1) },
      'invalid_body',
    ],
    ['an array', [valid], 'invalid_body'],
    ['null', null, 'invalid_body'],
    ['a text that is not a sign-in message', { ...valid, message: 'Hello' }, 'invalid_message'],
  ])('refuses %s (400)', async (_, body, code) => {
    await expectError(await postSession(body), 400, code)
  })

  test('refuses a malformed message, a body that is not JSON, and a __proto__ key', async () => {
    const signed = await signIn()
    await expectError(
      await postSession({ ...signed.body, message: `${signed.message}\nExtra: 1` }),
      400,
      'invalid_message',
      [signed.nonce],
    )
    await expectError(await postSession('{"message":'), 400, 'invalid_json')
    await expectError(
      await postSession(`{"__proto__":{"polluted":true},"message":"x","signature":"0xab"}`),
      400,
      'invalid_body',
    )
    expect(Object.prototype).not.toHaveProperty('polluted')
  })

  test(`refuses a body over ${maxSessionBodyBytes} bytes with 413`, async () => {
    await expectError(
      await postSession({ message: 'x'.repeat(maxSessionBodyBytes), signature: '0xab' }),
      413,
      'payload_too_large',
    )
  })
})

describe('inv-09 GET /siwx/sessions/check: a session is for its own host only', () => {
  test("host A's session is accepted for A and refused for B", async () => {
    const { token, address, issuedAt, expiresAt } = await session()
    const forA = await check(token, hostA)
    expect(forA.status).toBe(200)
    expect(forA.headers.get('cache-control')).toBe('no-store')
    expect(Siwx.SiwxSessionCheck.parse(await forA.json())).toEqual({
      address,
      chainId: 'eip155:31337',
      domain: '127.0.0.1:5170',
      uri: `${hostA}/login`,
      issuedAt,
      expirationTime: null,
      expiresAt,
    })
    await expectError(await check(token, hostB), 403, 'session_origin_mismatch', [token])
  })

  test('a session is refused under another project', async () => {
    const { token } = await session()
    await expectError(await check(token, hostA, 'shop'), 401, 'invalid_session')
  })

  test('after sign-out the token is refused; signing out again still answers 204', async () => {
    const { token } = await session()
    expect((await check(token, hostA)).status).toBe(200)
    const out = await signOut(token)
    expect(out.status).toBe(204)
    expect(await out.text()).toBe('')
    await expectError(await check(token, hostA), 401, 'invalid_session')
    expect((await signOut(token)).status).toBe(204)
  })

  test('an expired session is refused', async () => {
    const { token } = await session()
    await testDb.db.query(
      `UPDATE siwx_sessions SET expires_at = now() - interval '1 second' WHERE token_sha256 = $1`,
      [sha256(token)],
    )
    await expectError(await check(token, hostA), 401, 'invalid_session')
  })

  test('a host the project no longer allows is refused', async () => {
    await createProject(testDb.db, {
      id: 'moving',
      name: 'Moving',
      allowedOrigins: [hostA],
    })
    const { token } = await session({}, 'moving')
    expect((await check(token, hostA, 'moving')).status).toBe(200)
    await setProjectOrigins(testDb.db, 'moving', ['https://new.example.com'])
    await expectError(await check(token, hostA, 'moving'), 403, 'origin_not_allowed')
  })

  test.each([
    ['no Authorization header', undefined, 'missing_token'],
    ['an empty one', '', 'missing_token'],
    ['another scheme', `Basic ${'a'.repeat(43)}`, 'invalid_token'],
    ['a short token', 'Bearer abc', 'invalid_token'],
    ['a token with padding', `Bearer ${'a'.repeat(42)}=`, 'invalid_token'],
    ['an unknown token', `Bearer ${'a'.repeat(43)}`, 'invalid_session'],
  ])('%s gives 401 with WWW-Authenticate', async (_, authorization, code) => {
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization }
    const response = await app.request(
      `/siwx/sessions/check?projectId=porthole-dev&origin=${encodeURIComponent(hostA)}`,
      { headers },
    )
    await expectError(response, 401, code)
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /)
  })

  test.each([
    ['a missing origin', 'projectId=porthole-dev'],
    ['an origin with a path', `projectId=porthole-dev&origin=${encodeURIComponent(`${hostA}/`)}`],
    ['a non-canonical origin', 'projectId=porthole-dev&origin=HTTP://127.0.0.1:5170'],
    ['an unknown parameter', `projectId=porthole-dev&origin=${encodeURIComponent(hostA)}&x=1`],
  ])('%s gives 400', async (_, query) => {
    const response = await app.request(`/siwx/sessions/check?${query}`, {
      headers: { authorization: `Bearer ${'a'.repeat(43)}` },
    })
    await expectError(response, 400, 'invalid_query')
  })
})

describe('DELETE /siwx/sessions', () => {
  test('needs a bearer token', async () => {
    const response = await app.request('/siwx/sessions?projectId=porthole-dev', {
      method: 'DELETE',
      headers: fromWidget,
    })
    await expectError(response, 401, 'missing_token')
  })

  test("signs out only this project's session", async () => {
    const { token } = await session()
    expect((await signOut(token, 'shop')).status).toBe(204)
    expect((await check(token, hostA)).status).toBe(200)
  })

  test('is allowed cross-origin for the widget (DELETE, Authorization)', async () => {
    const response = await app.request('/siwx/sessions?projectId=porthole-dev', {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://widget.localhost:5171',
        'Access-Control-Request-Method': 'DELETE',
        'Access-Control-Request-Headers': 'authorization',
      },
    })
    expect(response.headers.get('access-control-allow-methods')).toContain('DELETE')
    expect(response.headers.get('access-control-allow-headers')).toContain('Authorization')
  })
})

describe('examples/check-session.mjs', () => {
  const script = fileURLToPath(new URL('../../examples/check-session.mjs', import.meta.url))
  /** Runs the example; resolves to its exit code and output whatever the code. */
  const run = async (...args: string[]) => {
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [script, ...args])
      return { code: 0, stdout, stderr: '' }
    } catch (error) {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string }
      return { code, stdout, stderr }
    }
  }

  test("accepts host A's session for A, refuses it for B, and never prints the token", async () => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
    await new Promise<void>((resolve) => server.once('listening', resolve))
    const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const { token, address } = await session()
      const accepted = await run(apiUrl, 'porthole-dev', hostA, token)
      expect(accepted.code).toBe(0)
      expect(JSON.parse(accepted.stdout)).toMatchObject({
        accepted: true,
        session: { address, chainId: 'eip155:31337', domain: '127.0.0.1:5170' },
      })
      const refused = await run(apiUrl, 'porthole-dev', hostB, token)
      expect(refused.code).toBe(1)
      expect(JSON.parse(refused.stdout)).toEqual({
        accepted: false,
        status: 403,
        error: { code: 'session_origin_mismatch', message: expect.any(String) },
      })
      for (const output of [accepted.stdout, refused.stdout]) expect(output).not.toContain(token)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  test('exits 2 with the usage when arguments are missing', async () => {
    const result = await run('http://127.0.0.1:9')
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^Usage: node apps\/api\/examples\/check-session\.mjs/)
  })
})

test('no request above reached the server as an unexpected error (none was logged)', () => {
  expect(onError).not.toHaveBeenCalled()
})
