import { mkdtemp, rm, stat } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { fakeWallet, newDeviceId, newEmail } from './embeddedTesting.js'
import {
  type ApiProcess,
  freePort,
  type LocalPostgres,
  runRefusedApiProcess,
  startApiProcess,
  startLocalPostgres,
} from './processTesting.js'

/** The dev outbox's token in these processes (a test value; random at each start otherwise). */
const outboxToken = 'c2VydmVyLXRlc3Qtb3V0Ym94LXRva2Vu'

/** The environment of every API process here: the dev outbox holds the codes. */
const baseEnv = {
  DEV_OUTBOX: 'true',
  DEV_OUTBOX_TOKEN: outboxToken,
  SMTP_URL: '',
  SEED_DEV_PROJECT: 'true',
}

/** The status of `GET <url>` sent with `Host: host` (fetch cannot set Host), as a rebinding browser would. */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { headers: { host } }, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    sent.once('error', reject)
    sent.end()
  })
}

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
    /** The code of the last mail to `email` in the dev outbox. */
    async code(email: string): Promise<string> {
      const response = await fetch(`${api.url}/dev/outbox/${outboxToken}?format=json`)
      const { messages } = (await response.json()) as { messages: { to: string; text: string }[] }
      const code = /\b\d{6}\b/.exec(messages.find((mail) => mail.to === email)?.text ?? '')?.[0]
      if (code === undefined) throw new Error('no code in the dev outbox')
      return code
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

describe('PORTHOLE_ENV=production refuses development settings at start-up, one line each', () => {
  const key = Buffer.alloc(32, 7).toString('base64')
  /** A production start that works: a real key, no outbox, the dev project not seeded. */
  const production = {
    PORTHOLE_ENV: 'production',
    SHARE_ENCRYPTION_KEY: key,
    PGLITE_DIR: 'memory://',
    DEV_OUTBOX: '',
    SMTP_URL: '',
    SEED_DEV_PROJECT: '',
  }
  /** A production API answers only its own names (SECURITY.md 25): 127.0.0.1 on a port chosen ahead, listed. */
  const startProduction = async (env: Record<string, string>) => {
    const port = await freePort()
    return startApiProcess({
      ...production,
      ...env,
      PORT: String(port),
      API_HOSTS: `127.0.0.1:${port}`,
    })
  }
  let dir: string
  beforeAll(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'porthole-production-')), 'data')
  })
  afterAll(async () => {
    if (dir) await rm(join(dir, '..'), { recursive: true, force: true })
  })

  test.each([
    [
      { SHARE_ENCRYPTION_KEY: '' },
      'PORTHOLE_ENV=production: SHARE_ENCRYPTION_KEY must be set (the public development key is refused)',
    ],
    [
      { SEED_DEV_PROJECT: 'true' },
      'PORTHOLE_ENV=production: SEED_DEV_PROJECT must be false (the dev project allows localhost hosts and is reset at every start)',
    ],
    [
      { DEV_OUTBOX: 'true' },
      'PORTHOLE_ENV=production: DEV_OUTBOX must be false (the dev outbox shows login codes to anyone)',
    ],
  ])(
    '%j: exits 1 with the one line, before opening the database',
    async (env, line) => {
      // A data directory the refused start must not even create.
      const untouched = `${dir}-never`
      const { code, stdout, stderr } = await runRefusedApiProcess({
        ...production,
        PGLITE_DIR: untouched,
        ...env,
      })
      expect(code).toBe(1)
      expect(stderr).toBe(`${line}\n`)
      expect(stdout).toBe('')
      await expect(stat(untouched)).rejects.toThrow(/ENOENT/)
    },
    60_000,
  )

  test('refuses a project with email login while SMTP_URL is unset; starts once it is set', async () => {
    // A development start seeds the dev project, which has email login.
    const dev = await startApiProcess({ ...baseEnv, PGLITE_DIR: dir })
    await dev.stop()

    const refused = await runRefusedApiProcess({ ...production, PGLITE_DIR: dir })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toBe(
      "PORTHOLE_ENV=production: SMTP_URL must be set (email login is on for project 'porthole-dev')\n",
    )

    const api = await startProduction({ PGLITE_DIR: dir, SMTP_URL: 'smtp://127.0.0.1:2525' })
    try {
      expect(api.output()).toContain('Environment: production (PORTHOLE_ENV)')
      expect(api.output()).toContain('dev project: not seeded')
      expect(api.output()).not.toContain('SHARE_ENCRYPTION_KEY is unset')
      expect((await fetch(`${api.url}/health`)).status).toBe(200)
      // No dev outbox in production.
      expect((await fetch(`${api.url}/dev/outbox/${outboxToken}`)).status).toBe(404)
    } finally {
      await api.stop()
    }
  }, 120_000)

  test('a good production configuration starts; inv-25 it answers only its own names', async () => {
    const api = await startProduction({})
    try {
      expect(api.output()).toContain('Environment: production (PORTHOLE_ENV)')
      expect((await fetch(`${api.url}/health`)).status).toBe(200)
      const { port } = new URL(api.url)
      expect(api.output()).toContain(
        `Host names: api.localhost:5173, 127.0.0.1:${port}; any other Host gets 421`,
      )
      // No loopback name but the one listed; no foreign name.
      expect(await statusWithHost(`${api.url}/health`, `localhost:${port}`)).toBe(421)
      expect(await statusWithHost(`${api.url}/health`, `attacker.example:${port}`)).toBe(421)
    } finally {
      await api.stop()
    }
  }, 60_000)

  test('development allows all of it, with the warning about the key', async () => {
    const api = await startApiProcess({
      ...baseEnv,
      PGLITE_DIR: 'memory://',
      SEED_DEV_PROJECT: 'false',
    })
    try {
      expect(api.output()).toContain('Environment: development (PORTHOLE_ENV)')
      // On stderr, which may come after the line on stdout.
      await expect.poll(() => api.output()).toContain('SHARE_ENCRYPTION_KEY is unset')
      // inv-25: the loopback names on its own port (PORT=0 here), the outbox under its token.
      const { port } = new URL(api.url)
      expect(api.output()).toContain(
        `dev outbox at http://api.localhost:5173/dev/outbox/${outboxToken}`,
      )
      expect(await statusWithHost(`${api.url}/health`, `localhost:${port}`)).toBe(200)
      expect(await statusWithHost(`${api.url}/health`, `localhost:${Number(port) + 1}`)).toBe(421)
      const outbox = `${api.url}/dev/outbox/${outboxToken}`
      expect(await statusWithHost(outbox, `127.0.0.1:${port}`)).toBe(200)
      expect(await statusWithHost(outbox, `attacker.example:${port}`)).toBe(421)
      expect((await fetch(`${api.url}/dev/outbox`)).status).toBe(404)
    } finally {
      await api.stop()
    }
  }, 60_000)
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
