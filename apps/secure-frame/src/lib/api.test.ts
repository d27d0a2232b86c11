import { createHash } from 'node:crypto'
import { ErrorCode, RpcError, toRpcError } from '@porthole/protocol/Errors'
import { leadingZeroBits } from '@porthole/protocol/ProofOfWork'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { ApiError, createApi, type Fetch, unreachableMessage } from './api.js'

type Seen = { url: URL; method: string; headers: Record<string, string>; body: unknown }

/** What a stub fetch was asked. */
function record(input: string, init: RequestInit): Seen {
  return {
    url: new URL(input),
    method: init.method ?? 'GET',
    headers: init.headers as Record<string, string>,
    body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
  }
}

/** A fetch that records each request and answers `status` with `body` (JSON unless a string). */
function stub(status: number, body?: unknown) {
  const seen: Seen[] = []
  const fetch: Fetch = async (input, init = {}) => {
    seen.push(record(input, init))
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body)
    return new Response(status === 204 ? null : text, { status })
  }
  return { fetch, seen }
}

const token = 'T'.repeat(43)
const deviceId = 'D'.repeat(22)
const addresses = {
  eip155: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  solana: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
}
const loginResult = { token, user: { id: 'u1', email: 'ada@example.com', addresses } }

const api = (fetch: Fetch) =>
  createApi({ apiUrl: 'http://api.localhost:5173/', projectId: 'demo', fetch })

describe('createApi', () => {
  test('every call carries ?projectId=; session calls carry the bearer token', async () => {
    const { fetch, seen } = stub(200, { action: 'VERIFY_OTP' })
    await api(fetch).loginEmail({ email: 'ada@example.com', deviceId })
    const [login] = seen
    expect(login?.url.toString()).toBe(
      'http://api.localhost:5173/auth/v1/login/email?projectId=demo',
    )
    expect(login?.method).toBe('POST')
    expect(login?.headers.authorization).toBeUndefined()
    expect(login?.body).toEqual({ email: 'ada@example.com', deviceId })

    const shares = stub(200, { authShare: 'AQIDBAUGBwgJCgsMDQ4PEBE=', addresses })
    await api(shares.fetch).getShares(token, { recovery: true })
    const [get] = shares.seen
    expect(get?.url.pathname).toBe('/wallet/v1/shares')
    expect(Object.fromEntries(get?.url.searchParams ?? [])).toEqual({
      projectId: 'demo',
      recovery: 'true',
    })
    expect(get?.headers.authorization).toBe(`Bearer ${token}`)
  })

  test.each([
    [
      'loginEmail',
      (a: ReturnType<typeof api>) => a.loginEmail({ email: 'a@b.co', deviceId }),
      'POST',
      '/auth/v1/login/email',
    ],
    [
      'deviceStatus',
      (a: ReturnType<typeof api>) => a.deviceStatus({ email: 'a@b.co', deviceId }),
      'POST',
      '/auth/v1/device/status',
    ],
    [
      'verifyEmail',
      (a: ReturnType<typeof api>) => a.verifyEmail({ email: 'a@b.co', otp: '123456', deviceId }),
      'POST',
      '/auth/v1/login/email/verify',
    ],
    ['getSession', (a: ReturnType<typeof api>) => a.getSession(token), 'GET', '/auth/v1/session'],
    [
      'deleteSession',
      (a: ReturnType<typeof api>) => a.deleteSession(token),
      'DELETE',
      '/auth/v1/session',
    ],
    ['getShares', (a: ReturnType<typeof api>) => a.getShares(token), 'GET', '/wallet/v1/shares'],
    [
      'putShares',
      (a: ReturnType<typeof api>) =>
        a.putShares(token, {
          authShare: 'AQIDBAUGBwgJCgsMDQ4PEBE=',
          recoveryShare: 'AQIDBAUGBwgJCgsMDQ4PEBE=',
          addresses,
        }),
      'PUT',
      '/wallet/v1/shares',
    ],
    [
      'updateEmail',
      (a: ReturnType<typeof api>) => a.updateEmail(token, { email: 'a@b.co' }),
      'POST',
      '/auth/v1/email/update',
    ],
    [
      'updateEmailPrimary',
      (a: ReturnType<typeof api>) => a.updateEmailPrimary(token, { otp: '123456' }),
      'POST',
      '/auth/v1/email/update/primary',
    ],
    [
      'updateEmailSecondary',
      (a: ReturnType<typeof api>) => a.updateEmailSecondary(token, { otp: '123456' }),
      'POST',
      '/auth/v1/email/update/secondary',
    ],
    [
      'socialStart',
      (a: ReturnType<typeof api>) =>
        a.socialStart({ provider: 'google', deviceId, state: deviceId }),
      'POST',
      '/auth/v1/social/start',
    ],
    [
      'socialResult',
      (a: ReturnType<typeof api>) =>
        a.socialResult({ state: deviceId, deviceId, claim: 'C'.repeat(43) }),
      'POST',
      '/auth/v1/social/result',
    ],
  ])('%s calls %s %s', async (_, run, method, path) => {
    const { fetch, seen } = stub(429, {
      error: { code: 'rate_limited', message: 'Please try again after 12 seconds' },
    })
    await expect(run(api(fetch))).rejects.toBeInstanceOf(ApiError)
    expect(seen[0]?.method).toBe(method)
    expect(seen[0]?.url.pathname).toBe(path)
    expect(seen[0]?.url.searchParams.get('projectId')).toBe('demo')
  })

  test.each([
    [429, 'rate_limited', 'Please try again after 12 seconds', ErrorCode.internal],
    [401, 'unauthorized', 'The session has ended', ErrorCode.unauthorized],
    [403, 'device_not_verified', 'Verify this device first', ErrorCode.unauthorized],
    [400, 'invalid_body', 'Invalid body: email: must be an email address', ErrorCode.invalidParams],
    [404, 'no_wallet', 'This account has no wallet yet', ErrorCode.internal],
    [
      500,
      'internal_error',
      'Something went wrong on our side; try again later',
      ErrorCode.internal,
    ],
  ])(
    'HTTP %i %s reaches the widget with the API message word for word',
    async (status, code, message, rpcCode) => {
      const { fetch } = stub(status, { error: { code, message } })
      const error = await api(fetch)
        .loginEmail({ email: 'ada@example.com', deviceId })
        .catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(ApiError)
      expect(error).toMatchObject({ status, apiCode: code })
      expect(toRpcError(error).toJSON()).toEqual({ code: rpcCode, message, data: { status, code } })
    },
  )

  test("an error without the API's body is 'HTTP status code: {status}'", async () => {
    const { fetch } = stub(502, '<html>Bad gateway</html>')
    await expect(api(fetch).getSession(token)).rejects.toMatchObject({
      message: 'HTTP status code: 502',
      status: 502,
    })
  })

  test('an API that cannot be reached is a clear error, not a crash', async () => {
    const fetch: Fetch = () => Promise.reject(new TypeError('Failed to fetch'))
    await expect(api(fetch).getSession(token)).rejects.toMatchObject({
      status: 0,
      message: unreachableMessage,
    })
  })

  test('social/result: 202 pending is undefined, 200 is the login', async () => {
    const pending = stub(202, { status: 'pending' })
    await expect(
      api(pending.fetch).socialResult({ state: deviceId, deviceId, claim: 'C'.repeat(43) }),
    ).resolves.toBeUndefined()
    const done = stub(200, loginResult)
    await expect(
      api(done.fetch).socialResult({ state: deviceId, deviceId, claim: 'C'.repeat(43) }),
    ).resolves.toEqual(loginResult)
  })
})

describe('inv-18 createApi', () => {
  test.each([
    ['an unknown key', { ...loginResult, admin: true }],
    ['a bad token', { ...loginResult, token: 'short' }],
    ['an unknown user key', { token, user: { ...loginResult.user, role: 'admin' } }],
    ['a __proto__ key', JSON.parse(`{"token":"${token}","user":{"id":"u1"},"__proto__":{"x":1}}`)],
    ['an array', [loginResult]],
    ['nothing', undefined],
  ])('an answer with %s is refused', async (_, body) => {
    const { fetch } = stub(200, body)
    await expect(
      api(fetch).verifyEmail({ email: 'a@b.co', otp: '123456', deviceId }),
    ).rejects.toMatchObject({ apiCode: 'invalid_response' })
    expect(({} as Record<string, unknown>).x).toBeUndefined()
  })

  test('no answer body crashes the client: anything is a result or an ApiError', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 200, max: 599 }),
        fc.oneof(fc.jsonValue(), fc.string()),
        async (status, body) => {
          const { fetch } = stub(status, typeof body === 'string' ? body : JSON.stringify(body))
          const outcome = await api(fetch)
            .getShares(token)
            .then(
              () => 'ok',
              (error: unknown) => error,
            )
          if (outcome !== 'ok') expect(outcome).toBeInstanceOf(ApiError)
        },
      ),
      { numRuns: 200 },
    )
  })
})

describe('rpc', () => {
  test('posts JSON-RPC to /v1/ with the chain and project, and answers the result', async () => {
    const { fetch, seen } = stub(200, { jsonrpc: '2.0', id: 1, result: '0x10' })
    await expect(api(fetch).rpc('eip155:1', 'eth_blockNumber', [])).resolves.toBe('0x10')
    expect(seen[0]?.url.pathname).toBe('/v1/')
    expect(Object.fromEntries(seen[0]?.url.searchParams ?? [])).toEqual({
      projectId: 'demo',
      chainId: 'eip155:1',
    })
    expect(seen[0]?.body).toEqual({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })
  })

  test("the node's or the proxy's JSON-RPC error keeps its code and message", async () => {
    const node = stub(200, {
      jsonrpc: '2.0',
      id: 1,
      error: { code: 3, message: 'execution reverted', data: '0x08c379a0' },
    })
    const error = await api(node.fetch)
      .rpc('eip155:1', 'eth_call', [{}])
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(RpcError)
    expect(toRpcError(error).toJSON()).toEqual({
      code: 3,
      message: 'execution reverted',
      data: '0x08c379a0',
    })
    const proxy = stub(400, {
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32601,
        message: "The method 'debug_x' is not available through this RPC endpoint",
      },
    })
    await expect(api(proxy.fetch).rpc('eip155:1', 'debug_x')).rejects.toMatchObject({
      code: -32601,
    })
  })
})

describe('inv-22 a spent mail budget: the frame solves the proof of work and asks again', () => {
  /** A fetch answering each request with the next of `answers`, recording what was sent. */
  function sequence(...answers: [number, unknown][]) {
    const seen: Seen[] = []
    const fetch: Fetch = async (input, init = {}) => {
      seen.push(record(input, init))
      const [status, body] = answers[seen.length - 1] ?? [500, undefined]
      return new Response(JSON.stringify(body), { status })
    }
    return { fetch, seen }
  }
  const challenge = { challenge: 'c2VjdXJlLWZyYW1lLXRlc3Q', difficulty: 10 }
  const required = {
    error: { code: 'proof_of_work_required', message: "This project's mail budget is spent" },
    proofOfWork: challenge,
  }
  const zeroBits = (nonce: string) =>
    leadingZeroBits(createHash('sha256').update(`${challenge.challenge}${nonce}`).digest())

  test('login: 428 with a challenge, then the same request with a solved proof of work', async () => {
    const { fetch, seen } = sequence([428, required], [200, { action: 'VERIFY_OTP' }])
    expect(await api(fetch).loginEmail({ email: 'ada@example.com', deviceId })).toEqual({
      action: 'VERIFY_OTP',
    })
    expect(seen).toHaveLength(2)
    expect(seen[0]?.body).toEqual({ email: 'ada@example.com', deviceId })
    const retry = seen[1]?.body as { proofOfWork: { challenge: string; nonce: string } }
    expect(retry).toEqual({
      email: 'ada@example.com',
      deviceId,
      proofOfWork: { challenge: challenge.challenge, nonce: expect.stringMatching(/^\d+$/) },
    })
    expect(zeroBits(retry.proofOfWork.nonce)).toBeGreaterThanOrEqual(challenge.difficulty)
  })

  test('email change: the same, with the session token on both requests', async () => {
    const { fetch, seen } = sequence([428, required], [200, { action: 'VERIFY_PRIMARY_OTP' }])
    await api(fetch).updateEmail(token, { email: 'new@example.com' })
    expect(seen.map((request) => request.headers.authorization)).toEqual([
      `Bearer ${token}`,
      `Bearer ${token}`,
    ])
    expect(seen[1]?.body).toMatchObject({ proofOfWork: { challenge: challenge.challenge } })
  })

  test('asks again once only: a second 428, or a refused proof, is the API error', async () => {
    const twice = sequence([428, required], [428, required])
    await expect(
      api(twice.fetch).loginEmail({ email: 'ada@example.com', deviceId }),
    ).rejects.toMatchObject({ status: 428, apiCode: 'proof_of_work_required' })
    expect(twice.seen).toHaveLength(2)
    const invalid = {
      error: { code: 'proof_of_work_invalid', message: 'The proof of work does not solve' },
    }
    const refused = sequence([428, required], [403, invalid])
    await expect(
      api(refused.fetch).loginEmail({ email: 'ada@example.com', deviceId }),
    ).rejects.toMatchObject({ status: 403, apiCode: 'proof_of_work_invalid' })
  })

  test('a challenge past what the frame will do is not worked on', async () => {
    const hard = { ...required, proofOfWork: { ...challenge, difficulty: 32 } }
    const { fetch, seen } = sequence([428, hard])
    await expect(
      api(fetch).loginEmail({ email: 'ada@example.com', deviceId }),
    ).rejects.toMatchObject({ status: 428, message: "This project's mail budget is spent" })
    expect(seen).toHaveLength(1)
  })
})
