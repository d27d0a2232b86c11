import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest'
import { type Api, createApi, HttpError, RequestTimeoutError } from '../data/api.js'
import { createStore, initialState, type WidgetState } from '../state/store.js'
import {
  fetchAllowedOrigins,
  OriginsUnavailableError,
  prefetchAllowedOrigins,
  readAncestorOrigins,
  runVerification,
  verifyHost,
} from './verification.js'

/** An API whose origins call answers `respond()` (a value, or a thrown error). */
function originsApi(respond: () => unknown): Api & { calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    url: (path) => path,
    get: async (path, options) => {
      calls.push(`${path}?projectId=${options?.params?.projectId}`)
      return respond()
    },
    getBlob: async () => new Blob(),
    post: async () => undefined,
    put: async () => undefined,
    delete: async () => undefined,
  }
}

const failWith = (status: number, code?: string) => () => {
  throw new HttpError(status, code)
}

describe('fetchAllowedOrigins', () => {
  test('reads the project allow list', async () => {
    const api = originsApi(() => ({ allowedOrigins: ['http://127.0.0.1:5170'] }))
    await expect(fetchAllowedOrigins('porthole-dev', { api })).resolves.toEqual([
      'http://127.0.0.1:5170',
    ])
    expect(api.calls).toEqual(['/projects/v1/origins?projectId=porthole-dev'])
  })

  test('HTTP 429 throws RATE_LIMITED', async () => {
    const error = await fetchAllowedOrigins('p', { api: originsApi(failWith(429)) }).catch(
      (error: unknown) => error,
    )
    expect(error).toBeInstanceOf(OriginsUnavailableError)
    expect((error as OriginsUnavailableError).reason).toBe('RATE_LIMITED')
  })

  test('inv-17 a timeout throws SERVER_ERROR, not an empty list', async () => {
    const api = originsApi(() => {
      throw new RequestTimeoutError(15_000)
    })
    const error = await fetchAllowedOrigins('p', { api }).catch((error: unknown) => error)
    expect(error).toBeInstanceOf(OriginsUnavailableError)
    expect((error as OriginsUnavailableError).reason).toBe('SERVER_ERROR')
  })

  test('a 403 unknown_project throws UNKNOWN_PROJECT, not an empty list', async () => {
    const api = originsApi(failWith(403, 'unknown_project'))
    const error = await fetchAllowedOrigins('no-such-project', { api }).catch(
      (error: unknown) => error,
    )
    expect(error).toBeInstanceOf(OriginsUnavailableError)
    expect((error as OriginsUnavailableError).reason).toBe('UNKNOWN_PROJECT')
  })

  test.each([500, 502, 503, 504])('HTTP %i throws SERVER_ERROR', async (status) => {
    const error = await fetchAllowedOrigins('p', { api: originsApi(failWith(status)) }).catch(
      (error: unknown) => error,
    )
    expect((error as OriginsUnavailableError).reason).toBe('SERVER_ERROR')
  })

  test.each([
    ['HTTP 400', failWith(400)],
    ['HTTP 403', failWith(403)],
    ['HTTP 403 with another code', failWith(403, 'forbidden')],
    ['HTTP 404 unknown_project', failWith(404, 'unknown_project')],
    ['HTTP 404', failWith(404)],
    [
      'a network error',
      () => {
        throw new TypeError('Failed to fetch')
      },
    ],
    ['a malformed body', () => ({ allowedOrigins: 'http://127.0.0.1:5170' })],
    ['an extra key', () => ({ allowedOrigins: [], admin: true })],
  ])('%s gives an empty list', async (_, respond) => {
    await expect(fetchAllowedOrigins('p', { api: originsApi(respond) })).resolves.toEqual([])
  })
})

describe('verifyHost', () => {
  const listed = originsApi(() => ({ allowedOrigins: ['http://127.0.0.1:5170'] }))
  test.each([
    ['a listed origin', 'http://127.0.0.1:5170', listed, 'verified'],
    ['an unlisted origin', 'http://evil.localhost:5170', listed, 'unverified'],
    ['another port', 'http://127.0.0.1:5171', listed, 'unverified'],
    [
      'a dev default, empty list',
      'http://evil.localhost:5170',
      originsApi(failWith(404)),
      'verified',
    ],
    ['a real site, empty list', 'https://example.com', originsApi(failWith(404)), 'unverified'],
    ['rate limited', 'http://127.0.0.1:5170', originsApi(failWith(429)), 'rate_limited'],
    ['server error', 'http://127.0.0.1:5170', originsApi(failWith(500)), 'server_error'],
    [
      'unknown project, dev default',
      'http://evil.localhost:5170',
      originsApi(failWith(403, 'unknown_project')),
      'unknown_project',
    ],
  ] as const)('%s: %s is %s', async (_, origin, api, expected) => {
    await expect(verifyHost(origin, 'p', { api })).resolves.toMatchObject({
      verification: expected,
    })
  })
})

describe('inv-04 verifyHost with ancestors (nested framing)', () => {
  const listed = originsApi(() => ({ allowedOrigins: ['http://127.0.0.1:5170'] }))
  const empty = originsApi(() => ({ allowedOrigins: [] }))

  test.each([
    ['an allowed parent, nothing above', listed, [], 'verified', null],
    ['an allowed parent, itself at top level', listed, ['http://127.0.0.1:5170'], 'verified', null],
    [
      'an allowed parent framed by an unlisted site',
      listed,
      ['http://127.0.0.1:5170', 'http://evil.localhost:5170'],
      'unverified',
      'http://evil.localhost:5170',
    ],
    [
      'an unlisted site between the parent and an allowed top',
      listed,
      ['http://127.0.0.1:5170', 'https://evil.example', 'http://127.0.0.1:5170'],
      'unverified',
      'https://evil.example',
    ],
    [
      'an opaque ancestor (sandboxed)',
      listed,
      ['http://127.0.0.1:5170', 'null'],
      'unverified',
      'null',
    ],
    [
      'empty list: a real site above a dev default',
      empty,
      ['http://127.0.0.1:5170', 'https://evil.example'],
      'unverified',
      'https://evil.example',
    ],
    [
      'empty list: dev defaults all the way up',
      empty,
      ['http://127.0.0.1:5170', 'http://evil.localhost:5170'],
      'verified',
      null,
    ],
  ] as const)('%s: %s', async (_, api, ancestorOrigins, verification, refusedOrigin) => {
    await expect(
      verifyHost('http://127.0.0.1:5170', 'p', { api, ancestorOrigins }),
    ).resolves.toEqual({ verification, refusedOrigin })
  })

  test('an unlisted host is named before its ancestors', async () => {
    await expect(
      verifyHost('http://evil.localhost:5170', 'p', {
        api: listed,
        ancestorOrigins: ['http://evil.localhost:5170', 'https://other.example'],
      }),
    ).resolves.toEqual({ verification: 'unverified', refusedOrigin: 'http://evil.localhost:5170' })
  })
})

describe('readAncestorOrigins', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  test('every ancestor, parent first, where the browser reports them (Chromium)', () => {
    vi.stubGlobal('location', {
      ancestorOrigins: ['http://127.0.0.1:5170', 'http://evil.localhost:5170'],
    })
    expect(readAncestorOrigins()).toEqual(['http://127.0.0.1:5170', 'http://evil.localhost:5170'])
  })

  test('none where it does not (Firefox), nor outside a browser', () => {
    vi.stubGlobal('location', {})
    expect(readAncestorOrigins()).toEqual([])
    vi.unstubAllGlobals()
    expect(readAncestorOrigins()).toEqual([])
  })
})

const storeWith = (patch: Partial<WidgetState>) => createStore({ ...initialState, ...patch })

describe('runVerification', () => {
  test('the first check takes the read started at start-up; Retry reads again', async () => {
    const target = storeWith({ hostOrigin: 'https://shop.example', projectId: 'porthole-dev' })
    let allowed = ['https://shop.example']
    const api = originsApi(() => ({ allowedOrigins: allowed }))
    prefetchAllowedOrigins('porthole-dev', { api })
    expect(api.calls).toHaveLength(1)
    await runVerification({ api, target })
    expect(api.calls).toHaveLength(1)
    expect(target.getState().verification).toBe('verified')
    // inv-04: a removed origin is refused at the next check, never from the old read.
    allowed = []
    await runVerification({ api, target })
    expect(api.calls).toHaveLength(2)
    expect(target.getState().verification).toBe('unverified')
  })

  test("inv-04: a start-up read for another project is not used for this one's check", async () => {
    const target = storeWith({ hostOrigin: 'https://shop.example', projectId: 'porthole-dev' })
    const other = originsApi(() => ({ allowedOrigins: ['https://shop.example'] }))
    prefetchAllowedOrigins('other-project', { api: other })
    const api = originsApi(() => ({ allowedOrigins: [] }))
    await runVerification({ api, target })
    expect(api.calls).toEqual(['/projects/v1/origins?projectId=porthole-dev'])
    expect(target.getState().verification).toBe('unverified')
  })

  test('a verified host gets wallet features and no alert', async () => {
    const target = storeWith({ hostOrigin: 'http://127.0.0.1:5170', projectId: 'porthole-dev' })
    const api = originsApi(() => ({ allowedOrigins: ['http://127.0.0.1:5170'] }))
    await runVerification({ api, target })
    expect(target.getState().verification).toBe('verified')
    expect(target.getState().alerts).toEqual([])
  })

  test('an unlisted host gets UNVERIFIED_DOMAIN naming its origin', async () => {
    const target = storeWith({
      hostOrigin: 'http://evil.localhost:5170',
      projectId: 'porthole-dev',
    })
    const api = originsApi(() => ({ allowedOrigins: ['http://127.0.0.1:5170'] }))
    await runVerification({ api, target })
    expect(target.getState().verification).toBe('unverified')
    const [alert] = target.getState().alerts
    expect(alert?.code).toBe('UNVERIFIED_DOMAIN')
    expect(alert?.message).toContain('http://evil.localhost:5170')
    expect(alert?.message).toContain('porthole-dev')
  })

  test.each([
    [429, 'rate_limited', 'RATE_LIMITED'],
    [503, 'server_error', 'SERVER_ERROR'],
  ] as const)(
    'HTTP %i: %s, alert %s; a retry that succeeds clears it',
    async (status, verification, code) => {
      const target = storeWith({ hostOrigin: 'http://127.0.0.1:5170', projectId: 'porthole-dev' })
      let fail = true
      const api = originsApi(() => {
        if (fail) throw new HttpError(status)
        return { allowedOrigins: ['http://127.0.0.1:5170'] }
      })
      await runVerification({ api, target })
      expect(target.getState().verification).toBe(verification)
      expect(target.getState().alerts.map((alert) => alert.code)).toEqual([code])
      fail = false
      await runVerification({ api, target })
      expect(target.getState().verification).toBe('verified')
      expect(target.getState().alerts).toEqual([])
    },
  )

  test('inv-04 an unlisted ancestor gets UNVERIFIED_DOMAIN naming that ancestor', async () => {
    const target = storeWith({ hostOrigin: 'http://127.0.0.1:5170', projectId: 'porthole-dev' })
    const api = originsApi(() => ({ allowedOrigins: ['http://127.0.0.1:5170'] }))
    await runVerification({
      api,
      target,
      ancestorOrigins: ['http://127.0.0.1:5170', 'http://evil.localhost:5170'],
    })
    expect(target.getState()).toMatchObject({
      verification: 'unverified',
      refusedOrigin: 'http://evil.localhost:5170',
    })
    const [alert] = target.getState().alerts
    expect(alert?.code).toBe('UNVERIFIED_DOMAIN')
    expect(alert?.message).toContain('framed by http://evil.localhost:5170')
    expect(alert?.message).toContain('http://127.0.0.1:5170')
  })

  test('an unknown project is refused, telling the developer to create it', async () => {
    const target = storeWith({
      hostOrigin: 'http://127.0.0.1:5170',
      projectId: 'no-such-project',
    })
    await runVerification({ api: originsApi(failWith(403, 'unknown_project')), target })
    expect(target.getState().verification).toBe('unknown_project')
    const [alert] = target.getState().alerts
    expect(alert?.code).toBe('UNKNOWN_PROJECT')
    expect(alert?.message).toContain("Project 'no-such-project' is unknown")
    expect(alert?.message).toContain('npm run project -- create --id no-such-project')
    expect(alert?.message.length).toBeLessThanOrEqual(512)
  })

  test('inv-17 a timeout is a server error, and Try again can recover', async () => {
    const target = storeWith({ hostOrigin: 'http://127.0.0.1:5170', projectId: 'porthole-dev' })
    let hang = true
    const api = originsApi(() => {
      if (hang) throw new RequestTimeoutError(15_000)
      return { allowedOrigins: ['http://127.0.0.1:5170'] }
    })
    await runVerification({ api, target })
    expect(target.getState().verification).toBe('server_error')
    expect(target.getState().alerts.map((alert) => alert.code)).toEqual(['SERVER_ERROR'])
    hang = false
    await runVerification({ api, target })
    expect(target.getState().verification).toBe('verified')
    expect(target.getState().alerts).toEqual([])
  })

  test('no project id: wallets off, no call', async () => {
    const target = storeWith({ hostOrigin: 'http://127.0.0.1:5170', projectId: null })
    const api = originsApi(() => ({ allowedOrigins: [] }))
    await runVerification({ api, target })
    expect(target.getState().verification).toBe('missing_project')
    expect(api.calls).toEqual([])
  })

  test('a long origin keeps the alert within the event bound', async () => {
    const origin = `https://${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.example.com`
    const target = storeWith({ hostOrigin: origin, projectId: 'porthole-dev' })
    await runVerification({
      api: originsApi(() => ({ allowedOrigins: ['https://x.com'] })),
      target,
    })
    expect(target.getState().alerts[0]?.message.length).toBeLessThanOrEqual(512)
  })
})

describe('inv-17 runVerification against an API that never answers', () => {
  let server: Server
  let baseUrl: string
  beforeAll(async () => {
    // Accepts every connection and never answers.
    server = createServer(() => undefined)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })

  test('ends refused as a server error (with Try again), instead of pending forever', async () => {
    const target = storeWith({ hostOrigin: 'http://127.0.0.1:5170', projectId: 'porthole-dev' })
    const api = createApi({ baseUrl, clientId: () => 'c', timeout: 100 })
    await runVerification({ api, target })
    expect(target.getState().verification).toBe('server_error')
    expect(target.getState().alerts.map((alert) => alert.code)).toEqual(['SERVER_ERROR'])
  })
})
