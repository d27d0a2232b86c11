/**
 * Test helpers for the embedded-wallet endpoints: an in-memory mailer, a
 * small client for `app.request` (client IP, bearer token, Origin), and a
 * full email sign-up. Tests only.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { inspect } from 'node:util'
import type { LoginResult } from '@porthole/protocol/Embedded'
import type { Hono } from 'hono'
import { expect, type MockInstance, vi } from 'vitest'
import type { Mail, Mailer } from '../src/auth/email/mailer.js'
import { defaults } from '../src/http/config.js'
import { callerOrigins, findBrowserEndpoint } from '../src/http/crossSite.js'
import { MailError } from '../src/http/errors.js'

/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true

export type MemoryMailer = Mailer & {
  /** Every mail sent, oldest first. */
  readonly sent: Mail[]
  /** The last mail sent to `to` (any case). */
  last(to: string): Mail | undefined
  /** The 6-digit code of the last mail to `to`; throws when there is none. */
  code(to: string): string
  /** The device-approval link of the last mail to `to`; throws when there is none. */
  link(to: string): URL
  /** Makes the next `count` sends fail, as a broken SMTP server would. */
  failNext(count?: number): void
}

/** A mailer that keeps mail in memory. */
export function createMemoryMailer(): MemoryMailer {
  const sent: Mail[] = []
  let failures = 0
  const last = (to: string) => sent.findLast((mail) => mail.to === to.toLowerCase())
  return {
    kind: 'smtp',
    sent,
    async send(mail) {
      if (failures > 0) {
        failures -= 1
        throw new MailError('SMTP send failed (ECONNREFUSED)')
      }
      sent.push(mail)
    },
    last,
    code(to) {
      const code = /(?<!\d)\d{6}(?!\d)/.exec(last(to)?.text ?? '')?.[0]
      if (code === undefined) throw new Error('no code mailed to this address')
      return code
    },
    link(to) {
      const link = /https?:\/\/\S+\/auth\/v1\/device\/approve\?token=[\w-]+/.exec(
        last(to)?.text ?? '',
      )?.[0]
      if (link === undefined) throw new Error('no approval link mailed to this address')
      return new URL(link)
    },
    failNext(count = 1) {
      failures = count
    },
  }
}

export type RequestOptions = {
  /** The client's address, as @hono/node-server gives it; a fresh one by default. */
  ip?: string
  token?: string
  /**
   * The Origin header: by default the origin of the endpoint's caller in the
   * dev configuration (`browserEndpoints`), as the real caller sends it;
   * `null` sends none.
   */
  origin?: string | null
  /** The Content-Type of a call that changes something; `application/json` by default. */
  contentType?: string
  /** More request headers (X-Forwarded-For, …). */
  headers?: Record<string, string>
  projectId?: string
  query?: Record<string, string>
}

let ipCounter = 0
/**
 * A fresh client address in a fresh /24 (198.18.0.0/15, for 512 calls in a
 * row), so per-IP and per-prefix limits only bite the test that is about them.
 */
export function newIp(): string {
  ipCounter += 1
  const block = ipCounter % 512
  return `198.${18 + Math.floor(block / 256)}.${block % 256}.${(Math.floor(ipCounter / 512) % 254) + 1}`
}

/** A new random device id (as the frame makes: 128+ bits, base64url). */
export function newDeviceId(): string {
  return randomBytes(18).toString('base64url')
}

/** A new address nobody uses. */
export function newEmail(): string {
  return `user-${randomUUID().slice(0, 8)}@example.com`
}

/** The origins the dev configuration gives each caller (`testConfig`'s defaults). */
const devCallerOrigins = callerOrigins({
  secureFrameOrigin: defaults.secureFrameOrigin,
  widgetOrigin: defaults.widgetOrigin,
  publicApiUrl: defaults.publicApiUrl,
})

/**
 * Calls `app` as the secure frame (or the widget) would: JSON, from the
 * caller's origin, with `?projectId=`.
 */
export function createTestClient(app: Hono, defaults: { projectId?: string } = {}) {
  const call = async (
    method: string,
    path: string,
    body: unknown,
    options: RequestOptions = {},
  ): Promise<Response> => {
    const url = new URL(path, 'http://api.test')
    url.searchParams.set('projectId', options.projectId ?? defaults.projectId ?? 'porthole-dev')
    for (const [name, value] of Object.entries(options.query ?? {})) {
      url.searchParams.set(name, value)
    }
    const headers: Record<string, string> = { ...options.headers }
    if (body !== undefined || method !== 'GET')
      headers['content-type'] = options.contentType ?? 'application/json'
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    const endpoint = findBrowserEndpoint(method, url.pathname)
    const origin =
      options.origin === undefined
        ? endpoint && devCallerOrigins[endpoint.caller]
        : (options.origin ?? undefined)
    if (origin !== undefined) headers.origin = origin
    return app.request(
      `${url.pathname}${url.search}`,
      {
        method,
        headers,
        body:
          body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      },
      // What @hono/node-server hands the app: the socket, for the client's address.
      { incoming: { socket: { remoteAddress: options.ip ?? newIp() } } },
    )
  }
  return {
    get: (path: string, options?: RequestOptions) => call('GET', path, undefined, options),
    post: (path: string, body: unknown, options?: RequestOptions) =>
      call('POST', path, body, options),
    put: (path: string, body: unknown, options?: RequestOptions) =>
      call('PUT', path, body, options),
    delete: (path: string, options?: RequestOptions) => call('DELETE', path, undefined, options),
  }
}

export type TestClient = ReturnType<typeof createTestClient>

/** The `{ error: { code, message } }` of an answer. */
export async function errorOf(response: Response): Promise<{ code: string; message: string }> {
  return ((await response.json()) as { error: { code: string; message: string } }).error
}

/** The answer is `status` with the error `code`. */
export async function expectRefused(
  response: Response,
  status: number,
  code: string,
): Promise<void> {
  expect(response.status).toBe(status)
  expect((await errorOf(response)).code).toBe(code)
}

/** Signs a new user up by email on `deviceId`; resolves to the login result. */
export async function signUp(
  client: TestClient,
  mailer: MemoryMailer,
  { email = newEmail(), deviceId = newDeviceId(), projectId = 'porthole-dev' } = {},
): Promise<LoginResult & { email: string; deviceId: string }> {
  const login = await client.post('/auth/v1/login/email', { email, deviceId }, { projectId })
  if (login.status !== 200) throw new Error(`login answered ${login.status}`)
  const otp = mailer.code(email)
  const verified = await client.post(
    '/auth/v1/login/email/verify',
    { email, otp, deviceId },
    { projectId },
  )
  if (verified.status !== 200) throw new Error(`verify answered ${verified.status}`)
  return { ...((await verified.json()) as LoginResult), email, deviceId }
}

/** Two shares and addresses of a made-up wallet (valid shapes, no real keys). */
export function fakeWallet() {
  return {
    authShare: randomBytes(33).toString('base64'),
    recoveryShare: randomBytes(33).toString('base64'),
    addresses: {
      eip155: `0x${randomBytes(20).toString('hex')}`,
      solana: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
    },
  }
}

/**
 * inv-11's watch on what the API writes out: `onError` to give `createApp`,
 * and the console, spied on from `spyOnConsole()` to `restoreConsole()`.
 */
export function watchLogs() {
  const onError = vi.fn()
  const consoleSpies: MockInstance[] = []
  return {
    onError,
    spyOnConsole() {
      for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
        consoleSpies.push(vi.spyOn(console, method))
      }
    },
    restoreConsole() {
      for (const spy of consoleSpies) spy.mockRestore()
    },
    /** Errors were reported, and nothing written out holds any of `secrets` (more than `atLeast`). */
    expectNoSecret(secrets: ReadonlySet<string>, atLeast: number) {
      expect(secrets.size).toBeGreaterThan(atLeast)
      expect(onError).toHaveBeenCalled()
      const logged = [...consoleSpies.flatMap((spy) => spy.mock.calls), ...onError.mock.calls].map(
        (args) => inspect(args, { depth: 5 }),
      )
      for (const text of logged) {
        for (const secret of secrets) expect(text).not.toContain(secret)
      }
    },
  }
}
