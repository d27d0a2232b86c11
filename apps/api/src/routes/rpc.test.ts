import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Hono } from 'hono'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createApp } from '../app.js'
import { createTestDb, type TestDb } from '../db/testing.js'
import { isMethodAllowed, maxBatchSize, maxRpcBodyBytes, RpcErrorResponse } from './rpc.js'

/** A tiny JSON-RPC node on 127.0.0.1: `/ok` answers, `/fail` 500s, `/garbage` sends HTML, `/slow` never answers. */
let upstream: Server
let received: unknown[] = []
let testDb: TestDb
let app: Hono
const pending: ServerResponse[] = []

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

async function handle(req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as
    | { id?: unknown; method: string }
    | { id?: unknown; method: string }[]
  received.push(body)
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
      'eip155:1': `${base}/fail`,
      'eip155:2': `${base}/garbage`,
      'eip155:3': `${base}/slow`,
      'eip155:4': `http://127.0.0.1:${closedPort}/`,
      'solana:devnet': `${base}/ok`,
    },
  })
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
})

function rpc(body: unknown, query = 'chainId=eip155:31337&projectId=porthole-dev', path = '/v1/') {
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
      'chainId=solana:devnet&projectId=porthole-dev',
    )
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: 42 })
  })

  test('an unknown chain answers 400 in JSON-RPC form', async () => {
    await expectRpcError(
      await rpc(
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
        'chainId=eip155:999&projectId=porthole-dev',
      ),
      400,
      -32602,
      /Unsupported chain 'eip155:999'/,
    )
    await expectRpcError(
      await rpc(
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
        'chainId=toString&projectId=porthole-dev',
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
  const query = (chainId: string) => `chainId=${chainId}&projectId=porthole-dev`

  test('an upstream that is down answers 502 with a clear message', async () => {
    const body = await expectRpcError(
      await rpc(request, query('eip155:4')),
      502,
      -32603,
      /^The RPC endpoint for eip155:4 is unavailable; try again later$/,
    )
    expect(body.id).toBe(5)
  })

  test('an upstream 500 answers 502 without its body or stack', async () => {
    const response = await rpc(request, query('eip155:1'))
    const text = await response.clone().text()
    await expectRpcError(response, 502, -32603, /failed \(HTTP 500\)/)
    expect(text).not.toMatch(/exploded|secretFunction|internal\.js/)
  })

  test('an upstream answering something other than JSON answers 502', async () => {
    const response = await rpc(request, query('eip155:2'))
    const text = await response.clone().text()
    await expectRpcError(response, 502, -32603, /invalid answer/)
    expect(text).not.toContain('<html>')
  })

  test('an upstream that never answers times out with 504', async () => {
    const impatient = createApp({ config: testDb.config, db: testDb.db, rpcTimeoutMs: 300 })
    const response = await impatient.request(`/v1/?${query('eip155:3')}`, {
      method: 'POST',
      body: JSON.stringify(request),
    })
    await expectRpcError(response, 504, -32603, /did not answer in time/)
  })

  test('the upstream URL never reaches the client', async () => {
    for (const chainId of ['eip155:1', 'eip155:2', 'eip155:4']) {
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
    ['solana:mainnet', 'getBalance', true],
  ])('%s %s → %s', (chainId, method, allowed) => {
    expect(isMethodAllowed(chainId, method)).toBe(allowed)
  })
})
