import { randomUUID } from 'node:crypto'
import { inspect } from 'node:util'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, type MockInstance, test, vi } from 'vitest'
import {
  createMailCatcher,
  extractCode,
  type MailCatcher,
} from '../../../../e2e/support/mailCatcher.js'
import { createApp } from '../app.js'
import { createTestDb, type TestDb } from '../db/testing.js'
import { MailError } from '../errors.js'
import { devOutboxSize } from '../mailer.js'
import { createProject } from '../projects.js'
import {
  emailResendSeconds,
  emailSendIpLimit,
  maxEmailBodyBytes,
  maxOtpAttempts,
  otpMailSubject,
  otpTtlSeconds,
  pruneEmailLogin,
} from './email.js'

let catcher: MailCatcher
let testDb: TestDb
let app: Hono
/** The email rules' clock, moved by the tests. */
let clock = Date.parse('2031-03-01T12:00:00.000Z')
const now = () => new Date(clock)
const onError = vi.fn()
/** Every address and code a test used: none may reach a log. */
const secrets = new Set<string>()
const consoleSpies: MockInstance[] = []

beforeAll(async () => {
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    consoleSpies.push(vi.spyOn(console, method))
  }
  catcher = await createMailCatcher()
  testDb = await createTestDb({ smtpUrl: `smtp://127.0.0.1:${catcher.port}` })
  app = createApp({ config: testDb.config, db: testDb.db, onError, now })
})
afterAll(async () => {
  await testDb?.close()
  await catcher?.close()
  for (const spy of consoleSpies) spy.mockRestore()
})

function newEmail(): string {
  const email = `user-${randomUUID().slice(0, 8)}@example.com`
  secrets.add(email)
  return email
}

let ipCounter = 0
/** A fresh client address, so the per-IP limits only bite the test that is about them. */
function newIp(): string {
  ipCounter += 1
  return `203.0.113.${ipCounter}`
}

function post(
  path: 'otp' | 'verify',
  body: unknown,
  { on = app, ip = newIp(), projectId = 'porthole-dev' } = {},
) {
  return on.request(
    `/auth/v1/email/${path}?projectId=${projectId}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    },
    // What @hono/node-server hands the app: the socket, for the client's address.
    { incoming: { socket: { remoteAddress: ip } } },
  )
}

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; message: string } }).error
}

/** Asks for a code and reads it from the mail the catcher caught. */
async function requestCode(email: string, on = app): Promise<string> {
  catcher.clear()
  const response = await post('otp', { email }, { on })
  expect(response.status).toBe(202)
  const mail = await catcher.waitFor((caught) => caught.to.includes(email.toLowerCase()))
  const code = extractCode(mail.text)
  if (code === undefined) throw new Error('no code in the mail')
  secrets.add(code)
  return code
}

function wrong(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0')
}

describe('POST /auth/v1/email/otp', () => {
  test('mails a 6-digit code that verifies once, for the address in any case', async () => {
    const email = newEmail()
    catcher.clear()
    const response = await post('otp', { email: email.toUpperCase() })
    expect(response.status).toBe(202)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.json()).toEqual({
      expiresAt: new Date(clock + otpTtlSeconds * 1000).toISOString(),
    })

    const mail = await catcher.waitFor((caught) => caught.to.includes(email))
    expect(mail.to).toEqual([email])
    expect(mail.subject).toBe(otpMailSubject)
    expect(mail.subject).toBe('Your Porthole code')
    expect(mail.from).toBe('no-reply@porthole.localhost')
    const code = extractCode(mail.text)
    expect(code).toMatch(/^\d{6}$/)
    secrets.add(code ?? '')

    const verified = await post('verify', { email: email.toUpperCase(), otp: code })
    expect(verified.status).toBe(200)
    expect(await verified.json()).toEqual({ email, verified: true })

    const replay = await post('verify', { email, otp: code })
    expect(replay.status).toBe(401)
    expect(await errorOf(replay)).toEqual({
      code: 'code_used',
      message: 'This code has already been used: a new code is needed',
    })
  })

  test('refuses a second mail to one address within 30 s, with the seconds left rounded up', async () => {
    const email = newEmail()
    await requestCode(email)

    clock += 12_300
    const early = await post('otp', { email })
    expect(early.status).toBe(429)
    expect(early.headers.get('retry-after')).toBe('18')
    expect(await errorOf(early)).toEqual({
      code: 'email_throttled',
      message: 'Please try again after 18 seconds',
    })

    clock += 29_001 - 12_300
    const almost = await post('otp', { email: email.toUpperCase() })
    expect(almost.status).toBe(429)
    expect((await errorOf(almost)).message).toBe('Please try again after 1 seconds')

    clock += emailResendSeconds * 1000 - 29_001
    await requestCode(email)
  })

  test('holds the 30 s throttle across two API instances sharing one database', async () => {
    const replica = createApp({
      config: testDb.config,
      db: await testDb.openReplica(),
      onError,
      now,
    })
    const email = newEmail()
    await requestCode(email)
    const refused = await post('otp', { email }, { on: replica })
    expect(refused.status).toBe(429)
    expect(await errorOf(refused)).toEqual({
      code: 'email_throttled',
      message: 'Please try again after 30 seconds',
    })

    // Asked at once on both: exactly one mail goes out.
    const raced = newEmail()
    const answers = await Promise.all([
      post('otp', { email: raced }),
      post('otp', { email: raced }, { on: replica }),
    ])
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 429])
  })

  test.each([
    ['no at sign', { email: 'user.example.com' }],
    ['two at signs', { email: 'user@@example.com' }],
    ['a space', { email: 'us er@example.com' }],
    ['no domain', { email: 'user@' }],
    ['over 254 characters', { email: `${'a'.repeat(64)}@${'b'.repeat(186)}.com` }],
    ['a number', { email: 42 }],
    ['no email', {}],
    ['an unknown key', { email: 'user@example.com', name: 'x' }],
  ])('refuses a body with %s (400)', async (_, body) => {
    const response = await post('otp', body)
    expect(response.status).toBe(400)
    expect((await errorOf(response)).code).toBe('invalid_body')
  })

  test('refuses bad JSON, an oversize body, an unknown project', async () => {
    expect((await errorOf(await post('otp', '{nope'))).code).toBe('invalid_json')
    const big = await post('otp', { email: `${'a'.repeat(maxEmailBodyBytes)}@example.com` })
    expect(big.status).toBe(413)
    const unknown = await post('otp', { email: newEmail() }, { projectId: 'no-such-project' })
    expect(unknown.status).toBe(403)
  })

  test(`limits one IP address to ${emailSendIpLimit.limit} codes per ${emailSendIpLimit.windowSeconds / 60} minutes`, async () => {
    const ip = newIp()
    for (let sent = 0; sent < emailSendIpLimit.limit; sent++) {
      expect((await post('otp', { email: newEmail() }, { ip })).status).toBe(202)
    }
    const refused = await post('otp', { email: newEmail() }, { ip })
    expect(refused.status).toBe(429)
    expect((await errorOf(refused)).code).toBe('rate_limited')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await post('otp', { email: newEmail() })).status).toBe(202)
  })

  test('answers 502 when SMTP is down, and frees the address for a retry', async () => {
    const down = await createMailCatcher()
    await down.close()
    const broken = createApp({
      config: { ...testDb.config, smtpUrl: `smtp://127.0.0.1:${down.port}` },
      db: testDb.db,
      onError,
      now,
    })
    const email = newEmail()
    onError.mockClear()
    const response = await post('otp', { email }, { on: broken })
    expect(response.status).toBe(502)
    expect((await errorOf(response)).code).toBe('email_send_failed')
    expect(onError).toHaveBeenCalledWith(expect.any(MailError))

    const code = await requestCode(email)
    expect((await post('verify', { email, otp: code })).status).toBe(200)
  })
})

describe('POST /auth/v1/email/verify', () => {
  test(`kills the code at the ${maxOtpAttempts}th wrong try; a new code is needed`, async () => {
    const email = newEmail()
    const code = await requestCode(email)
    for (let tries = 1; tries < maxOtpAttempts; tries++) {
      const response = await post('verify', { email, otp: wrong(code) })
      expect(response.status).toBe(401)
      const left = maxOtpAttempts - tries
      expect(await errorOf(response)).toEqual({
        code: 'invalid_code',
        message: `The code is wrong: ${left} ${left === 1 ? 'try' : 'tries'} left`,
      })
    }
    const last = await post('verify', { email, otp: wrong(code) })
    expect(last.status).toBe(401)
    expect(await errorOf(last)).toEqual({
      code: 'code_exhausted',
      message: 'Too many wrong codes: a new code is needed',
    })
    // Dead: even the right code fails now.
    const right = await post('verify', { email, otp: code })
    expect((await errorOf(right)).code).toBe('code_exhausted')

    clock += emailResendSeconds * 1000
    const fresh = await requestCode(email)
    expect((await post('verify', { email, otp: fresh })).status).toBe(200)
  })

  test('refuses a code 10 minutes old', async () => {
    const email = newEmail()
    const code = await requestCode(email)
    clock += otpTtlSeconds * 1000
    const response = await post('verify', { email, otp: code })
    expect(response.status).toBe(401)
    expect(await errorOf(response)).toEqual({
      code: 'code_expired',
      message: 'The code has expired: a new code is needed',
    })
  })

  test('accepts a code just under 10 minutes old', async () => {
    const email = newEmail()
    const code = await requestCode(email)
    clock += otpTtlSeconds * 1000 - 1
    expect((await post('verify', { email, otp: code })).status).toBe(200)
  })

  test('spends a code once when two verifications race', async () => {
    const email = newEmail()
    const code = await requestCode(email)
    const replica = createApp({ config: testDb.config, db: await testDb.openReplica(), now })
    const answers = await Promise.all([
      post('verify', { email, otp: code }),
      post('verify', { email, otp: code }, { on: replica }),
    ])
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401])
  })

  test('a new code replaces the old one', async () => {
    const email = newEmail()
    const first = await requestCode(email)
    clock += emailResendSeconds * 1000
    const second = await requestCode(email)
    if (first !== second) {
      expect((await errorOf(await post('verify', { email, otp: first }))).code).toBe('invalid_code')
    }
    expect((await post('verify', { email, otp: second })).status).toBe(200)
  })

  test('refuses an address no code was sent to', async () => {
    const response = await post('verify', { email: newEmail(), otp: '123456' })
    expect(response.status).toBe(401)
    expect((await errorOf(response)).code).toBe('invalid_code')
  })

  test('refuses a code for another project', async () => {
    const email = newEmail()
    const code = await requestCode(email)
    await createProject(testDb.db, { id: 'other-email', name: 'Other' })
    const response = await post('verify', { email, otp: code }, { projectId: 'other-email' })
    expect((await errorOf(response)).code).toBe('invalid_code')
    expect((await post('verify', { email, otp: code })).status).toBe(200)
  })

  test.each([
    ['five digits', { email: 'user@example.com', otp: '12345' }],
    ['seven digits', { email: 'user@example.com', otp: '1234567' }],
    ['letters', { email: 'user@example.com', otp: '12345a' }],
    ['a number', { email: 'user@example.com', otp: 123456 }],
    ['a bad email', { email: 'nope', otp: '123456' }],
    ['no otp', { email: 'user@example.com' }],
  ])('refuses a body with %s (400)', async (_, body) => {
    const response = await post('verify', body)
    expect(response.status).toBe(400)
    expect((await errorOf(response)).code).toBe('invalid_body')
  })
})

describe('GET /dev/outbox', () => {
  test('is absent unless DEV_OUTBOX=true', async () => {
    expect((await app.request('/dev/outbox')).status).toBe(404)
  })

  test('shows the mail the dev transport recorded when SMTP_URL is unset', async () => {
    const dev = createApp({
      config: { ...testDb.config, smtpUrl: undefined, devOutbox: true },
      db: testDb.db,
      now,
    })
    const email = newEmail()
    catcher.clear()
    expect((await post('otp', { email }, { on: dev })).status).toBe(202)
    expect(catcher.messages()).toEqual([])

    const json = await dev.request('/dev/outbox?format=json')
    expect(json.status).toBe(200)
    const { messages } = (await json.json()) as {
      messages: { to: string; subject: string; text: string; from: string }[]
    }
    expect(messages[0]).toMatchObject({
      to: email,
      subject: 'Your Porthole code',
      from: 'Porthole <no-reply@porthole.localhost>',
    })
    const code = extractCode(messages[0]?.text ?? '')
    expect(code).toMatch(/^\d{6}$/)
    secrets.add(code ?? '')

    const html = await dev.request('/dev/outbox')
    expect(html.headers.get('content-type')).toMatch(/^text\/html/)
    expect(html.headers.get('content-security-policy')).toContain("default-src 'none'")
    const page = await html.text()
    expect(page).toContain(email)
    expect(page).toContain(code)
    expect(page).toContain('Porthole &lt;no-reply@porthole.localhost&gt;')

    expect((await post('verify', { email, otp: code }, { on: dev })).status).toBe(200)
    expect((await dev.request('/dev/outbox?format=xml')).status).toBe(400)
  })

  test(`keeps the last ${devOutboxSize} mails`, async () => {
    const dev = createApp({
      config: { ...testDb.config, smtpUrl: undefined, devOutbox: true },
      db: testDb.db,
      now,
    })
    for (let sent = 0; sent < devOutboxSize + 2; sent++) {
      expect((await post('otp', { email: newEmail() }, { on: dev })).status).toBe(202)
    }
    const rows = await testDb.db.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM dev_outbox',
    )
    expect(Number(rows[0]?.count)).toBe(devOutboxSize)
  })
})

describe('pruneEmailLogin', () => {
  test('deletes codes and throttle slots long past', async () => {
    const email = newEmail()
    await requestCode(email)
    const before = await testDb.db.query(
      'SELECT 1 FROM email_otps WHERE email = $1 AND expires_at < now()',
      [email],
    )
    // The tests' clock is years ahead: nothing of theirs is old by the database's clock.
    expect(before).toEqual([])
    await testDb.db.query(
      `UPDATE email_otps SET expires_at = now() - interval '2 hours' WHERE email = $1`,
      [email],
    )
    await testDb.db.query(
      `UPDATE email_send_throttle SET sent_at = now() - interval '2 hours' WHERE email = $1`,
      [email],
    )
    const pruned = await pruneEmailLogin(testDb.db)
    expect(pruned.codes).toBeGreaterThanOrEqual(1)
    expect(pruned.throttles).toBeGreaterThanOrEqual(1)
    expect(await testDb.db.query('SELECT 1 FROM email_otps WHERE email = $1', [email])).toEqual([])
  })
})

describe('inv-11 no code or address in the logs', () => {
  test('console output and reported errors never hold an address or a code', () => {
    expect(secrets.size).toBeGreaterThan(10)
    const logged = [...consoleSpies.flatMap((spy) => spy.mock.calls), ...onError.mock.calls].map(
      (args) => inspect(args, { depth: 5 }),
    )
    expect(onError).toHaveBeenCalled()
    for (const text of logged) {
      for (const secret of secrets) expect(text).not.toContain(secret)
    }
  })
})
