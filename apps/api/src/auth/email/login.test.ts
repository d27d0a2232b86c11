import { createMailCatcher, extractCode, type MailCatcher } from '@porthole/dev-stack/mailCatcher'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { createTestDb, type TestDb } from '../../../test/db.js'
import {
  createMemoryMailer,
  createTestClient,
  errorOf,
  expectRefused,
  newDeviceId,
  newIp,
  newEmail as randomEmail,
  type TestClient,
  watchLogs,
} from '../../../test/embedded.js'
import { createApp } from '../../app.js'
import type { Db, Queryable } from '../../db/db.js'
import { MailError } from '../../http/errors.js'
import { pageCsp } from '../../http/pages.js'
import { createProject } from '../../projects/projects.js'
import { pruneAccounts, sessionTtlSeconds, sha256Hex } from '../../wallet/users.js'
import {
  emailResendSeconds,
  emailSendIpLimit,
  maxOtpAttempts,
  otpMailSubject,
  otpTtlSeconds,
  pruneEmailLogin,
} from './codes.js'
import { devOutboxPath } from './devOutbox.js'
import {
  deviceApprovalTtlSeconds,
  deviceMailSubject,
  deviceStatusIpLimit,
  maxAuthBodyBytes,
} from './login.js'
import { devOutboxSize, type Mailer } from './mailer.js'
import { powBaseDifficultyBits } from './proofOfWork.js'

let catcher: MailCatcher
let testDb: TestDb
let app: Hono
let client: TestClient
/** The rules' clock, moved by the tests. */
let clock = Date.parse('2031-03-01T12:00:00.000Z')
const now = () => new Date(clock)
const { onError, spyOnConsole, restoreConsole, expectNoSecret } = watchLogs()
/** Every address, code, token and device id a test used: none may reach a log. */
const secrets = new Set<string>()

beforeAll(async () => {
  spyOnConsole()
  catcher = await createMailCatcher()
  testDb = await createTestDb({
    smtpUrl: `smtp://127.0.0.1:${catcher.port}`,
    publicApiUrl: 'http://api.test',
  })
  app = createApp({ config: testDb.config, db: testDb.db, onError, now })
  client = createTestClient(app)
})
afterAll(async () => {
  await testDb?.close()
  await catcher?.close()
  restoreConsole()
})

function newEmail(): string {
  const email = randomEmail()
  secrets.add(email)
  return email
}

function newDevice(): string {
  const deviceId = newDeviceId()
  secrets.add(deviceId)
  return deviceId
}

/** The device most tests sign in from. */
const device = newDevice()

function login(body: unknown, options: { on?: Hono; ip?: string; projectId?: string } = {}) {
  const on = options.on ? createTestClient(options.on) : client
  return on.post('/auth/v1/login/email', body, options)
}

function verify(body: unknown, options: { on?: Hono; ip?: string; projectId?: string } = {}) {
  const on = options.on ? createTestClient(options.on) : client
  return on.post('/auth/v1/login/email/verify', body, options)
}

/** Asks for a code and reads it from the mail the catcher caught. */
async function requestCode(email: string, { on = app, deviceId = device } = {}): Promise<string> {
  catcher.clear()
  const response = await login({ email, deviceId }, { on })
  expect(response.status).toBe(200)
  expect(await response.json()).toEqual({ action: 'VERIFY_OTP' })
  const mail = await catcher.waitFor((caught) => caught.to.includes(email.toLowerCase()))
  const code = extractCode(mail.text)
  if (code === undefined) throw new Error('no code in the mail')
  secrets.add(code)
  return code
}

/** Signs a new user up on `deviceId`; resolves to the session token and user id. */
async function signUp(email: string, deviceId = device) {
  const otp = await requestCode(email, { deviceId })
  const response = await verify({ email, otp, deviceId })
  expect(response.status).toBe(200)
  const body = (await response.json()) as { token: string; user: { id: string } }
  secrets.add(body.token)
  return body
}

/** Asks for a login on a device the user has not verified; resolves to the approval link. */
async function requestApproval(email: string, deviceId: string): Promise<URL> {
  catcher.clear()
  const response = await login({ email, deviceId })
  expect(response.status).toBe(200)
  // The answer is a code's, as for any address (SECURITY.md 26): the mail holds the link.
  expect(await response.json()).toEqual({ action: 'VERIFY_OTP' })
  const mail = await catcher.waitFor((caught) => caught.to.includes(email))
  const link = /\S+\/auth\/v1\/device\/approve\?token=[\w-]+/.exec(mail.text)?.[0]
  if (link === undefined) throw new Error('no link in the mail')
  const url = new URL(link)
  secrets.add(url.searchParams.get('token') ?? '')
  return url
}

/** The approval page's own form, posted from the API's origin (`publicApiUrl`). */
const approvalForm = {
  'content-type': 'application/x-www-form-urlencoded',
  origin: 'http://api.test',
}

function approve(token: string | null, body?: string) {
  return app.request('/auth/v1/device/approve', {
    method: 'POST',
    headers: approvalForm,
    body: body ?? new URLSearchParams({ token: token ?? '' }).toString(),
  })
}

function deviceStatus(email: string, deviceId: string, ip?: string) {
  return client.post('/auth/v1/device/status', { email, deviceId }, ip ? { ip } : {})
}

function wrong(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0')
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await testDb.db.query<{ count: number }>(sql, params)
  return Number(row?.count)
}

describe('inv-13 POST /auth/v1/login/email: a code by mail, 30 s per address, limits per IP and project', () => {
  test('mails a 6-digit code to a new address; it signs in once, for the address in any case', async () => {
    const email = newEmail()
    catcher.clear()
    const response = await login({ email: email.toUpperCase(), deviceId: device })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.json()).toEqual({ action: 'VERIFY_OTP' })

    const mail = await catcher.waitFor((caught) => caught.to.includes(email))
    expect(mail.to).toEqual([email])
    expect(mail.subject).toBe(otpMailSubject)
    expect(mail.subject).toBe('Your Porthole code')
    expect(mail.from).toBe('no-reply@porthole.localhost')
    const code = extractCode(mail.text)
    expect(code).toMatch(/^\d{6}$/)
    secrets.add(code ?? '')

    const verified = await verify({ email: email.toUpperCase(), otp: code, deviceId: device })
    expect(verified.status).toBe(200)
    expect(verified.headers.get('cache-control')).toBe('no-store')
    const result = (await verified.json()) as { token: string; user: { id: string } }
    secrets.add(result.token)
    expect(result).toEqual({
      token: expect.stringMatching(/^[\w-]{43}$/),
      user: { id: expect.any(String), email },
    })

    const replay = await verify({ email, otp: code, deviceId: device })
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
    const early = await login({ email, deviceId: device })
    expect(early.status).toBe(429)
    expect(early.headers.get('retry-after')).toBe('18')
    expect(await errorOf(early)).toEqual({
      code: 'email_throttled',
      message: 'Please try again after 18 seconds',
    })

    clock += 29_001 - 12_300
    const almost = await login({ email: email.toUpperCase(), deviceId: device })
    expect(almost.status).toBe(429)
    expect((await errorOf(almost)).message).toBe('Please try again after 1 seconds')

    clock += emailResendSeconds * 1000 - 29_001
    await requestCode(email)
  })

  test('the 30 s throttle covers approval links too, with the same message', async () => {
    const email = newEmail()
    await signUp(email)
    clock += emailResendSeconds * 1000
    await requestApproval(email, newDevice())
    clock += 5_000
    // A code (verified device) and a link (new device) both wait.
    for (const deviceId of [device, newDevice()]) {
      const refused = await login({ email, deviceId })
      expect(refused.status).toBe(429)
      expect(await errorOf(refused)).toEqual({
        code: 'email_throttled',
        message: 'Please try again after 25 seconds',
      })
    }
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
    const refused = await login({ email, deviceId: device }, { on: replica })
    expect(refused.status).toBe(429)
    expect(await errorOf(refused)).toEqual({
      code: 'email_throttled',
      message: 'Please try again after 30 seconds',
    })

    // Asked at once on both: exactly one mail goes out.
    const raced = newEmail()
    const answers = await Promise.all([
      login({ email: raced, deviceId: device }),
      login({ email: raced, deviceId: device }, { on: replica }),
    ])
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 429])
  })

  test.each([
    ['no at sign', { email: 'user.example.com' }],
    ['two at signs', { email: 'user@@example.com' }],
    ['a space', { email: 'us er@example.com' }],
    ['no domain', { email: 'user@' }],
    ['over 254 characters', { email: `${'a'.repeat(64)}@${'b'.repeat(186)}.com` }],
    ['a number', { email: 42 }],
    ['no email', {}],
  ])('refuses a body with %s (400)', async (_, body) => {
    const response = await login({ deviceId: device, ...body })
    await expectRefused(response, 400, 'invalid_body')
  })

  test('refuses bad JSON, an oversize body, an unknown project', async () => {
    expect((await errorOf(await login('{nope'))).code).toBe('invalid_json')
    const big = await login({ email: `${'a'.repeat(maxAuthBodyBytes)}@example.com` })
    expect(big.status).toBe(413)
    const unknown = await login(
      { email: newEmail(), deviceId: device },
      { projectId: 'no-such-project' },
    )
    expect(unknown.status).toBe(403)
  })

  test(`limits one IP address to ${emailSendIpLimit.limit} mails per ${emailSendIpLimit.windowSeconds / 60} minutes`, async () => {
    const ip = newIp()
    for (let sent = 0; sent < emailSendIpLimit.limit; sent++) {
      expect((await login({ email: newEmail(), deviceId: device }, { ip })).status).toBe(200)
    }
    const refused = await login({ email: newEmail(), deviceId: device }, { ip })
    expect(refused.status).toBe(429)
    expect(await errorOf(refused)).toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(
        /^Too many mails requested from this network: at most 10 every 10 minutes/,
      ),
    })
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await login({ email: newEmail(), deviceId: device })).status).toBe(200)
  })

  test('IP_LIMIT_SCALE multiplies the per-IP limits (a test stack, or behind a proxy)', async () => {
    const limited = createApp({
      config: { ...testDb.config, ipLimitScale: 2 },
      db: testDb.db,
      onError,
      now,
    })
    const ip = newIp()
    for (let sent = 0; sent < 2 * emailSendIpLimit.limit; sent++)
      expect(
        (await login({ email: newEmail(), deviceId: device }, { on: limited, ip })).status,
      ).toBe(200)
    const refused = await login({ email: newEmail(), deviceId: device }, { on: limited, ip })
    expect(refused.status).toBe(429)
    expect((await errorOf(refused)).message).toMatch(/at most 20 every 10 minutes/)
  })

  test('past 200 mails per 10 minutes, a project asks for a proof of work instead of refusing (inv-22)', async () => {
    await createProject(testDb.db, { id: 'busy-project', name: 'Busy' })
    await testDb.db.query(
      `INSERT INTO rate_limits (key, window_start, count) VALUES ('email-otp-project:busy-project', now(), 200)`,
    )
    const asked = await login(
      { email: newEmail(), deviceId: device },
      { projectId: 'busy-project' },
    )
    expect(asked.status).toBe(428)
    expect(await asked.json()).toEqual({
      error: {
        code: 'proof_of_work_required',
        message: expect.stringMatching(
          /^This project's mail budget \(200 mails in 10 minutes\) is spent: solve the proof of work/,
        ),
      },
      proofOfWork: { challenge: expect.any(String), difficulty: powBaseDifficultyBits },
    })
  })

  test('answers at once when SMTP is down; the failure is reported and frees the address for a retry', async () => {
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
    // The mail goes after the answer (SECURITY.md 26), so the answer cannot say it failed.
    const response = await login({ email, deviceId: device }, { on: broken })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ action: 'VERIFY_OTP' })
    // Reported once its undo ran: the code dropped, the address's slot freed.
    await vi.waitFor(() => expect(onError).toHaveBeenCalledWith(expect.any(MailError)))
    expect(
      await count('SELECT count(*)::int AS count FROM email_otps WHERE email = $1', [email]),
    ).toBe(0)

    const code = await requestCode(email)
    expect((await verify({ email, otp: code, deviceId: device })).status).toBe(200)

    // A failed approval link leaves no approval behind, and frees the address too.
    clock += emailResendSeconds * 1000
    const newcomer = newDevice()
    onError.mockClear()
    const failed = await login({ email, deviceId: newcomer }, { on: broken })
    expect(failed.status).toBe(200)
    await vi.waitFor(() => expect(onError).toHaveBeenCalledWith(expect.any(MailError)))
    expect(
      await count(
        'SELECT count(*)::int AS count FROM device_verifications WHERE device_id_sha256 = $1',
        [sha256Hex(newcomer)],
      ),
    ).toBe(0)
    await requestApproval(email, newcomer)
  })
})

describe('inv-13 POST /auth/v1/login/email/verify: 5 tries, single use, 10 minutes', () => {
  test(`kills the code at the ${maxOtpAttempts}th wrong try; a new code is needed`, async () => {
    const email = newEmail()
    const code = await requestCode(email)
    for (let tries = 1; tries < maxOtpAttempts; tries++) {
      const response = await verify({ email, otp: wrong(code), deviceId: device })
      expect(response.status).toBe(401)
      const left = maxOtpAttempts - tries
      expect(await errorOf(response)).toEqual({
        code: 'invalid_code',
        message: `The code is wrong: ${left} ${left === 1 ? 'try' : 'tries'} left`,
      })
    }
    const last = await verify({ email, otp: wrong(code), deviceId: device })
    expect(last.status).toBe(401)
    expect(await errorOf(last)).toEqual({
      code: 'code_exhausted',
      message: 'Too many wrong codes: a new code is needed',
    })
    // Dead: even the right code fails now.
    const right = await verify({ email, otp: code, deviceId: device })
    expect((await errorOf(right)).code).toBe('code_exhausted')
    expect(await count('SELECT count(*)::int AS count FROM users WHERE email = $1', [email])).toBe(
      0,
    )

    clock += emailResendSeconds * 1000
    const fresh = await requestCode(email)
    expect((await verify({ email, otp: fresh, deviceId: device })).status).toBe(200)
  })

  test('refuses a code 10 minutes old', async () => {
    const email = newEmail()
    const code = await requestCode(email)
    clock += otpTtlSeconds * 1000
    const response = await verify({ email, otp: code, deviceId: device })
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
    expect((await verify({ email, otp: code, deviceId: device })).status).toBe(200)
  })

  test('spends a code once when two verifications race; one user, one session', async () => {
    const email = newEmail()
    const code = await requestCode(email)
    const replica = createApp({ config: testDb.config, db: await testDb.openReplica(), now })
    const answers = await Promise.all([
      verify({ email, otp: code, deviceId: device }),
      verify({ email, otp: code, deviceId: device }, { on: replica }),
    ])
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401])
    expect(await count('SELECT count(*)::int AS count FROM users WHERE email = $1', [email])).toBe(
      1,
    )
    expect(
      await count(
        `SELECT count(*)::int AS count FROM embedded_sessions s JOIN users u ON u.id = s.user_id
         WHERE u.email = $1`,
        [email],
      ),
    ).toBe(1)
  })

  test('a new code replaces the old one', async () => {
    const email = newEmail()
    const first = await requestCode(email)
    clock += emailResendSeconds * 1000
    const second = await requestCode(email)
    if (first !== second) {
      const old = await verify({ email, otp: first, deviceId: device })
      expect((await errorOf(old)).code).toBe('invalid_code')
    }
    expect((await verify({ email, otp: second, deviceId: device })).status).toBe(200)
  })

  test('refuses an address no code was sent to', async () => {
    const response = await verify({ email: newEmail(), otp: '123456', deviceId: device })
    expect(response.status).toBe(401)
    expect(await errorOf(response)).toEqual({
      code: 'invalid_code',
      message: 'No code is waiting for this address: a new code is needed',
    })
  })

  test('refuses a code for another project', async () => {
    const email = newEmail()
    const code = await requestCode(email)
    await createProject(testDb.db, { id: 'other-email', name: 'Other' })
    const response = await verify(
      { email, otp: code, deviceId: device },
      { projectId: 'other-email' },
    )
    expect((await errorOf(response)).code).toBe('invalid_code')
    expect((await verify({ email, otp: code, deviceId: device })).status).toBe(200)
  })

  test('stores only a salted hash of the code', async () => {
    const email = newEmail()
    const code = await requestCode(email)
    const rows = await testDb.db.query('SELECT * FROM email_otps WHERE email = $1', [email])
    expect(rows).toHaveLength(1)
    expect(JSON.stringify(rows)).not.toContain(code)
  })

  test('signs the same user in again on the same device, with a new session each time', async () => {
    const email = newEmail()
    const first = await signUp(email)
    clock += emailResendSeconds * 1000
    const otp = await requestCode(email)
    const again = await verify({ email, otp, deviceId: device })
    expect(again.status).toBe(200)
    const second = (await again.json()) as { token: string; user: { id: string } }
    secrets.add(second.token)
    expect(second.user.id).toBe(first.user.id)
    expect(second.token).not.toBe(first.token)
    expect(await count('SELECT count(*)::int AS count FROM users WHERE email = $1', [email])).toBe(
      1,
    )
  })

  test('refuses (403) a known user on a device not verified for them, keeping the code', async () => {
    const email = newEmail()
    await signUp(email)
    clock += emailResendSeconds * 1000
    const otp = await requestCode(email)
    const stranger = newDevice()
    const refused = await verify({ email, otp, deviceId: stranger })
    expect(refused.status).toBe(403)
    expect(await errorOf(refused)).toEqual({
      code: 'device_not_verified',
      message:
        'This device is not approved for this account yet: approve it with the link in the email we sent, then enter the code from the next email',
    })
    expect(await deviceStatus(email, stranger).then((r) => r.json())).toEqual({ verified: false })
    // The code was not spent: the verified device still signs in with it.
    expect((await verify({ email, otp, deviceId: device })).status).toBe(200)
  })

  test.each([
    ['five digits', { otp: '12345' }],
    ['seven digits', { otp: '1234567' }],
    ['letters', { otp: '12345a' }],
    ['a number', { otp: 123456 }],
    ['a bad email', { email: 'nope' }],
    ['no otp', { otp: undefined }],
    ['no device id', { deviceId: undefined }],
    ['a short device id', { deviceId: 'abc' }],
    ['a device id with a slash', { deviceId: `${'a'.repeat(30)}/` }],
  ])('refuses a body with %s (400)', async (_, change) => {
    const response = await verify({
      email: 'user@example.com',
      otp: '123456',
      deviceId: device,
      ...change,
    })
    await expectRefused(response, 400, 'invalid_body')
  })
})

describe('device approval', () => {
  test('a known user on a new device gets a link; GET shows a button and approves nothing', async () => {
    const email = newEmail()
    await signUp(email)
    clock += emailResendSeconds * 1000
    const newcomer = newDevice()
    const link = await requestApproval(email, newcomer)
    const mail = catcher.messages().at(-1)
    expect(mail?.subject).toBe(deviceMailSubject)
    expect(mail?.subject).toBe('Approve this device for Porthole')
    expect(link.origin + link.pathname).toBe('http://api.test/auth/v1/device/approve')
    expect(link.searchParams.get('token')).toMatch(/^[\w-]{43}$/)
    // Only the token's hash is stored.
    const rows = await testDb.db.query('SELECT * FROM device_verifications')
    expect(JSON.stringify(rows)).not.toContain(link.searchParams.get('token'))

    // Mail scanners open links: a GET, even twice, approves nothing.
    for (let opened = 0; opened < 2; opened++) {
      const page = await app.request(`${link.pathname}${link.search}`)
      expect(page.status).toBe(200)
      expect(page.headers.get('content-type')).toMatch(/^text\/html/)
      expect(page.headers.get('content-security-policy')).toBe(pageCsp)
      expect(page.headers.get('x-frame-options')).toBe('DENY')
      // Not no-referrer: its form's POST must carry the page's origin (SECURITY.md 21).
      expect(page.headers.get('referrer-policy')).toBe('same-origin')
      expect(page.headers.get('cache-control')).toBe('no-store')
      const html = await page.text()
      expect(html).not.toMatch(/<script/i)
      expect(html).toContain('<form method="post" action="approve">')
      expect(new URL('approve', `http://api.test${link.pathname}`).pathname).toBe(
        '/auth/v1/device/approve',
      )
      expect(html).toContain(`name="token" value="${link.searchParams.get('token')}"`)
      expect(html).toContain('Porthole dev')
    }
    expect(pageCsp).toMatch(/^default-src 'none'; style-src 'sha256-[\w+/=]+'; form-action 'self'/)
    expect(await deviceStatus(email, newcomer).then((r) => r.json())).toEqual({ verified: false })
  })

  test('the POST verifies the device and mails a code, skipping the 30 s wait but restarting it', async () => {
    const email = newEmail()
    const { user } = await signUp(email)
    clock += emailResendSeconds * 1000
    const newcomer = newDevice()
    const link = await requestApproval(email, newcomer)
    clock += 2_000

    catcher.clear()
    const approved = await approve(link.searchParams.get('token'))
    expect(approved.status).toBe(200)
    expect(approved.headers.get('content-security-policy')).toBe(pageCsp)
    expect(await approved.text()).toContain(
      'This device is approved. Go back to the site and enter the code we just sent.',
    )
    expect(await deviceStatus(email, newcomer).then((r) => r.json())).toEqual({ verified: true })
    // The code came at once, though the link went out 2 s before.
    const mail = await catcher.waitFor((caught) => caught.to.includes(email))
    expect(mail.subject).toBe(otpMailSubject)
    const otp = extractCode(mail.text) ?? ''
    secrets.add(otp)
    // And the next mail waits 30 s again.
    const refused = await login({ email, deviceId: newcomer })
    expect(await errorOf(refused)).toEqual({
      code: 'email_throttled',
      message: 'Please try again after 30 seconds',
    })

    const signedIn = await verify({ email, otp, deviceId: newcomer })
    expect(signedIn.status).toBe(200)
    const result = (await signedIn.json()) as { token: string; user: { id: string } }
    secrets.add(result.token)
    expect(result.user.id).toBe(user.id)
  })

  test('a link works once', async () => {
    const email = newEmail()
    await signUp(email)
    clock += emailResendSeconds * 1000
    const link = await requestApproval(email, newDevice())
    expect((await approve(link.searchParams.get('token'))).status).toBe(200)
    const again = await approve(link.searchParams.get('token'))
    expect(again.status).toBe(410)
    expect(await again.text()).toContain('This link has already been used')
    const page = await app.request(`${link.pathname}${link.search}`)
    expect(page.status).toBe(410)
    expect(await page.text()).not.toContain('<form')
  })

  test(`a link expires after ${deviceApprovalTtlSeconds / 60} minutes`, async () => {
    const email = newEmail()
    await signUp(email)
    clock += emailResendSeconds * 1000
    const newcomer = newDevice()
    const link = await requestApproval(email, newcomer)
    clock += deviceApprovalTtlSeconds * 1000
    const page = await app.request(`${link.pathname}${link.search}`)
    expect(page.status).toBe(410)
    expect(await page.text()).toContain('This link has expired')
    const late = await approve(link.searchParams.get('token'))
    expect(late.status).toBe(410)
    expect(await deviceStatus(email, newcomer).then((r) => r.json())).toEqual({ verified: false })
  })

  test.each([
    ['an unknown token', `token=${'A'.repeat(43)}`],
    ['a malformed token', 'token=abc'],
    ['no token', ''],
    ['two tokens', `token=${'A'.repeat(43)}&token=${'B'.repeat(43)}`],
    ['another field', `token=${'A'.repeat(43)}&extra=1`],
    ['__proto__', `__proto__=${'A'.repeat(43)}`],
  ])('refuses a form with %s (400 page)', async (_, body) => {
    const response = await approve(null, body)
    expect(response.status).toBe(400)
    expect(await response.text()).toContain('This link is not valid')
    const page = await app.request(`/auth/v1/device/approve?${body}`)
    expect(page.status).toBe(400)
  })

  test('refuses a JSON body: the button posts a form', async () => {
    const response = await app.request('/auth/v1/device/approve', {
      method: 'POST',
      headers: { ...approvalForm, 'content-type': 'application/json' },
      body: JSON.stringify({ token: 'A'.repeat(43) }),
    })
    expect(response.status).toBe(415)
  })
})

describe('POST /auth/v1/device/status', () => {
  test('says false for an address nobody uses, true only for the verified device', async () => {
    expect(await deviceStatus(newEmail(), device).then((r) => r.json())).toEqual({
      verified: false,
    })
    const email = newEmail()
    await signUp(email)
    expect(await deviceStatus(email.toUpperCase(), device).then((r) => r.json())).toEqual({
      verified: true,
    })
    expect(await deviceStatus(email, newDevice()).then((r) => r.json())).toEqual({
      verified: false,
    })
  })

  test(`limits one IP address to ${deviceStatusIpLimit.limit} checks per 10 minutes`, async () => {
    const ip = newIp()
    const email = newEmail()
    await testDb.db.query(
      `INSERT INTO rate_limits (key, window_start, count) VALUES ($1, now(), $2)`,
      [`device-status-ip:${ip}`, deviceStatusIpLimit.limit - 1],
    )
    expect((await deviceStatus(email, device, ip)).status).toBe(200)
    const refused = await deviceStatus(email, device, ip)
    await expectRefused(refused, 429, 'rate_limited')
    expect((await deviceStatus(email, device)).status).toBe(200)
  })

  test('refuses unknown keys', async () => {
    const response = await client.post('/auth/v1/device/status', {
      email: newEmail(),
      deviceId: device,
      userId: 'x',
    })
    expect(response.status).toBe(400)
  })
})

describe('GET and DELETE /auth/v1/session', () => {
  test('answers the session user; DELETE ends the session (204), then 401 session_expired', async () => {
    const email = newEmail()
    const { token, user } = await signUp(email)
    const session = await client.get('/auth/v1/session', { token })
    expect(session.status).toBe(200)
    expect(session.headers.get('cache-control')).toBe('no-store')
    expect(await session.json()).toEqual({ user: { id: user.id, email } })

    expect((await client.delete('/auth/v1/session', { token })).status).toBe(204)
    const ended = await client.get('/auth/v1/session', { token })
    expect(ended.status).toBe(401)
    expect(ended.headers.get('www-authenticate')).toMatch(/^Bearer /)
    expect(await errorOf(ended)).toEqual({
      code: 'session_expired',
      message: 'The session has ended: sign in again',
    })
  })

  test('a session lasts 30 days', async () => {
    const { token } = await signUp(newEmail())
    clock += sessionTtlSeconds * 1000 - 1000
    expect((await client.get('/auth/v1/session', { token })).status).toBe(200)
    clock += 1000
    expect((await errorOf(await client.get('/auth/v1/session', { token }))).code).toBe(
      'session_expired',
    )
  })

  test('stores only the SHA-256 of the token', async () => {
    const { token } = await signUp(newEmail())
    const rows = await testDb.db.query('SELECT * FROM embedded_sessions')
    expect(JSON.stringify(rows)).not.toContain(token)
    expect(
      await count('SELECT count(*)::int AS count FROM embedded_sessions WHERE token_sha256 = $1', [
        sha256Hex(token),
      ]),
    ).toBe(1)
  })

  test('a session belongs to its project', async () => {
    const { token } = await signUp(newEmail())
    await createProject(testDb.db, { id: 'other-session', name: 'Other' })
    const other = await client.get('/auth/v1/session', { token, projectId: 'other-session' })
    expect((await errorOf(other)).code).toBe('session_expired')
  })

  test.each([
    ['no header', undefined, 'missing_token'],
    ['a malformed token', 'Bearer abc', 'invalid_token'],
    ['another scheme', `Basic ${'a'.repeat(43)}`, 'invalid_token'],
    ['an unknown token', `Bearer ${'a'.repeat(43)}`, 'session_expired'],
  ])('answers 401 to %s', async (_, header, code) => {
    const response = await app.request('/auth/v1/session?projectId=porthole-dev', {
      headers: header === undefined ? {} : { authorization: header },
    })
    expect(response.status).toBe(401)
    expect((await errorOf(response)).code).toBe(code)
  })
})

/**
 * A database whose transactions fail at the first statement matching
 * `failAt`, as a process killed there would leave them: rolled back.
 */
function failingDb(db: Db, failAt: RegExp): Db {
  const failing = (target: Queryable): Queryable => ({
    query: (sql, params) =>
      failAt.test(sql) ? Promise.reject(new Error('killed')) : target.query(sql, params),
    exec: (sql) => target.exec(sql),
  })
  return { ...db, transaction: (fn) => db.transaction((tx) => fn(failing(tx))) }
}

describe('inv-19 a login that fails midway leaves nothing half-made', () => {
  test.each([
    ['making the user', /INSERT INTO identities/],
    ['verifying the device', /INSERT INTO devices/],
    ['opening the session', /INSERT INTO embedded_sessions/],
  ])(
    'a failure while %s keeps no user, device or session and leaves the code usable',
    async (_, failAt) => {
      const email = newEmail()
      const otp = await requestCode(email)
      const crashing = createApp({ config: testDb.config, db: failingDb(testDb.db, failAt), now })
      const failed = await verify({ email, otp, deviceId: device }, { on: crashing })
      expect(failed.status).toBe(500)
      expect(
        await count('SELECT count(*)::int AS count FROM users WHERE email = $1', [email]),
      ).toBe(0)
      expect(
        await count(
          `SELECT count(*)::int AS count FROM identities WHERE provider = 'email' AND subject = $1`,
          [email],
        ),
      ).toBe(0)
      expect(
        await count(
          `SELECT count(*)::int AS count FROM email_otps WHERE email = $1 AND used_at IS NOT NULL`,
          [email],
        ),
      ).toBe(0)

      // The retry completes the login.
      const retried = await verify({ email, otp, deviceId: device })
      expect(retried.status).toBe(200)
      expect(
        await count('SELECT count(*)::int AS count FROM users WHERE email = $1', [email]),
      ).toBe(1)
    },
  )

  test('a device approval that fails midway approves nothing and keeps the link usable', async () => {
    const email = newEmail()
    await signUp(email)
    clock += emailResendSeconds * 1000
    const newcomer = newDevice()
    const link = await requestApproval(email, newcomer)
    const crashing = createApp({
      config: testDb.config,
      db: failingDb(testDb.db, /INSERT INTO email_otps/),
      now,
    })
    const failed = await crashing.request('/auth/v1/device/approve', {
      method: 'POST',
      headers: approvalForm,
      body: `token=${link.searchParams.get('token')}`,
    })
    expect(failed.status).toBe(500)
    expect(await deviceStatus(email, newcomer).then((r) => r.json())).toEqual({ verified: false })
    expect((await approve(link.searchParams.get('token'))).status).toBe(200)
    expect(await deviceStatus(email, newcomer).then((r) => r.json())).toEqual({ verified: true })
  })
})

describe('GET /dev/outbox/<token>', () => {
  test('is absent unless DEV_OUTBOX=true', async () => {
    expect((await app.request(devOutboxPath(testDb.config))).status).toBe(404)
  })

  test('shows the mail the dev transport recorded when SMTP_URL is unset', async () => {
    const dev = createApp({
      config: { ...testDb.config, smtpUrl: undefined, devOutbox: true },
      db: testDb.db,
      now,
    })
    const email = newEmail()
    catcher.clear()
    expect((await login({ email, deviceId: device }, { on: dev })).status).toBe(200)
    expect(catcher.messages()).toEqual([])

    const json = await dev.request(`${devOutboxPath(testDb.config)}?format=json`)
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

    const html = await dev.request(devOutboxPath(testDb.config))
    expect(html.headers.get('content-type')).toMatch(/^text\/html/)
    expect(html.headers.get('content-security-policy')).toContain("default-src 'none'")
    const page = await html.text()
    expect(page).toContain(email)
    expect(page).toContain(code)
    expect(page).toContain('Porthole &lt;no-reply@porthole.localhost&gt;')

    expect((await verify({ email, otp: code, deviceId: device }, { on: dev })).status).toBe(200)
    expect((await dev.request(`${devOutboxPath(testDb.config)}?format=xml`)).status).toBe(400)
    // Only under its token (SECURITY.md 25): the bare path is an unknown one.
    expect((await dev.request('/dev/outbox?format=json')).status).toBe(404)
  })

  test(`keeps the last ${devOutboxSize} mails`, async () => {
    const dev = createApp({
      config: { ...testDb.config, smtpUrl: undefined, devOutbox: true },
      db: testDb.db,
      now,
    })
    for (let sent = 0; sent < devOutboxSize + 2; sent++) {
      expect((await login({ email: newEmail(), deviceId: device }, { on: dev })).status).toBe(200)
    }
    expect(await count('SELECT count(*)::int AS count FROM dev_outbox')).toBe(devOutboxSize)
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

describe('pruneAccounts', () => {
  test('deletes sessions ended over a day ago and approvals long expired, keeping live ones', async () => {
    const email = newEmail()
    const { token } = await signUp(email)
    const live = await signUp(newEmail(), newDevice())
    await testDb.db.query(
      `UPDATE embedded_sessions SET expires_at = now() - interval '2 days' WHERE token_sha256 = $1`,
      [sha256Hex(token)],
    )
    clock += emailResendSeconds * 1000
    await requestApproval(email, newDevice())
    await testDb.db.query(
      `UPDATE device_verifications SET expires_at = now() - interval '2 hours'
       WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
      [email],
    )
    expect(await pruneAccounts(testDb.db)).toBeGreaterThanOrEqual(2)
    expect(
      await count('SELECT count(*)::int AS count FROM embedded_sessions WHERE token_sha256 = $1', [
        sha256Hex(token),
      ]),
    ).toBe(0)
    expect((await client.get('/auth/v1/session', { token: live.token })).status).toBe(200)
    expect(
      await count(
        `SELECT count(*)::int AS count FROM device_verifications
         WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
        [email],
      ),
    ).toBe(0)
  })
})

/** A database that records the text of every statement run through it (transactions included). */
function recordingDb(db: Db, log: string[]): Db {
  const recording = (target: Queryable): Queryable => ({
    query: (sql, params) => {
      log.push(sql.replace(/\s+/g, ' ').trim())
      return target.query(sql, params)
    },
    exec: (sql) => target.exec(sql),
  })
  return {
    ...db,
    query: recording(db).query,
    transaction: (fn) => db.transaction((tx) => fn(recording(tx))),
  }
}

/** A mailer that holds every send until `release()` (an SMTP server slow to answer). */
function heldMailer() {
  const memory = createMemoryMailer()
  let release = () => {}
  let held = new Promise<void>((resolve) => {
    release = resolve
  })
  const mailer: Mailer & { release(): void; hold(): void } = {
    kind: 'smtp',
    async send(mail) {
      await held
      await memory.send(mail)
    },
    release: () => release(),
    hold() {
      held = new Promise<void>((resolve) => {
        release = resolve
      })
    },
  }
  return { mailer, memory }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

/** A client address in a /24 of its own, so per-IP and per-prefix limits stay out of the way. */
let oracleIp = 0
const ownIp = () => {
  oracleIp += 1
  return `10.26.${oracleIp % 250}.${Math.floor(oracleIp / 250) + 1}`
}

describe('inv-26 no account oracle: login answers the same whether the email has an account', () => {
  const projectId = 'oracle-project'
  let memory: ReturnType<typeof createMemoryMailer>
  let statements: string[]
  let recorded: Hono
  let oracle: TestClient

  beforeAll(async () => {
    await createProject(testDb.db, { id: projectId, name: 'Oracle' })
    memory = createMemoryMailer()
    statements = []
    recorded = createApp({
      config: testDb.config,
      db: recordingDb(testDb.db, statements),
      mailer: memory,
      onError,
      now,
    })
    oracle = createTestClient(recorded, { projectId })
  })

  /** A user signed up by email on `device`, in this project; the next mail may go at once. */
  async function registered(): Promise<{ email: string; userId: string }> {
    const email = newEmail()
    const asked = await oracle.post(
      '/auth/v1/login/email',
      { email, deviceId: device },
      { ip: ownIp() },
    )
    expect(asked.status).toBe(200)
    await vi.waitFor(() => memory.code(email))
    const otp = memory.code(email)
    secrets.add(otp)
    const verified = await oracle.post(
      '/auth/v1/login/email/verify',
      { email, otp, deviceId: device },
      { ip: ownIp() },
    )
    expect(verified.status).toBe(200)
    const result = (await verified.json()) as { token: string; user: { id: string } }
    secrets.add(result.token)
    clock += emailResendSeconds * 1000
    return { email, userId: result.user.id }
  }

  /** What a caller sees of an answer: status, the headers that matter, the body. */
  async function seen(response: Response) {
    return {
      status: response.status,
      contentType: response.headers.get('content-type'),
      cacheControl: response.headers.get('cache-control'),
      retryAfter: response.headers.get('retry-after'),
      body: await response.text(),
    }
  }

  test('a registered address on a new device and an unknown address get the same answer, and one mail each', async () => {
    const { email: known } = await registered()
    const unknown = newEmail()
    const stranger = newDevice()
    const sentBefore = memory.sent.length

    const forKnown = await seen(
      await oracle.post(
        '/auth/v1/login/email',
        { email: known, deviceId: stranger },
        { ip: ownIp() },
      ),
    )
    const forUnknown = await seen(
      await oracle.post(
        '/auth/v1/login/email',
        { email: unknown, deviceId: stranger },
        { ip: ownIp() },
      ),
    )
    expect(forKnown).toEqual(forUnknown)
    expect(forUnknown).toEqual({
      status: 200,
      contentType: 'application/json',
      cacheControl: 'no-store',
      retryAfter: null,
      body: JSON.stringify({ action: 'VERIFY_OTP' }),
    })

    // One mail each: the device approval for the account, a code for the unknown address.
    await vi.waitFor(() => expect(memory.sent.length).toBe(sentBefore + 2))
    const mails = memory.sent.slice(sentBefore)
    expect(mails.filter((mail) => mail.to === known).map((mail) => mail.subject)).toEqual([
      deviceMailSubject,
    ])
    expect(mails.filter((mail) => mail.to === unknown).map((mail) => mail.subject)).toEqual([
      otpMailSubject,
    ])
    expect(memory.last(known)?.text).toContain(
      "Approve this device, then we'll mail you a code to enter",
    )
    secrets.add(memory.link(known).searchParams.get('token') ?? '')
    secrets.add(memory.code(unknown))
  })

  test('a guessed code then answers alike too (the approval mail carries no code)', async () => {
    const { email: known } = await registered()
    const unknown = newEmail()
    const stranger = newDevice()
    for (const email of [known, unknown]) {
      const asked = await oracle.post(
        '/auth/v1/login/email',
        { email, deviceId: stranger },
        { ip: ownIp() },
      )
      expect(asked.status).toBe(200)
      await vi.waitFor(() => expect(memory.last(email)).toBeDefined())
    }
    secrets.add(memory.link(known).searchParams.get('token') ?? '')
    secrets.add(memory.code(unknown))
    const guess = '000000'
    const checkKnown = await seen(
      await oracle.post(
        '/auth/v1/login/email/verify',
        { email: known, otp: guess, deviceId: stranger },
        { ip: ownIp() },
      ),
    )
    const checkUnknown = await seen(
      await oracle.post(
        '/auth/v1/login/email/verify',
        {
          email: unknown,
          otp: memory.code(unknown) === guess ? '000001' : guess,
          deviceId: stranger,
        },
        { ip: ownIp() },
      ),
    )
    expect(checkKnown).toEqual(checkUnknown)
    expect(checkKnown.status).toBe(401)
  })

  test('both paths run the same database statements', async () => {
    const { email: known } = await registered()
    const unknown = newEmail()
    const stranger = newDevice()

    statements.length = 0
    await oracle.post('/auth/v1/login/email', { email: known, deviceId: stranger }, { ip: ownIp() })
    const forKnown = statements.splice(0)
    await oracle.post(
      '/auth/v1/login/email',
      { email: unknown, deviceId: stranger },
      { ip: ownIp() },
    )
    const forUnknown = statements.splice(0)
    await vi.waitFor(() => expect(memory.last(unknown)).toBeDefined())
    await vi.waitFor(() => expect(memory.last(known)).toBeDefined())
    secrets.add(memory.code(unknown))
    secrets.add(memory.link(known).searchParams.get('token') ?? '')
    expect(forKnown).toEqual(forUnknown)
  })

  test('the mail goes after the answer: an SMTP server slow to answer holds neither path', async () => {
    const stranger = newDevice()
    const held = heldMailer()
    const slow = createTestClient(
      createApp({ config: testDb.config, db: testDb.db, mailer: held.mailer, onError, now }),
      { projectId },
    )
    const { email: other } = await registered()
    for (const email of [other, newEmail()]) {
      const answer = slow.post(
        '/auth/v1/login/email',
        { email, deviceId: stranger },
        { ip: ownIp() },
      )
      const first = await Promise.race([
        answer.then(() => 'answered'),
        new Promise((resolve) => setTimeout(() => resolve('mail first'), 2_000)),
      ])
      expect(first).toBe('answered')
      expect(held.memory.last(email)).toBeUndefined()
      held.mailer.release()
      await answer
      await vi.waitFor(() => expect(held.memory.last(email)).toBeDefined())
      held.mailer.hold()
    }
    secrets.add(held.memory.link(other).searchParams.get('token') ?? '')
  })

  test('over 20 tries each, the two answers take the same time, within noise', async () => {
    const tries = 20
    const accounts = []
    for (let index = 0; index < tries; index++) accounts.push((await registered()).email)
    const times: { known: number[]; unknown: number[] } = { known: [], unknown: [] }
    const timed = async (email: string) => {
      const started = performance.now()
      const response = await oracle.post(
        '/auth/v1/login/email',
        { email, deviceId: newDevice() },
        { ip: ownIp() },
      )
      const elapsed = performance.now() - started
      expect(response.status).toBe(200)
      return elapsed
    }
    // Interleaved, so drift of the machine affects both alike.
    for (const email of accounts) {
      times.known.push(await timed(email))
      times.unknown.push(await timed(newEmail()))
    }
    const known = median(times.known)
    const unknown = median(times.unknown)
    expect(Math.abs(known - unknown)).toBeLessThanOrEqual(3 + 0.5 * Math.max(known, unknown))
  })

  test('device status tells a caller without the device nothing: false for both', async () => {
    const { email: known } = await registered()
    const stranger = newDevice()
    const ask = (email: string) =>
      oracle.post('/auth/v1/device/status', { email, deviceId: stranger }, { ip: ownIp() })
    expect(await seen(await ask(known))).toEqual(await seen(await ask(newEmail())))
  })

  test('positive control: the registered user on a new device signs in with the link, then the code', async () => {
    const { email, userId } = await registered()
    const newcomer = newDevice()
    const asked = await oracle.post(
      '/auth/v1/login/email',
      { email, deviceId: newcomer },
      { ip: ownIp() },
    )
    expect(await asked.json()).toEqual({ action: 'VERIFY_OTP' })
    await vi.waitFor(() => memory.link(email))
    const link = memory.link(email)
    secrets.add(link.searchParams.get('token') ?? '')

    const approved = await recorded.request('/auth/v1/device/approve', {
      method: 'POST',
      headers: approvalForm,
      body: new URLSearchParams({ token: link.searchParams.get('token') ?? '' }).toString(),
    })
    expect(approved.status).toBe(200)
    await vi.waitFor(() => expect(memory.last(email)?.subject).toBe(otpMailSubject))
    const otp = memory.code(email)
    secrets.add(otp)
    const signedIn = await oracle.post(
      '/auth/v1/login/email/verify',
      { email, otp, deviceId: newcomer },
      { ip: ownIp() },
    )
    expect(signedIn.status).toBe(200)
    const result = (await signedIn.json()) as { token: string; user: { id: string } }
    secrets.add(result.token)
    expect(result.user.id).toBe(userId)
  })
})

describe('inv-11 no code, token, device id or address in the logs', () => {
  test('console output and reported errors never hold a secret', () => {
    expectNoSecret(secrets, 10)
  })
})
