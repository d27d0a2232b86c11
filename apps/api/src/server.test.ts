import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { fakeWallet, newDeviceId, newEmail } from '../test/embedded.js'
import {
  type ApiProcess,
  baseEnv,
  type LocalPostgres,
  outboxToken,
  startApiProcess,
  startLocalPostgres,
} from '../test/process.js'

/** Calls one API process over HTTP, as the secure frame does (JSON, from its origin). */
function clientOf(api: ApiProcess) {
  const call = (method: string, path: string, body?: unknown, token?: string) =>
    fetch(`${api.url}${path}${path.includes('?') ? '&' : '?'}projectId=porthole-dev`, {
      method,
      headers: {
        origin: 'http://secure.localhost:5172',
        ...(method === 'GET' ? {} : { 'content-type': 'application/json' }),
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  return {
    call,
    /**
     * The code of the last mail to `email` in the dev outbox. The API sends a
     * login's mail after its answer (SECURITY.md 26), so the mail may land a
     * moment later: ask again for up to 10 s.
     */
    async code(email: string): Promise<string> {
      for (const started = Date.now(); Date.now() - started < 10_000; ) {
        const response = await fetch(`${api.url}/dev/outbox/${outboxToken}?format=json`)
        const { messages } = (await response.json()) as { messages: { to: string; text: string }[] }
        const text = messages.find((mail) => mail.to === email)?.text ?? ''
        const code = /\b\d{6}\b/.exec(text)?.[0]
        if (code !== undefined) return code
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      throw new Error('no code in the dev outbox after 10 s')
    },
  }
}

/** A new user signed up by email on `api`: a code, then its check. */
async function signUp(api: ApiProcess) {
  const client = clientOf(api)
  const email = newEmail()
  const deviceId = newDeviceId()
  const login = await client.call('POST', '/auth/v1/login/email', { email, deviceId })
  expect(await login.json()).toEqual({ action: 'VERIFY_OTP' })
  const otp = await client.code(email)
  const verified = await client.call('POST', '/auth/v1/login/email/verify', {
    email,
    otp,
    deviceId,
  })
  expect(verified.status).toBe(200)
  const { token, user } = (await verified.json()) as { token: string; user: { id: string } }
  return { email, deviceId, token, userId: user.id }
}

/**
 * The wallet of `token` after a crash: the stored one when the PUT had
 * committed, else stored now by the retry. Resolves to the wallet read back.
 */
async function walletAfterRetry(
  api: ApiProcess,
  token: string,
  wallet: ReturnType<typeof fakeWallet>,
) {
  const client = clientOf(api)
  const read = await client.call('GET', '/wallet/v1/shares?recovery=true', undefined, token)
  if (read.status === 404) {
    expect((await client.call('PUT', '/wallet/v1/shares', wallet, token)).status).toBe(201)
    return (await client.call('GET', '/wallet/v1/shares?recovery=true', undefined, token)).json()
  }
  expect(read.status).toBe(200)
  return read.json()
}

describe('inv-19 killing the API (SIGKILL) mid-signup loses nothing committed: one process on PGlite', () => {
  let dir: string
  const running: ApiProcess[] = []
  beforeAll(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'porthole-crash-')), 'data')
  })
  afterAll(async () => {
    await Promise.all(running.map((api) => api.kill()))
    if (dir) await rm(join(dir, '..'), { recursive: true, force: true })
  })
  const start = async () => {
    const api = await startApiProcess({ ...baseEnv, PGLITE_DIR: dir })
    running.push(api)
    return api
  }

  test('after each crash and restart the user, session and wallet are there, or the retry completes', async () => {
    // Killed between the code check and the PUT: the session it committed survives.
    let api = await start()
    const { token, userId } = await signUp(api)
    await api.kill()
    api = await start()
    const session = await clientOf(api).call('GET', '/auth/v1/session', undefined, token)
    expect(session.status).toBe(200)
    expect(((await session.json()) as { user: { id: string } }).user.id).toBe(userId)
    // Development without SHARE_ENCRYPTION_KEY says so, once.
    expect(api.output().match(/SHARE_ENCRYPTION_KEY is unset/g)).toHaveLength(1)

    // Killed while the PUT is in flight: after the restart the wallet is whole, or absent and the retry stores it.
    const wallet = fakeWallet()
    const inFlight = clientOf(api)
      .call('PUT', '/wallet/v1/shares', wallet, token)
      .then((response) => response.status)
      .catch(() => 'dropped')
    await api.kill()
    expect([201, 'dropped']).toContain(await inFlight)
    api = await start()
    const restored = await walletAfterRetry(api, token, wallet)
    expect(restored).toMatchObject({
      authShare: wallet.authShare,
      recoveryShare: wallet.recoveryShare,
    })

    // Killed right after a committed PUT: the wallet survives, and only once.
    await api.kill()
    api = await start()
    const client = clientOf(api)
    expect(
      await (await client.call('GET', '/wallet/v1/shares?recovery=true', undefined, token)).json(),
    ).toEqual(restored)
    expect((await client.call('PUT', '/wallet/v1/shares', fakeWallet(), token)).status).toBe(409)
    await api.stop()
  }, 240_000)
})

describe('two API processes on one PostgreSQL database', () => {
  let pg: LocalPostgres | undefined
  const running: ApiProcess[] = []
  beforeAll(async () => {
    pg = await startLocalPostgres()
  }, 60_000)
  afterAll(async () => {
    await Promise.all(running.map((api) => api.kill()))
    await pg?.stop()
  })
  const start = async () => {
    if (pg === undefined) throw new Error('no PostgreSQL')
    const api = await startApiProcess({ ...baseEnv, DATABASE_URL: pg.url })
    running.push(api)
    return api
  }

  test('inv-13 the 30 s per-address throttle holds across the two processes', async () => {
    if (pg === undefined)
      throw new Error(
        "PostgreSQL is not installed (initdb, postgres): npm test's pretest installs it",
      )
    const [a, b] = [await start(), await start()]
    const deviceId = newDeviceId()
    const email = newEmail()
    const first = await clientOf(a).call('POST', '/auth/v1/login/email', { email, deviceId })
    expect(first.status).toBe(200)
    const second = await clientOf(b).call('POST', '/auth/v1/login/email', { email, deviceId })
    expect(second.status).toBe(429)
    expect(((await second.json()) as { error: { message: string } }).error.message).toMatch(
      /^Please try again after (29|30) seconds$/,
    )

    // Asked of both at once: one mail.
    const raced = newEmail()
    const answers = await Promise.all(
      [a, b].map((api) =>
        clientOf(api).call('POST', '/auth/v1/login/email', { email: raced, deviceId }),
      ),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 429])

    // A code mailed by one process is checked by the other, once.
    const otp = await clientOf(a).code(email)
    const verified = await Promise.all(
      [a, b].map((api) =>
        clientOf(api).call('POST', '/auth/v1/login/email/verify', { email, otp, deviceId }),
      ),
    )
    expect(verified.map((answer) => answer.status).sort()).toEqual([200, 401])
  }, 180_000)

  test('inv-19 a replica killed during PUT shares: the other one has the user and completes the signup', async () => {
    if (pg === undefined)
      throw new Error(
        "PostgreSQL is not installed (initdb, postgres): npm test's pretest installs it",
      )
    const [a, b] = [await start(), await start()]
    const { token, userId } = await signUp(a)
    const wallet = fakeWallet()
    const inFlight = clientOf(a)
      .call('PUT', '/wallet/v1/shares', wallet, token)
      .then((response) => response.status)
      .catch(() => 'dropped')
    await a.kill()
    expect([201, 'dropped']).toContain(await inFlight)

    const session = await clientOf(b).call('GET', '/auth/v1/session', undefined, token)
    expect(((await session.json()) as { user: { id: string } }).user.id).toBe(userId)
    expect(await walletAfterRetry(b, token, wallet)).toMatchObject({
      authShare: wallet.authShare,
      recoveryShare: wallet.recoveryShare,
    })
    // A replacement replica sees the same.
    const c = await start()
    const shares = await clientOf(c).call('GET', '/wallet/v1/shares', undefined, token)
    expect(((await shares.json()) as { authShare: string }).authShare).toBe(wallet.authShare)
  }, 180_000)
})
