import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createApi, HttpError, RequestTimeoutError, requestTimeout } from './api.js'

type Seen = { method: string; url: URL; body: string; contentType: string | undefined }

let server: Server
let baseUrl: string
let seen: Seen[] = []

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => resolve(body))
  })

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    seen.push({
      method: request.method ?? '',
      url,
      body: await readBody(request),
      contentType: request.headers['content-type'],
    })
    const status = Number(url.searchParams.get('status') ?? 200)
    // Accepts the call and never answers.
    if (url.pathname.endsWith('/hang')) return
    // Answers the headers and part of the body, then nothing more.
    if (url.pathname.endsWith('/hang-body')) {
      response.writeHead(200, { 'content-type': 'application/json' })
      return response.write('{"allowedOrigins":')
    }
    if (url.pathname.endsWith('/api-error')) {
      response.writeHead(status, { 'content-type': 'application/json' })
      return response.end(
        JSON.stringify({ error: { code: 'unknown_project', message: "Unknown projectId 'x'" } }),
      )
    }
    if (url.pathname.endsWith('/image')) {
      response.writeHead(status, { 'content-type': 'image/jpeg' })
      return response.end(Buffer.from([0xff, 0xd8, 0xff, 0xd9]))
    }
    if (url.pathname.endsWith('/empty')) {
      response.writeHead(204)
      return response.end()
    }
    response.writeHead(status, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ method: request.method, path: url.pathname }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => {
  // The calls left hanging on purpose hold their connections open.
  server.closeAllConnections()
  return new Promise<void>((resolve) => server.close(() => resolve()))
})

beforeEach(() => {
  seen = []
})

const clientId = '0b4f1ae3-0d36-4f5e-9a49-2f4a9c1d2e77'
const api = () => createApi({ baseUrl, clientId: () => clientId })

describe('createApi', () => {
  test('GET parses JSON and appends clientId and every non-empty param', async () => {
    const result = await api().get('/getWallets', {
      params: {
        projectId: 'porthole-dev',
        page: 2,
        entries: 40,
        certified: false,
        search: '',
        include: [],
        exclude: ['a', 'b'],
        chains: undefined,
        badge_type: null,
      },
    })
    expect(result).toEqual({ method: 'GET', path: '/getWallets' })
    const [request] = seen
    expect(request?.method).toBe('GET')
    expect([...(request?.url.searchParams ?? [])]).toEqual([
      ['projectId', 'porthole-dev'],
      ['page', '2'],
      ['entries', '40'],
      ['certified', 'false'],
      ['exclude', 'a,b'],
      ['clientId', clientId],
    ])
  })

  test('every call carries clientId, even without params', async () => {
    const client = api()
    await client.get('/a')
    await client.post('/b')
    await client.put('/c')
    await client.delete('/d')
    await client.getBlob('/image')
    expect(seen.map((request) => request.url.searchParams.get('clientId'))).toEqual(
      Array(5).fill(clientId),
    )
  })

  test('a shared answer (origins, config, a wallets page) is asked for without the clientId', async () => {
    await api().get('/projects/v1/origins', { params: { projectId: 'p' }, shared: true })
    expect(seen.map((request) => request.url.search)).toEqual(['?projectId=p'])
  })

  test.each(['post', 'put', 'delete'] as const)('%s sends its body as JSON', async (method) => {
    const result = await api()[method]('/e', {
      params: { projectId: 'p' },
      body: { eventId: 'x', props: { n: 1 } },
    })
    expect(result).toEqual({ method: method.toUpperCase(), path: '/e' })
    expect(seen[0]?.method).toBe(method.toUpperCase())
    expect(seen[0]?.contentType).toBe('application/json')
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ eventId: 'x', props: { n: 1 } })
  })

  test('blob GET returns the bytes', async () => {
    const blob = await api().getBlob('/getWalletImage/image')
    expect(blob.type).toBe('image/jpeg')
    expect([...new Uint8Array(await blob.arrayBuffer())]).toEqual([0xff, 0xd8, 0xff, 0xd9])
  })

  test('an empty response body gives undefined', async () => {
    await expect(api().delete('/empty')).resolves.toBeUndefined()
  })

  test.each([400, 403, 404, 429, 500, 503])(
    'a %i status throws "HTTP status code: %i"',
    async (status) => {
      const error = await api()
        .get('/x', { params: { status } })
        .catch((error: unknown) => error)
      expect(error).toBeInstanceOf(HttpError)
      expect((error as HttpError).message).toBe(`HTTP status code: ${status}`)
      expect((error as HttpError).status).toBe(status)
    },
  )

  test('a non-OK blob GET throws too', async () => {
    await expect(api().getBlob('/image', { params: { status: 404 } })).rejects.toThrow(
      'HTTP status code: 404',
    )
  })

  test('keeps a base URL path and tolerates slashes', async () => {
    const client = createApi({ baseUrl: `${baseUrl}/api/`, clientId: () => clientId })
    await client.get('/v1/config')
    expect(seen[0]?.url.pathname).toBe('/api/v1/config')
    expect(client.url('getWalletImage/abc', { projectId: 'p' })).toBe(
      `${baseUrl}/api/getWalletImage/abc?projectId=p&clientId=${clientId}`,
    )
  })

  test('an aborted call rejects', async () => {
    const controller = new AbortController()
    controller.abort()
    await expect(api().get('/x', { signal: controller.signal })).rejects.toThrow()
  })

  test('the API error code of a non-OK response is kept', async () => {
    const error = await api()
      .get('/projects/v1/origins/api-error', { params: { status: 403 } })
      .catch((error: unknown) => error)
    expect(error).toBeInstanceOf(HttpError)
    expect(error).toMatchObject({ status: 403, code: 'unknown_project' })
    expect((error as HttpError).message).toBe('HTTP status code: 403')
  })

  test('a body that is not the API error shape gives no code', async () => {
    const error = await api()
      .get('/x', { params: { status: 403 } })
      .catch((error: unknown) => error)
    expect(error).toMatchObject({ status: 403, code: undefined })
  })
})

describe('inv-17 createApi timeout', () => {
  const timeout = 100
  const hasty = () => createApi({ baseUrl, clientId: () => clientId, timeout })

  test('the default timeout is 15 s', () => {
    expect(requestTimeout).toBe(15_000)
  })

  test.each([
    ['accepts the call and never answers', '/hang'],
    ['sends headers, then never ends the body', '/hang-body'],
  ])('an API that %s rejects with a timeout', async (_, path) => {
    const started = performance.now()
    const error = await hasty()
      .get(path)
      .catch((error: unknown) => error)
    expect(error).toBeInstanceOf(RequestTimeoutError)
    expect((error as RequestTimeoutError).timeout).toBe(timeout)
    expect(performance.now() - started).toBeGreaterThanOrEqual(timeout - 5)
  })

  test('a blob GET times out too', async () => {
    await expect(hasty().getBlob('/hang')).rejects.toBeInstanceOf(RequestTimeoutError)
  })

  test("the caller's abort still ends the call, and is not reported as a timeout", async () => {
    const controller = new AbortController()
    const call = createApi({ baseUrl, clientId: () => clientId, timeout: 60_000 })
      .get('/hang', { signal: controller.signal })
      .catch((error: unknown) => error)
    controller.abort()
    const error = await call
    expect(error).not.toBeInstanceOf(RequestTimeoutError)
    expect((error as Error).name).toBe('AbortError')
  })

  test("with a caller's signal, the timeout still applies", async () => {
    const controller = new AbortController()
    await expect(hasty().get('/hang', { signal: controller.signal })).rejects.toBeInstanceOf(
      RequestTimeoutError,
    )
  })
})
