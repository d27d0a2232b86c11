import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Hono } from 'hono'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { type LocalAnvil, startAnvil } from '../../../../e2e/support/localAnvil.js'
import { createApp } from '../app.js'
import { createTestDb, type TestDb } from '../db/testing.js'
import { createProject } from '../projects.js'
import { isMethodAllowed, maxBatchSize, maxRpcBodyBytes, RpcErrorResponse } from './rpc.js'

/**
 * A tiny JSON-RPC node on 127.0.0.1: `/ok` answers, `/fail` 500s, `/garbage`
 * sends HTML, `/slow` never answers, `/leaky` answers errors naming its insides.
 */
let upstream: Server
let received: unknown[] = []
let receivedText: string[] = []
let testDb: TestDb
let app: Hono
const pending: ServerResponse[] = []
const solanaDevnet = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'

function answer(request: { id?: unknown; method: string }) {
  switch (request.method) {
    case 'eth_chainId':
      return { jsonrpc: '2.0', id: request.id, result: '0x7a69' }
    case 'eth_blockNumber':
      return { jsonrpc: '2.0', id: request.id, result: '0x10' }
    case 'getSlot':
      return { jsonrpc: '2.0', id: request.id, result: 42 }
    default:
      return { jsonrpc: '2.0', id: request.id, error: { code: 3, message: 'execution reverted' } }
  }
}

/** Errors whose text names the node's insides (an internal URL, a path, a key). */
function leak(request: { id?: unknown; method: string }) {
  const error = (() => {
    switch (request.method) {
      case 'eth_call':
        return {
          code: 3,
          message: 'execution reverted: at http://10.0.0.5:8545/secret',
          data: '0x08c379a0',
        }
      case 'eth_estimateGas':
        return { code: 3, message: 'execution reverted', data: 'see /srv/node/trace.log' }
      case 'eth_sendRawTransaction':
        return {
          code: -32000,
          message: 'nonce too low: next nonce 5, tx nonce 4 (node-7.internal)',
        }
      default:
        return {
          code: -32000,
          message: 'upstream https://mainnet.internal.example/v3/KEY123 failed at /srv/node/x.js',
          data: { stack: '/srv/node/x.js:1:1' },
        }
    }
  })()
  return { jsonrpc: '2.0', id: request.id, error }
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  receivedText.push(text)
  const body = JSON.parse(text) as
    | { id?: unknown; method: string }
    | { id?: unknown; method: string }[]
  received.push(body)
  if (req.url === '/leaky') {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(Array.isArray(body) ? body.map(leak) : leak(body)))
    return
  }
  if (req.url === '/fail') {
    res.writeHead(500, { 'content-type': 'text/plain' })
    res.end('Error: upstream exploded\n    at secretFunction (/srv/node/internal.js:1:1)')
    return
  }
  if (req.url === '/garbage') {
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end('<html>login page of some proxy</html>')
    return
  }
  if (req.url === '/slow') {
    pending.push(res)
    return
  }
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify(Array.isArray(body) ? body.map(answer) : answer(body)))
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    handle(req, res).catch(() => {
      res.writeHead(400)
      res.end()
    })
  })
  const port = await listen(upstream)
  // A port with nothing listening: an upstream that is down.
  const closed = createServer()
  const closedPort = await listen(closed)
  await new Promise((resolve) => closed.close(resolve))
  const base = `http://127.0.0.1:${port}`
  testDb = await createTestDb({
    rpcUpstreams: {
      'eip155:31337': `${base}/ok`,
      'eip155:1': `${base}/ok`,
      'eip155:10': `${base}/fail`,
      'eip155:137': `${base}/garbage`,
      'eip155:42161': `${base}/slow`,
      'eip155:8453': `http://127.0.0.1:${closedPort}/`,
      'eip155:100': `${base}/leaky`,
      [solanaDevnet]: `${base}/ok`,
    },
  })
  await createProject(testDb.db, {
    id: 'rpc-test',
    name: 'RPC test',
    networks: [
      'eip155:31337',
      'eip155:10',
      'eip155:137',
      'eip155:42161',
      'eip155:8453',
      'eip155:100',
      'eip155:324',
      solanaDevnet,
    ],
  })
  await createProject(testDb.db, { id: 'mainnet-only', name: 'Mainnet', networks: ['eip155:1'] })
  app = createApp({ config: testDb.config, db: testDb.db })
})

afterAll(async () => {
  for (const res of pending) res.destroy()
  upstream?.closeAllConnections()
  await new Promise((resolve) => upstream?.close(resolve))
  await testDb?.close()
})

beforeEach(() => {
  received = []
  receivedText = []
})

function rpc(body: unknown, query = 'chainId=eip155:31337&projectId=rpc-test', path = '/v1/') {
  return app.request(`${path}?${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

async function expectRpcError(response: Response, status: number, code: number, message: RegExp) {
  expect(response.status).toBe(status)
  const body = RpcErrorResponse.parse(await response.json())
  expect(body.error.code).toBe(code)
  expect(body.error.message).toMatch(message)
  return body
}

describe('POST /v1/ (JSON-RPC proxy)', () => {
  test('forwards a request to the chain upstream and returns its answer', async () => {
    const request = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }
    const response = await rpc(request)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/application\/json/)
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
    expect(received).toEqual([request])
  })

  test('also answers on /v1 without the trailing slash', async () => {
    const response = await rpc(
      { jsonrpc: '2.0', id: 'a', method: 'eth_blockNumber' },
      undefined,
      '/v1',
    )
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 'a', result: '0x10' })
  })

  test('forwards a batch', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
      { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] },
    ]
    const response = await rpc(batch)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x7a69' },
      { jsonrpc: '2.0', id: 2, result: '0x10' },
    ])
  })

  test('passes JSON-RPC errors of the node through (e.g. a revert)', async () => {
    const response = await rpc({
      jsonrpc: '2.0',
      id: 7,
      method: 'eth_call',
      params: [{}, 'latest'],
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: 3, message: 'execution reverted' },
    })
  })

  test('forwards non-EVM methods to a non-EVM chain', async () => {
    const response = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'getSlot' },
      `chainId=${solanaDevnet}&projectId=rpc-test`,
    )
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: 42 })
  })

  test('an offered chain without an upstream answers 400 in JSON-RPC form', async () => {
    await expectRpcError(
      await rpc(
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
        'chainId=eip155:324&projectId=rpc-test',
      ),
      400,
      -32602,
      /Unsupported chain 'eip155:324'/,
    )
    await expectRpcError(
      await rpc(
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
        'chainId=toString&projectId=rpc-test',
      ),
      400,
      -32602,
      /chainId/,
    )
    expect(received).toEqual([])
  })

  test('checks the projectId: missing 400, unknown 403', async () => {
    const request = { jsonrpc: '2.0', id: 1, method: 'eth_chainId' }
    await expectRpcError(await rpc(request, 'chainId=eip155:31337'), 400, -32602, /projectId/)
    await expectRpcError(
      await rpc(request, 'chainId=eip155:31337&projectId=nobody'),
      403,
      -32602,
      /Unknown projectId/,
    )
    expect(received).toEqual([])
  })

  test.each([
    ['eth_sendTransaction'],
    ['eth_accounts'],
    ['eth_sign'],
    ['personal_sign'],
    ['anvil_setBalance'],
    ['debug_traceTransaction'],
  ])('refuses %s, which would use the node itself', async (method) => {
    await expectRpcError(
      await rpc({ jsonrpc: '2.0', id: 9, method, params: [] }),
      400,
      -32601,
      new RegExp(`'${method}' is not available`),
    )
    expect(received).toEqual([])
  })

  test('refuses a batch containing one refused method, forwarding nothing', async () => {
    await expectRpcError(
      await rpc([
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
        { jsonrpc: '2.0', id: 2, method: 'anvil_mine' },
      ]),
      400,
      -32601,
      /anvil_mine/,
    )
    expect(received).toEqual([])
  })
})

describe('POST /v1/ when the upstream fails', () => {
  const request = { jsonrpc: '2.0', id: 5, method: 'eth_chainId' }
  const query = (chainId: string) => `chainId=${chainId}&projectId=rpc-test`

  test('an upstream that is down answers 502 with a clear message', async () => {
    const body = await expectRpcError(
      await rpc(request, query('eip155:8453')),
      502,
      -32603,
      /^The RPC endpoint for eip155:8453 is unavailable; try again later$/,
    )
    expect(body.id).toBe(5)
  })

  test('an upstream 500 answers 502 without its body or stack', async () => {
    const response = await rpc(request, query('eip155:10'))
    const text = await response.clone().text()
    await expectRpcError(response, 502, -32603, /failed \(HTTP 500\)/)
    expect(text).not.toMatch(/exploded|secretFunction|internal\.js/)
  })

  test('an upstream answering something other than JSON answers 502', async () => {
    const response = await rpc(request, query('eip155:137'))
    const text = await response.clone().text()
    await expectRpcError(response, 502, -32603, /invalid answer/)
    expect(text).not.toContain('<html>')
  })

  test('an upstream that never answers times out with 504', async () => {
    const impatient = createApp({ config: testDb.config, db: testDb.db, rpcTimeoutMs: 300 })
    const response = await impatient.request(`/v1/?${query('eip155:42161')}`, {
      method: 'POST',
      body: JSON.stringify(request),
    })
    await expectRpcError(response, 504, -32603, /did not answer in time/)
  })

  test('the upstream URL never reaches the client', async () => {
    for (const chainId of ['eip155:10', 'eip155:137', 'eip155:8453']) {
      const text = await (await rpc(request, query(chainId))).text()
      expect(text).not.toMatch(/127\.0\.0\.1|\/fail|\/garbage/)
    }
  })
})

describe('inv-18 POST /v1/ parses strictly', () => {
  test.each([
    [
      'an unknown key',
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId', extra: true },
      /Unrecognized key/,
    ],
    ['a wrong version', { jsonrpc: '1.0', id: 1, method: 'eth_chainId' }, /jsonrpc/],
    ['a missing method', { jsonrpc: '2.0', id: 1 }, /method/],
    ['a bad method name', { jsonrpc: '2.0', id: 1, method: 'eth_chainId; drop' }, /method/],
    ['scalar params', { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: 'x' }, /params/],
    ['an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'eth_chainId' }, /id/],
    ['an empty batch', [], /Invalid JSON-RPC request/],
    ['a scalar body', 42, /Invalid JSON-RPC request/],
    [
      'a batch with one bad request',
      [{ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }, { id: 2 }],
      /1\.jsonrpc/,
    ],
  ])('refuses %s with -32600', async (_, body, message) => {
    await expectRpcError(await rpc(body), 400, -32600, message)
    expect(received).toEqual([])
  })

  test(`refuses a batch of more than ${maxBatchSize}`, async () => {
    const batch = Array.from({ length: maxBatchSize + 1 }, (_, id) => ({
      jsonrpc: '2.0',
      id,
      method: 'eth_chainId',
    }))
    await expectRpcError(await rpc(batch), 400, -32600, /Invalid JSON-RPC request/)
    expect(received).toEqual([])
  })

  test('refuses a body that is not JSON with -32700', async () => {
    await expectRpcError(await rpc('{"jsonrpc":'), 400, -32700, /Parse error/)
  })

  test(`refuses a body over ${maxRpcBodyBytes} bytes with 413`, async () => {
    const big = {
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_sendRawTransaction',
      params: [`0x${'00'.repeat(maxRpcBodyBytes)}`],
    }
    await expectRpcError(await rpc(big), 413, -32600, /at most/)
    expect(received).toEqual([])
  })

  test('a top-level __proto__ is refused; one inside params is forwarded as plain data', async () => {
    await expectRpcError(
      await rpc('{"__proto__":{"polluted":true},"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'),
      400,
      -32600,
      /Unrecognized key/,
    )
    const response = await rpc(
      '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[{"__proto__":{"polluted":true}}]}',
    )
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x10' })
    expect(Object.prototype).not.toHaveProperty('polluted')
  })
})

describe('isMethodAllowed', () => {
  test.each([
    ['eip155:1', 'eth_call', true],
    ['eip155:1', 'eth_sendRawTransaction', true],
    ['eip155:1', 'net_version', true],
    ['eip155:1', 'web3_clientVersion', true],
    ['eip155:1', 'eth_signTypedData_v4', false],
    ['eip155:1', 'eth_coinbase', false],
    ['eip155:1', 'hardhat_reset', false],
    ['eip155:1', 'admin_peers', false],
    ['eip155:1', 'eth_sendUnsignedTransaction', false],
    ['eip155:1', 'eth_sendTransactionSync', false],
    ['eip155:1', 'eth_resend', false],
    ['eip155:1', 'txpool_content', false],
    ['eip155:1', 'eth_newFilter', false],
    ['solana:mainnet', 'getBalance', true],
    ['solana:mainnet', 'requestAirdrop', false],
    ['bip122:000000000019d6689c085ae165831e93', 'getbalance', false],
  ])('%s %s → %s', (chainId, method, allowed) => {
    expect(isMethodAllowed(chainId, method)).toBe(allowed)
  })
})

describe('inv-24 the proxy forwards an exact allow list', () => {
  const victim = '0x00000000000000000000000000000000000b0b0b'
  const thief = '0x000000000000000000000000000000000000dead'
  /** anvil's first dev account, unlocked on the node. */
  const devAccount = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
  let anvil: LocalAnvil
  let anvilApp: Hono

  async function node(method: string, params: unknown[]): Promise<unknown> {
    const response = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    return ((await response.json()) as { result: unknown }).result
  }
  const balances = async () =>
    Promise.all(
      [victim, thief, devAccount].map((address) => node('eth_getBalance', [address, 'latest'])),
    )

  beforeAll(async () => {
    anvil = await startAnvil()
    anvilApp = createApp({
      config: { ...testDb.config, rpcUpstreams: { 'eip155:31337': anvil.url } },
      db: testDb.db,
    })
    await node('anvil_setBalance', [victim, '0x3635c9adc5dea00000'])
  })
  afterAll(async () => {
    await anvil?.stop()
  })

  const move = { from: victim, to: thief, value: '0x3635c9adc5dea00000' }
  const fromDev = { from: devAccount, to: thief, value: '0xde0b6b3a7640000' }
  test.each([
    ['eth_sendUnsignedTransaction', [move]],
    ['eth_sendTransactionSync', [fromDev]],
    ['eth_sendTransaction', [fromDev]],
    ['personal_sendTransaction', [fromDev, '']],
    ['personal_unlockAccount', [devAccount, '', 0]],
    ['txpool_content', []],
    ['anvil_setBalance', [thief, '0x3635c9adc5dea00000']],
    ['anvil_impersonateAccount', [victim]],
    ['evm_mine', []],
    ['admin_nodeInfo', []],
    ['debug_traceTransaction', ['0x00']],
  ])('%s through a real anvil moves nothing and answers -32601', async (method, params) => {
    const before = await balances()
    const response = await anvilApp.request('/v1/?chainId=eip155:31337&projectId=rpc-test', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    await expectRpcError(response, 400, -32601, new RegExp(`'${method}' is not available`))
    expect(await balances()).toEqual(before)
  })

  test('the reads a wallet needs still reach a real anvil', async () => {
    const response = await anvilApp.request('/v1/?chainId=eip155:31337&projectId=rpc-test', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
        { jsonrpc: '2.0', id: 2, method: 'eth_getBalance', params: [victim, 'latest'] },
        { jsonrpc: '2.0', id: 3, method: 'eth_getTransactionCount', params: [victim, 'pending'] },
      ]),
    })
    expect(await response.json()).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x7a69' },
      { jsonrpc: '2.0', id: 2, result: '0x3635c9adc5dea00000' },
      { jsonrpc: '2.0', id: 3, result: '0x0' },
    ])
  })
})

describe('inv-24 the proxy forwards the validated object, not the raw text', () => {
  test('a duplicated method key whose last value is refused is refused, forwarding nothing', async () => {
    const response = await rpc(
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","method":"eth_sendUnsignedTransaction","params":[]}',
    )
    await expectRpcError(response, 400, -32601, /eth_sendUnsignedTransaction/)
    expect(receivedText).toEqual([])
  })

  test('a duplicated method key whose last value is allowed is forwarded with that value only', async () => {
    const response = await rpc(
      '{"jsonrpc":"2.0","id":1,"method":"eth_sendUnsignedTransaction","method":"eth_chainId","params":[]}',
    )
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
    expect(receivedText).toEqual([
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    ])
  })

  test('whitespace and key order of the client never reach the upstream', async () => {
    await rpc('{ "params" : [ ] , "method" : "eth_blockNumber" , "id" : 3 , "jsonrpc" : "2.0" }')
    expect(receivedText).toEqual([
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'eth_blockNumber', params: [] }),
    ])
  })
})

describe('inv-24 a project reaches only the networks it offers', () => {
  const request = { jsonrpc: '2.0', id: 4, method: 'eth_chainId' }

  test('a project offering eip155:1 is refused eip155:31337 although an upstream exists', async () => {
    const body = await expectRpcError(
      await rpc(request, 'chainId=eip155:31337&projectId=mainnet-only'),
      403,
      -32602,
      /does not offer eip155:31337/,
    )
    expect(body.id).toBe(4)
    expect(received).toEqual([])
  })

  test('an unknown chain is refused the same way, naming no upstream', async () => {
    await expectRpcError(
      await rpc(request, 'chainId=eip155:999&projectId=mainnet-only'),
      403,
      -32602,
      /does not offer eip155:999/,
    )
    expect(received).toEqual([])
  })

  test('the same project reaches the network it offers', async () => {
    const response = await rpc(request, 'chainId=eip155:1&projectId=mainnet-only')
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 4, result: '0x7a69' })
  })
})

describe('inv-24 upstream error texts never reach the client', () => {
  const query = 'chainId=eip155:100&projectId=rpc-test'

  test('an error naming internals keeps its code and gets a fixed text', async () => {
    const response = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [] },
      query,
    )
    const text = await response.clone().text()
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: 'The RPC endpoint answered with an error' },
    })
    expect(text).not.toMatch(/internal|KEY123|srv|stack/)
  })

  test.each([
    [
      'a revert keeps its hex revert data and a fixed text',
      'eth_call',
      { code: 3, message: 'execution reverted', data: '0x08c379a0' },
    ],
    [
      'a revert whose data is not hex loses it',
      'eth_estimateGas',
      { code: 3, message: 'execution reverted' },
    ],
    [
      'a well-known transaction error keeps its class only',
      'eth_sendRawTransaction',
      { code: -32000, message: 'nonce too low' },
    ],
  ])('%s', async (_, method, error) => {
    const response = await rpc({ jsonrpc: '2.0', id: 2, method, params: [] }, query)
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 2, error })
  })

  test('each answer of a batch is cleaned', async () => {
    const response = await rpc(
      [
        { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'eth_call', params: [] },
      ],
      query,
    )
    const text = await response.text()
    expect(text).not.toMatch(/internal|KEY123|srv|10\.0\.0\.5/)
    expect(JSON.parse(text)).toHaveLength(2)
  })
})
