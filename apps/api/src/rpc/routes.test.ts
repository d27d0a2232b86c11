import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type LocalAnvil, startAnvil } from '@porthole/dev-stack/anvil'
import type { Hono } from 'hono'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import { createApp } from '../app.js'
import { parseTrustedProxies } from '../http/clientIp.js'
import { createProject, rpcBudgetUsage, setProjectHeavyRpc } from '../projects/projects.js'
import {
  isMethodAllowed,
  maxBatchSize,
  maxRpcAnswerBytes,
  maxRpcBodyBytes,
  RpcErrorResponse,
  type RpcLimits,
} from './routes.js'

/**
 * A tiny JSON-RPC node on 127.0.0.1: `/ok` answers, `/fail` 500s, `/garbage`
 * sends HTML, `/slow` never answers, `/leaky` answers errors naming its insides,
 * `/huge` streams a 64 MiB answer at a steady pace (no Content-Length).
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
  if (req.url === '/huge') {
    streamHuge(res)
    return
  }
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify(Array.isArray(body) ? body.map(answer) : answer(body)))
}

/** Bytes of `/huge`'s answer written before the proxy hung up (or it all went). */
let hugeWritten: Promise<number> = Promise.resolve(0)
const hugeTotalBytes = 64 * 1024 * 1024
const hugeChunkBytes = 128 * 1024

/** A JSON answer of 64 MiB, 128 KiB every 2 ms, until done or the reader hangs up. */
function streamHuge(res: ServerResponse) {
  let written = 0
  hugeWritten = new Promise((resolve) => {
    res.on('close', () => resolve(written))
  })
  res.writeHead(200, { 'content-type': 'application/json' })
  res.write('{"jsonrpc":"2.0","id":1,"result":"0x')
  const chunk = '00'.repeat(hugeChunkBytes / 2)
  const timer = setInterval(() => {
    if (res.destroyed || written >= hugeTotalBytes) {
      clearInterval(timer)
      if (!res.destroyed) res.end('"}')
      return
    }
    written += chunk.length
    res.write(chunk)
  }, 2)
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
      'eip155:56': `${base}/huge`,
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
      'eip155:56',
      'eip155:324',
      solanaDevnet,
    ],
  })
  await createProject(testDb.db, { id: 'mainnet-only', name: 'Mainnet', networks: ['eip155:1'] })
  await createProject(testDb.db, {
    id: 'heavy',
    name: 'Heavy calls on',
    networks: ['eip155:31337', 'eip155:56'],
  })
  await setProjectHeavyRpc(testDb.db, 'heavy', true)
  await createProject(testDb.db, { id: 'other', name: 'Another', networks: ['eip155:42161'] })
  await createProject(testDb.db, { id: 'budgeted', name: 'Budget', networks: ['eip155:1'] })
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

/** An eth_getLogs request over `filter`. */
const getLogs = (filter: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 5,
  method: 'eth_getLogs',
  params: [filter],
})

/** eth_getLogs over `filter` is refused as too wide (-32602), and nothing reaches the node. */
async function expectLogsSpanRefused(filter: Record<string, unknown>): Promise<void> {
  await expectRpcError(
    await rpc(getLogs(filter)),
    400,
    -32602,
    /eth_getLogs may span at most 1000 blocks.*narrower range/,
  )
  expect(received).toEqual([])
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

/** An app whose clients are told apart by `X-Forwarded-For` from the proxy 10.0.0.1. */
function behindProxy(
  rpcLimits: Partial<RpcLimits>,
  rpcTimeoutMs?: number,
  onWarning?: (line: string) => void,
) {
  const proxied = createApp({
    config: { ...testDb.config, trustedProxies: parseTrustedProxies('10.0.0.0/8') },
    db: testDb.db,
    rpcLimits,
    rpcTimeoutMs,
    onWarning,
  })
  return (
    ip: string,
    body: unknown = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' },
    query = 'chainId=eip155:31337&projectId=rpc-test',
  ) =>
    proxied.request(
      `/v1/?${query}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
        body: JSON.stringify(body),
      },
      { incoming: { socket: { remoteAddress: '10.0.0.1' } } },
    )
}

/** `PUSH4 size PUSH1 0 RETURN`: code that returns `size` zero bytes. */
const returnsBytes = (size: number) => `0x63${size.toString(16).padStart(8, '0')}6000f3`
const contract = '0x00000000000000000000000000000000000000aa'
/** eth_call with a state override: the contract's code answers `size` bytes. */
const bigCall = (size: number) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'eth_call',
  params: [
    { to: contract, gas: '0xffffffff' },
    'latest',
    { [contract]: { code: returnsBytes(size) } },
  ],
})

describe('inv-24 answers are bounded in size (issue 11 §2)', () => {
  let anvil: LocalAnvil
  let anvilApp: Hono

  beforeAll(async () => {
    anvil = await startAnvil()
    anvilApp = createApp({
      config: { ...testDb.config, rpcUpstreams: { 'eip155:31337': anvil.url } },
      db: testDb.db,
    })
  })
  afterAll(async () => {
    await anvil?.stop()
  })

  const call = (body: unknown, projectId = 'heavy') =>
    anvilApp.request(`/v1/?chainId=eip155:31337&projectId=${projectId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  test(`a real anvil's answer over ${maxRpcAnswerBytes} bytes is refused with a JSON-RPC error`, async () => {
    // 3 MiB returned: an answer of 6 MiB of hex, from a 300-byte request.
    const response = await call(bigCall(3 * 1024 * 1024))
    const text = await response.clone().text()
    expect(text.length).toBeLessThan(1024)
    const body = await expectRpcError(response, 502, -32603, /larger than 2 MiB/)
    expect(body.id).toBe(1)
  })

  test('an answer under the cap passes as it came', async () => {
    const response = await call(bigCall(64 * 1024))
    expect(response.status).toBe(200)
    const { result } = (await response.json()) as { result: string }
    expect(result).toBe(`0x${'00'.repeat(64 * 1024)}`)
  })

  test('an answer without a length is read as a stream and cut at the cap, not buffered whole', async () => {
    const started = Date.now()
    const response = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' },
      'chainId=eip155:56&projectId=heavy',
    )
    await expectRpcError(response, 502, -32603, /larger than 2 MiB/)
    // The proxy hung up once past the cap: the node sent little more than it.
    const written = await hugeWritten
    expect(written).toBeGreaterThan(maxRpcAnswerBytes - hugeChunkBytes)
    expect(written).toBeLessThan(maxRpcAnswerBytes + 16 * hugeChunkBytes)
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  test('a state override on a real anvil is refused unless the project turned heavy calls on', async () => {
    await expectRpcError(
      await call(bigCall(32), 'rpc-test'),
      400,
      -32602,
      /overrides are off for project 'rpc-test'.*set-features --id rpc-test --heavy-rpc true/,
    )
    const allowed = await call(bigCall(32), 'heavy')
    expect(await allowed.json()).toEqual({ jsonrpc: '2.0', id: 1, result: `0x${'00'.repeat(32)}` })
  })
})

describe('inv-24 heavy parameters are refused unless the project turns them on', () => {
  const tx = { to: contract, data: '0x' }
  test.each([
    [
      'eth_call with a state override',
      'eth_call',
      [tx, 'latest', { [contract]: { code: '0x00' } }],
    ],
    ['eth_call with block overrides', 'eth_call', [tx, 'latest', null, { number: '0x1' }]],
    ['eth_estimateGas with a state override', 'eth_estimateGas', [tx, 'latest', {}]],
  ])('%s: -32602, nothing forwarded', async (_, method, params) => {
    const body = await expectRpcError(
      await rpc({ jsonrpc: '2.0', id: 3, method, params }),
      400,
      -32602,
      /overrides are off for project 'rpc-test'/,
    )
    expect(body.id).toBe(3)
    expect(received).toEqual([])
  })

  test('the same call without overrides is forwarded', async () => {
    await rpc({ jsonrpc: '2.0', id: 3, method: 'eth_call', params: [tx, 'latest'] })
    await rpc({ jsonrpc: '2.0', id: 4, method: 'eth_estimateGas', params: [tx] })
    expect(received).toHaveLength(2)
  })

  test('one override in a batch refuses the whole batch', async () => {
    await expectRpcError(
      await rpc([
        { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' },
        { jsonrpc: '2.0', id: 2, method: 'eth_call', params: [tx, 'latest', {}] },
      ]),
      400,
      -32602,
      /overrides/,
    )
    expect(received).toEqual([])
  })

  test.each([
    ['2,001 numbered blocks', { fromBlock: '0x0', toBlock: '0x7d0' }],
    ['earliest to latest', { fromBlock: 'earliest', toBlock: 'latest' }],
    ['earliest with no end', { fromBlock: 'earliest' }],
    ['a reversed range wider than the bound', { fromBlock: '0x7d0', toBlock: '0x0' }],
  ])('eth_getLogs over %s is refused with -32602', async (_, filter) => {
    await expectLogsSpanRefused(filter)
  })

  test.each([
    ['1,000 numbered blocks', { fromBlock: '0x1', toBlock: '0x3e8' }],
    ['a block hash', { blockHash: `0x${'ab'.repeat(32)}` }],
    ['the latest block', { fromBlock: 'latest', toBlock: 'latest' }],
    ['no range (the latest block)', { address: contract }],
    ['a number to latest, near the head', { fromBlock: '0x1' }],
  ])('eth_getLogs over %s is forwarded', async (_, filter) => {
    const response = await rpc(getLogs(filter))
    expect(response.status).toBe(200)
    expect(received.at(-1)).toEqual(getLogs(filter))
  })

  test('the heavy project may ask for any range', async () => {
    const response = await rpc(
      getLogs({ fromBlock: 'earliest', toBlock: 'latest' }),
      'chainId=eip155:31337&projectId=heavy',
    )
    expect(response.status).toBe(200)
    expect(received).toHaveLength(1)
  })
})

describe('inv-24 upstream calls are bounded in concurrency', () => {
  const slow = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }

  test('past the per-project cap: 429 with Retry-After: 1, and the slot is freed after', async () => {
    const post = behindProxy({ concurrentPerProject: 2 }, 400)
    const query = 'chainId=eip155:42161&projectId=rpc-test'
    // One caller fills the cap; the per-project cap applies to callers with a call in flight.
    const first = [post('198.51.100.1', slow, query), post('198.51.100.1', slow, query)]
    await new Promise((resolve) => setTimeout(resolve, 50))
    const third = await post('198.51.100.1', slow, query)
    await expectRpcError(
      third,
      429,
      -32005,
      /Too many RPC calls in progress for project 'rpc-test'/,
    )
    expect(third.headers.get('retry-after')).toBe('1')
    // The cap is per project, whatever the chain.
    expect(
      (await post('198.51.100.1', slow, 'chainId=eip155:31337&projectId=rpc-test')).status,
    ).toBe(429)
    const statuses = await Promise.all(first).then((all) => all.map((r) => r.status))
    expect(statuses).toEqual([504, 504])
    expect((await post('198.51.100.3')).status).toBe(200)
  })

  test('past the per-process cap: 429 for every project', async () => {
    const post = behindProxy({ concurrentPerProcess: 1 }, 400)
    const pendingCall = post('198.51.100.4', slow, 'chainId=eip155:42161&projectId=rpc-test')
    await new Promise((resolve) => setTimeout(resolve, 50))
    const other = await post('198.51.100.5', slow, 'chainId=eip155:42161&projectId=other')
    await expectRpcError(other, 429, -32005, /Too many RPC calls in progress on this server/)
    expect(other.headers.get('retry-after')).toBe('1')
    expect((await pendingCall).status).toBe(504)
  })
})

describe('inv-22 per-IP and per-prefix limits on the proxy', () => {
  test('past the per-IP limit: 429 with Retry-After and -32005; another address is served', async () => {
    const post = behindProxy({ ip: { limit: 5, windowSeconds: 60 } })
    for (let i = 0; i < 5; i++) expect((await post('198.51.100.10')).status).toBe(200)
    const refused = await post('198.51.100.10')
    const body = await expectRpcError(refused, 429, -32005, /Too many RPC calls from this address/)
    expect(body.id).toBe(1)
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    // The window slides: the five calls still weigh on the next fixed window
    // until a fifth of it has passed, so the wait is at most 60 + 60 / 5 s,
    // the longest when the calls fell at the start of a window.
    expect(retryAfter).toBeLessThanOrEqual(72)
    expect((await post('198.51.100.11')).status).toBe(200)
  })

  test('each call of a batch counts', async () => {
    const post = behindProxy({ ip: { limit: 5, windowSeconds: 60 } })
    const call = { jsonrpc: '2.0', method: 'eth_blockNumber' }
    const batch = (n: number) => Array.from({ length: n }, (_, id) => ({ ...call, id }))
    expect((await post('198.51.100.12', batch(4))).status).toBe(200)
    expect((await post('198.51.100.12', batch(2))).status).toBe(429)
  })

  test('past the per-prefix limit, a new address of the same /24 is refused, another /24 is not', async () => {
    const post = behindProxy({
      ip: { limit: 5, windowSeconds: 60 },
      prefix: { limit: 8, windowSeconds: 60 },
    })
    for (let host = 1; host <= 8; host++) expect((await post(`203.0.113.${host}`)).status).toBe(200)
    const refused = await post('203.0.113.99')
    await expectRpcError(refused, 429, -32005, /from this network/)
    expect((await post('203.0.114.1')).status).toBe(200)
  })

  test('the limit holds across API replicas', async () => {
    const replica = createApp({
      config: { ...testDb.config, trustedProxies: parseTrustedProxies('10.0.0.0/8') },
      db: await testDb.openReplica(),
      rpcLimits: { ip: { limit: 4, windowSeconds: 60 } },
    })
    const post = behindProxy({ ip: { limit: 4, windowSeconds: 60 } })
    const onReplica = () =>
      replica.request(
        '/v1/?chainId=eip155:31337&projectId=rpc-test',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.13' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }),
        },
        { incoming: { socket: { remoteAddress: '10.0.0.1' } } },
      )
    for (let i = 0; i < 2; i++) {
      expect((await post('198.51.100.13')).status).toBe(200)
      expect((await onReplica()).status).toBe(200)
    }
    expect((await onReplica()).status).toBe(429)
    expect((await post('198.51.100.13')).status).toBe(429)
  })
})

describe('inv-22 a spent project budget sheds the abuser, not a fresh visitor', () => {
  test('an abuser spending the budget from many addresses is shed; a fresh address is served', async () => {
    const warnings: string[] = []
    // Long windows, so that none ends during the test.
    const post = behindProxy(
      {
        ip: { limit: 20, windowSeconds: 3600 },
        prefix: { limit: 80, windowSeconds: 3600 },
        projectBudget: { limit: 100, windowSeconds: 86_400 },
      },
      undefined,
      (line) => warnings.push(line),
    )
    const query = 'chainId=eip155:1&projectId=budgeted'
    const call = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }
    // Ten addresses in five /24s, ten calls each: the budget of 100 is spent,
    // every address within its own limit of 20.
    const abusers = Array.from({ length: 10 }, (_, i) => `192.0.${i % 5}.${10 + i}`)
    for (const ip of abusers)
      for (let i = 0; i < 10; i++) expect((await post(ip, call, query)).status).toBe(200)
    // Now spent: the limits are a quarter (5 per address, 20 per /24). Each
    // abuser has used 10, each of their /24s 20: all shed.
    for (const ip of abusers) expect((await post(ip, call, query)).status).toBe(429)
    expect((await post('192.0.0.200', call, query)).status).toBe(429)
    // A visitor from a fresh address is served, up to the tightened limit.
    for (let i = 0; i < 5; i++) {
      const response = await post('198.18.0.200', call, query)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x10' })
    }
    expect((await post('198.18.0.200', call, query)).status).toBe(429)
    // The operator was told once, naming the project; the overflow is counted.
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/RPC budget of project 'budgeted' is spent/)
    const usage = await rpcBudgetUsage(testDb.db, 'budgeted')
    expect(usage.windowsOver).toBe(1)
    expect(usage.callsOver).toBe(5)
  })
})

describe('inv-24 eth_getLogs filters are rebuilt strictly (key case cannot widen a range)', () => {
  const logs = (filter: string) =>
    `{"jsonrpc":"2.0","id":6,"method":"eth_getLogs","params":[${filter}]}`
  test.each([
    ['capitalised keys', '{"FromBlock":"earliest","ToBlock":"latest"}'],
    ['a lower-case key', '{"fromblock":"earliest"}'],
    [
      'a second toBlock in another case',
      '{"fromBlock":"0x0","toBlock":"0x3e7","ToBlock":"latest"}',
    ],
    ['a Kelvin-sign key, which Go folds to k', '{"fromBloc\u212a":"earliest"}'],
  ])('%s: -32602, nothing forwarded', async (_, filter) => {
    const body = await expectRpcError(
      await rpc(logs(filter)),
      400,
      -32602,
      /eth_getLogs filter may only have the keys blockHash, fromBlock, toBlock, address, topics/,
    )
    expect(body.id).toBe(6)
    expect(receivedText).toEqual([])
  })

  test('a filter of known keys is forwarded as the rebuilt object', async () => {
    const response = await rpc(logs('{"toBlock":"0x3e7","fromBlock":"0x0","topics":[null]}'))
    expect(response.status).toBe(200)
    expect(receivedText).toEqual([
      JSON.stringify({
        jsonrpc: '2.0',
        id: 6,
        method: 'eth_getLogs',
        params: [{ fromBlock: '0x0', toBlock: '0x3e7', topics: [null] }],
      }),
    ])
  })

  test('a heavy project gets the same strict filter', async () => {
    await expectRpcError(
      await rpc(logs('{"FromBlock":"earliest"}'), 'chainId=eip155:31337&projectId=heavy'),
      400,
      -32602,
      /may only have the keys/,
    )
    expect(receivedText).toEqual([])
  })
})

describe('inv-24 eth_getLogs from safe or finalized is not judged as one block', () => {
  test.each([
    ['finalized to latest', { fromBlock: 'finalized', toBlock: 'latest' }],
    ['safe with no end (latest)', { fromBlock: 'safe' }],
    ['safe to finalized', { fromBlock: 'safe', toBlock: 'finalized' }],
    ['earliest to finalized', { fromBlock: 'earliest', toBlock: 'finalized' }],
  ])('%s is refused with -32602', async (_, filter) => {
    await expectLogsSpanRefused(filter)
  })

  test.each([
    ['finalized to finalized', { fromBlock: 'finalized', toBlock: 'finalized' }],
    // The test node's head is 0x10: finalized is somewhere in 0..16.
    ['a number to safe on a short chain', { fromBlock: '0x1', toBlock: 'safe' }],
  ])('%s is forwarded', async (_, filter) => {
    const response = await rpc(getLogs(filter))
    expect(response.status).toBe(200)
    expect(received.at(-1)).toEqual(getLogs(filter))
  })
})

describe('inv-24 eth_call gas is capped unless the project turns heavy calls on', () => {
  /** A keccak loop with no `to`: burns all the gas it is given. */
  const loop = (tx: string) =>
    `{"jsonrpc":"2.0","id":8,"method":"eth_call","params":[${tx},"latest"]}`
  test.each([
    ['eth_call with gas 0xffffffff', loop('{"data":"0x5b6180005f20505f56","gas":"0xffffffff"}')],
    [
      'eth_estimateGas with gas 0xffffffff',
      '{"jsonrpc":"2.0","id":8,"method":"eth_estimateGas","params":[{"gas":"0xffffffff"}]}',
    ],
    ['gas spelled GAS', loop('{"data":"0x5b6180005f20505f56","gas":"0x1","GAS":"0xffffffff"}')],
    ['gas spelled with a long s, which Go folds to s', loop('{"ga\u017f":"0xffffffff"}')],
    ['gas that is not a hex quantity', loop('{"gas":4294967295}')],
  ])('%s: -32602, nothing forwarded', async (_, body) => {
    const refused = await expectRpcError(await rpc(body), 400, -32602, /gas/)
    expect(refused.id).toBe(8)
    expect(receivedText).toEqual([])
  })

  test('gas up to the cap is forwarded; a heavy project may ask for more', async () => {
    expect((await rpc(loop('{"gas":"0x2faf080"}'))).status).toBe(200)
    const heavy = await rpc(
      loop('{"data":"0x5b6180005f20505f56","gas":"0xffffffff"}'),
      'chainId=eip155:31337&projectId=heavy',
    )
    expect(heavy.status).toBe(200)
    expect(receivedText).toHaveLength(2)
  })
})

describe('inv-24 in-flight caps per address and per network, and a fair per-project cap', () => {
  const slow = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }
  const slowQuery = 'chainId=eip155:42161&projectId=rpc-test'
  const wait = () => new Promise((resolve) => setTimeout(resolve, 50))

  test('one address past its in-flight cap gets 429; a neighbour is still served', async () => {
    const post = behindProxy({ concurrentPerIp: 2 }, 400)
    const first = [post('100.64.1.1', slow, slowQuery), post('100.64.1.1', slow, slowQuery)]
    await wait()
    const third = await post('100.64.1.1', slow, slowQuery)
    await expectRpcError(third, 429, -32005, /in progress from this address/)
    expect(third.headers.get('retry-after')).toBe('1')
    expect((await post('100.64.1.2')).status).toBe(200)
    expect(await Promise.all(first).then((all) => all.map((r) => r.status))).toEqual([504, 504])
  })

  test('one network past its in-flight cap gets 429; another network is served', async () => {
    const post = behindProxy({ concurrentPerIp: 2, concurrentPerPrefix: 3 }, 400)
    const first = [
      post('100.64.2.1', slow, slowQuery),
      post('100.64.2.1', slow, slowQuery),
      post('100.64.2.2', slow, slowQuery),
    ]
    await wait()
    const fourth = await post('100.64.2.3')
    await expectRpcError(fourth, 429, -32005, /in progress from this network/)
    expect(fourth.headers.get('retry-after')).toBe('1')
    expect((await post('100.64.3.1')).status).toBe(200)
    await Promise.all(first)
  })

  test('a full per-project cap refuses the callers filling it, not a fresh address', async () => {
    const post = behindProxy({ concurrentPerProject: 2 }, 400)
    const first = [post('100.64.4.1', slow, slowQuery), post('100.64.4.1', slow, slowQuery)]
    await wait()
    await expectRpcError(
      await post('100.64.4.1'),
      429,
      -32005,
      /in progress for project 'rpc-test'/,
    )
    const fresh = await post('100.64.5.1')
    expect(fresh.status).toBe(200)
    expect(await fresh.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x10' })
    await Promise.all(first)
  })
})

describe('inv-22 refused calls do not count against the neighbours', () => {
  test("an address over its limit does not spend its /24's limit", async () => {
    const post = behindProxy({
      ip: { limit: 2, windowSeconds: 3600 },
      prefix: { limit: 4, windowSeconds: 3600 },
    })
    for (let i = 0; i < 2; i++) expect((await post('100.64.6.1')).status).toBe(200)
    for (let i = 0; i < 10; i++) expect((await post('100.64.6.1')).status).toBe(429)
    for (let i = 0; i < 2; i++) expect((await post('100.64.6.2')).status).toBe(200)
    expect((await post('100.64.6.3')).status).toBe(429)
  })
})

describe('inv-22 the proxy’s Retry-After is right', () => {
  test('a caller who waits as told is served, however often it was refused meanwhile', async () => {
    const post = behindProxy({ ip: { limit: 2, windowSeconds: 1 } })
    const ip = '100.64.7.1'
    for (let i = 0; i < 2; i++) expect((await post(ip)).status).toBe(200)
    const refused = await post(ip)
    expect(refused.status).toBe(429)
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    const again = await post(ip)
    expect(again.status).toBe(429)
    expect(Number(again.headers.get('retry-after'))).toBeLessThanOrEqual(retryAfter)
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000))
    expect((await post(ip)).status).toBe(200)
  })
})
