import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../../test/db.js'
import {
  createMemoryMailer,
  createTestClient,
  errorOf,
  expectRefused,
  type MemoryMailer,
  newEmail,
  signUp,
  type TestClient,
} from '../../../test/embedded.js'
import { createApp } from '../../app.js'
import { createSession, createUser, verifyDevice } from '../../wallet/users.js'
import { emailResendSeconds, maxOtpAttempts, otpTtlSeconds } from './codes.js'
import { primaryMailSubject, secondaryMailSubject } from './update.js'

let testDb: TestDb
let app: Hono
let client: TestClient
let mailer: MemoryMailer
let clock = Date.parse('2032-05-01T08:00:00.000Z')
const now = () => new Date(clock)

beforeAll(async () => {
  testDb = await createTestDb()
  mailer = createMemoryMailer()
  app = createApp({ config: testDb.config, db: testDb.db, mailer, now })
  client = createTestClient(app)
})
afterAll(() => testDb?.close())

/** A signed-in user whose sign-up mail is 30 s old, so the next mail to them may go. */
async function newUser() {
  const user = await signUp(client, mailer)
  clock += emailResendSeconds * 1000
  return user
}

function update(token: string, step: '' | '/primary' | '/secondary', body: unknown) {
  return client.post(`/auth/v1/email/update${step}`, body, { token })
}

async function session(token: string) {
  return (
    (await (await client.get('/auth/v1/session', { token })).json()) as {
      user: { email?: string }
    }
  ).user
}

function wrong(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0')
}

describe('inv-13 email change', () => {
  test('a code to the current address, then one to the new address, then the email changes', async () => {
    const { token, email } = await newUser()
    const target = newEmail()

    const started = await update(token, '', { email: target.toUpperCase() })
    expect(started.status).toBe(200)
    expect(await started.json()).toEqual({ action: 'VERIFY_PRIMARY_OTP' })
    expect(mailer.last(email)?.subject).toBe(primaryMailSubject)
    expect(mailer.last(target)).toBeUndefined()

    const primary = await update(token, '/primary', { otp: mailer.code(email) })
    expect(primary.status).toBe(200)
    expect(await primary.json()).toEqual({ action: 'VERIFY_SECONDARY_OTP' })
    expect(mailer.last(target)?.subject).toBe(secondaryMailSubject)

    const secondary = await update(token, '/secondary', { otp: mailer.code(target) })
    expect(secondary.status).toBe(200)
    expect(await secondary.json()).toEqual({ newEmail: target })
    expect((await session(token)).email).toBe(target)

    // Email login now finds the user at the new address only.
    const identities = await testDb.db.query(
      `SELECT subject FROM identities WHERE provider = 'email' AND user_id =
         (SELECT id FROM users WHERE email = $1)`,
      [target],
    )
    expect(identities).toEqual([{ subject: target }])
    const old = await client.post('/auth/v1/device/status', {
      email,
      deviceId: 'A'.repeat(22),
    })
    expect(await old.json()).toEqual({ verified: false })
  })

  test('the primary code is not the secondary code: each step checks its own', async () => {
    const { token, email } = await newUser()
    const target = newEmail()
    await update(token, '', { email: target })
    const primaryCode = mailer.code(email)
    // The secondary step is not open yet.
    const early = await update(token, '/secondary', { otp: primaryCode })
    await expectRefused(early, 409, 'no_email_update')
    await update(token, '/primary', { otp: primaryCode })
    const secondaryCode = mailer.code(target)
    if (secondaryCode !== primaryCode) {
      const crossed = await update(token, '/secondary', { otp: primaryCode })
      expect((await errorOf(crossed)).code).toBe('invalid_code')
    }
    expect((await update(token, '/secondary', { otp: secondaryCode })).status).toBe(200)
  })

  test('a login code for the current address does not pass for the email change', async () => {
    const { token, email, deviceId } = await newUser()
    await update(token, '', { email: newEmail() })
    const updateCode = mailer.code(email)
    clock += emailResendSeconds * 1000
    const login = await client.post('/auth/v1/login/email', { email, deviceId })
    expect(await login.json()).toEqual({ action: 'VERIFY_OTP' })
    const loginCode = mailer.code(email)
    if (loginCode !== updateCode) {
      const crossed = await update(token, '/primary', { otp: loginCode })
      expect((await errorOf(crossed)).code).toBe('invalid_code')
    }
    expect((await update(token, '/primary', { otp: updateCode })).status).toBe(200)
    // And the login code still signs in: the two codes live side by side.
    const verified = await client.post('/auth/v1/login/email/verify', {
      email,
      otp: loginCode,
      deviceId,
    })
    expect(verified.status).toBe(200)
  })

  test(`the codes keep the login rules: ${maxOtpAttempts} tries, single use, 10 minutes`, async () => {
    const { token, email } = await newUser()
    await update(token, '', { email: newEmail() })
    const code = mailer.code(email)
    for (let tries = 1; tries < maxOtpAttempts; tries++) {
      expect((await errorOf(await update(token, '/primary', { otp: wrong(code) }))).code).toBe(
        'invalid_code',
      )
    }
    expect((await errorOf(await update(token, '/primary', { otp: wrong(code) }))).code).toBe(
      'code_exhausted',
    )
    expect((await errorOf(await update(token, '/primary', { otp: code }))).code).toBe(
      'code_exhausted',
    )

    clock += emailResendSeconds * 1000
    await update(token, '', { email: newEmail() })
    const late = mailer.code(email)
    clock += otpTtlSeconds * 1000
    const expired = await update(token, '/primary', { otp: late })
    await expectRefused(expired, 409, 'no_email_update')
  })

  test('30 s between mails to the current address, with the login message', async () => {
    const { token } = await newUser()
    expect((await update(token, '', { email: newEmail() })).status).toBe(200)
    clock += 10_000
    const refused = await update(token, '', { email: newEmail() })
    expect(refused.status).toBe(429)
    expect(await errorOf(refused)).toEqual({
      code: 'email_throttled',
      message: 'Please try again after 20 seconds',
    })
  })

  test('409 email_taken when another user has the new address', async () => {
    const alice = await newUser()
    const bob = await newUser()
    await update(alice.token, '', { email: bob.email })
    await update(alice.token, '/primary', { otp: mailer.code(alice.email) })
    const taken = await update(alice.token, '/secondary', { otp: mailer.code(bob.email) })
    expect(taken.status).toBe(409)
    expect(await errorOf(taken)).toEqual({
      code: 'email_taken',
      message: 'Another account already uses this email',
    })
    expect((await session(alice.token)).email).toBe(alice.email)
    expect((await session(bob.token)).email).toBe(bob.email)
  })

  test('inv-26 until the code of the new address, an address with an account is answered as one without', async () => {
    const bob = await newUser()
    const seen = async (response: Response) => ({
      status: response.status,
      body: (await response.text()).replace(/\d+ tries left/, 'n tries left'),
    })
    const answers = []
    for (const target of [bob.email, newEmail()]) {
      const alice = await newUser()
      const started = await seen(await update(alice.token, '', { email: target }))
      const primary = await seen(
        await update(alice.token, '/primary', { otp: mailer.code(alice.email) }),
      )
      const subject = mailer.last(target)?.subject
      const code = mailer.code(target)
      const guessed = await seen(await update(alice.token, '/secondary', { otp: wrong(code) }))
      answers.push({ started, primary, subject, guessed })
    }
    expect(answers[0]).toEqual(answers[1])
    expect(answers[0]?.primary.status).toBe(200)
    expect(answers[0]?.guessed.status).toBe(401)
  })

  test('a user without an email gets the code at the new address at once', async () => {
    const userId = await testDb.db.transaction(async (tx) => {
      const id = await createUser(tx, { email: null, provider: 'x', subject: 'x-1' }, now())
      await verifyDevice(tx, id ?? '', 'device', now())
      return id ?? ''
    })
    const token = await testDb.db.transaction(async (tx) =>
      createSession(tx, { userId, projectId: 'porthole-dev', deviceIdSha256: 'device' }, now()),
    )
    const target = newEmail()
    const started = await update(token, '', { email: target })
    expect(await started.json()).toEqual({ action: 'VERIFY_SECONDARY_OTP' })
    expect((await update(token, '/secondary', { otp: mailer.code(target) })).status).toBe(200)
    expect((await session(token)).email).toBe(target)
  })

  test('refuses the current address, a missing session and unknown keys', async () => {
    const { token, email } = await newUser()
    const same = await update(token, '', { email: email.toUpperCase() })
    await expectRefused(same, 400, 'same_email')
    expect((await client.post('/auth/v1/email/update', { email: newEmail() })).status).toBe(401)
    const extra = await update(token, '', { email: newEmail(), userId: 'someone-else' })
    expect((await errorOf(extra)).code).toBe('invalid_body')
    const proto = await update(token, '/primary', JSON.parse('{"otp":"123456","__proto__":{}}'))
    expect((await errorOf(proto)).code).toBe('invalid_body')
  })

  test("one user's pending change is not another's", async () => {
    const alice = await newUser()
    const bob = await newUser()
    await update(alice.token, '', { email: newEmail() })
    const stolen = await update(bob.token, '/primary', { otp: mailer.code(alice.email) })
    await expectRefused(stolen, 409, 'no_email_update')
  })
})
