import { describe, expect, test } from 'vitest'
import { type Api, HttpError } from './api.js'
import {
  fetchAllowedOrigins,
  OriginsUnavailableError,
  runVerification,
  verifyHost,
} from './hostVerification.js'
import { createStore, initialState, type WidgetState } from './store.js'

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

const failWith = (status: number) => () => {
  throw new HttpError(status)
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

  test.each([500, 502, 503, 504])('HTTP %i throws SERVER_ERROR', async (status) => {
    const error = await fetchAllowedOrigins('p', { api: originsApi(failWith(status)) }).catch(
      (error: unknown) => error,
    )
    expect((error as OriginsUnavailableError).reason).toBe('SERVER_ERROR')
  })

  test.each([
    ['HTTP 400', failWith(400)],
    ['HTTP 403', failWith(403)],
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
  ] as const)('%s: %s is %s', async (_, origin, api, expected) => {
    await expect(verifyHost(origin, 'p', { api })).resolves.toBe(expected)
  })
})

describe('runVerification', () => {
  const storeWith = (patch: Partial<WidgetState>) => createStore({ ...initialState, ...patch })

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
