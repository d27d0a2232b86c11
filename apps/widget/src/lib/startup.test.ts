import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { recommendedWalletsCount } from '@porthole/protocol/Constants'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createApi, RequestTimeoutError } from './data/api.js'
import { getWallets } from './data/explorer.js'
import { fetchAllowedOrigins, OriginsUnavailableError } from './host/verification.js'
import { earlyAnswers, sendEarly, startupGets, takeArrived, takeEarly } from './startup.js'

let server: Server
let base: string
let seen: string[] = []
let hang = false

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    seen.push(`${url.pathname}${url.search}`)
    if (hang) return
    if (url.searchParams.get('projectId') === 'broken') {
      response.writeHead(500, { 'content-type': 'application/json' })
      return response.end('{"error":{"code":"INTERNAL","message":"down"}}')
    }
    if (url.searchParams.get('projectId') === 'empty') {
      response.writeHead(204)
      return response.end()
    }
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(
      JSON.stringify(
        url.pathname === '/projects/v1/origins'
          ? { allowedOrigins: ['https://shop.example'] }
          : url.pathname === '/getWallets'
            ? { count: 0, data: [] }
            : {},
      ),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => {
  server.closeAllConnections()
  return new Promise<void>((resolve) => server.close(() => resolve()))
})

beforeEach(() => {
  seen = []
  hang = false
})

const api = () => createApi({ baseUrl: base, clientId: () => 'a-visitor' })

describe('the start-up GETs sent early', () => {
  test('the app takes the early answers of its own calls: each GET reaches the API once', async () => {
    for (const get of startupGets('shop')) sendEarly(base, get)
    await expect.poll(() => seen.length).toBe(3)
    expect(await fetchAllowedOrigins('shop', { api: api() })).toEqual(['https://shop.example'])
    expect(
      await getWallets(
        { page: 1, entries: recommendedWalletsCount },
        { api: api(), projectId: 'shop' },
      ),
    ).toEqual({ count: 0, data: [] })
    // Shared answers: no client id in any of them.
    expect(seen).toEqual([
      '/projects/v1/origins?projectId=shop',
      `/getWallets?projectId=shop&st=porthole&sv=4&page=1&entries=${recommendedWalletsCount}`,
      '/appkit/v1/config?projectId=shop',
    ])
    // Taken once: the next call asks the API again.
    await fetchAllowedOrigins('shop', { api: api() })
    expect(seen).toHaveLength(4)
  })

  test('an answer is taken once, and only for its exact URL', () => {
    sendEarly(base, startupGets('once')[0] as never)
    const url = `${base}/projects/v1/origins?projectId=once`
    expect(takeEarly(`${url}&clientId=a-visitor`)).toBeUndefined()
    expect(takeEarly(url)).toBeInstanceOf(Promise)
    expect(takeEarly(url)).toBeUndefined()
  })

  test('a call with the client id (not shared) never takes an early answer', async () => {
    sendEarly(base, { path: '/getWallets', params: { projectId: 'mine' } })
    const mine = () => seen.filter((url) => url.includes('projectId=mine'))
    await expect.poll(() => mine().length).toBe(1)
    await api().get('/getWallets', { params: { projectId: 'mine' } })
    expect(mine()).toEqual([
      '/getWallets?projectId=mine',
      '/getWallets?projectId=mine&clientId=a-visitor',
    ])
  })

  test('an early send after the app asked itself is not sent: no GET twice', async () => {
    await fetchAllowedOrigins('late', { api: api() })
    sendEarly(base, startupGets('late')[0] as never)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(seen.filter((url) => url.includes('projectId=late'))).toHaveLength(1)
  })

  test('inv-17 an early answer that never comes ends in RequestTimeoutError, not a wait forever', async () => {
    hang = true
    const realTimeout = AbortSignal.timeout
    // The early request's own deadline, made short for the test.
    AbortSignal.timeout = () => realTimeout.call(AbortSignal, 200)
    try {
      sendEarly(base, startupGets('slow')[0] as never)
    } finally {
      AbortSignal.timeout = realTimeout
    }
    const error = await fetchAllowedOrigins('slow', {
      api: createApi({ baseUrl: base, clientId: () => 'a-visitor', timeout: 60_000 }),
    }).catch((caught: unknown) => caught)
    // A timeout, as if the app's own call had timed out: the origin check says so
    // (it does not read a failed list as an empty one).
    expect(error).toBeInstanceOf(OriginsUnavailableError)
    expect((error as OriginsUnavailableError).cause).toBeInstanceOf(RequestTimeoutError)
  })

  test('an answer in by the first render is taken whole and parsed there: no request follows', async () => {
    const [origins] = startupGets('ahead')
    sendEarly(base, origins as never)
    await earlyAnswers(5_000)
    const parse = (body: unknown) => (body as { allowedOrigins: string[] }).allowedOrigins
    expect(takeArrived(base, origins as never, parse)).toEqual(['https://shop.example'])
    // Taken: the app's own call asks the API, once.
    expect(takeArrived(base, origins as never, parse)).toBeUndefined()
    await fetchAllowedOrigins('ahead', { api: api() })
    expect(seen.filter((url) => url.includes('projectId=ahead'))).toHaveLength(2)
  })

  test('an answer still on its way is left for the app to wait on', async () => {
    hang = true
    const [origins] = startupGets('pending')
    sendEarly(base, origins as never)
    await expect(earlyAnswers(50)).resolves.toBeUndefined()
    expect(takeArrived(base, origins as never, (body) => body)).toBeUndefined()
    expect(takeEarly(`${base}/projects/v1/origins?projectId=pending`)).toBeInstanceOf(Promise)
  })

  test('a failed or unreadable answer is never painted from; the app gets the failure', async () => {
    const [origins] = startupGets('broken')
    sendEarly(base, origins as never)
    await earlyAnswers(5_000)
    expect(takeArrived(base, origins as never, (body) => body)).toBeUndefined()
    const error = await fetchAllowedOrigins('broken', { api: api() }).catch((caught) => caught)
    expect(error).toBeInstanceOf(OriginsUnavailableError)
    // One request: the app took the early failure.
    expect(seen.filter((url) => url.includes('projectId=broken'))).toHaveLength(1)
    // A body that fails its parse is taken, and reads as none.
    const [again] = startupGets('shape')
    sendEarly(base, again as never)
    await earlyAnswers(5_000)
    const strict = () => {
      throw new Error('not the expected shape')
    }
    expect(takeArrived(base, again as never, strict)).toBeUndefined()
    expect(takeEarly(`${base}/projects/v1/origins?projectId=shape`)).toBeUndefined()
  })

  test('an answer without a body still reaches the app', async () => {
    const [origins] = startupGets('empty')
    sendEarly(base, origins as never)
    const response = await takeEarly(`${base}/projects/v1/origins?projectId=empty`)
    expect(response?.status).toBe(204)
    expect(await response?.text()).toBe('')
  })
})
