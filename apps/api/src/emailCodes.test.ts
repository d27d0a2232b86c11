/**
 * SECURITY.md 13, 22 and 26: one address gets at most `emailAddressLimit`
 * mails an hour, however many IP addresses (and API replicas) ask, so it
 * cannot be mail-bombed; the refusal reads the same whether or not the
 * address has an account.
 */
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createApp } from './app.js'
import { createTestDb, type TestDb } from './db/testing.js'
import { emailAddressLimit, emailResendSeconds } from './emailCodes.js'
import {
  createMemoryMailer,
  createTestClient,
  errorOf,
  type MemoryMailer,
  newDeviceId,
  newEmail,
  signUp,
  type TestClient,
} from './embeddedTesting.js'

let testDb: TestDb
let mailer: MemoryMailer
let app: Hono
let client: TestClient
/** The rules' clock, moved by the tests. */
let clock = Date.parse('2032-06-01T08:00:00.000Z')
const now = () => new Date(clock)
const waitOutThrottle = () => {
  clock += (emailResendSeconds + 1) * 1000
}

beforeAll(async () => {
  testDb = await createTestDb({ publicApiUrl: 'http://api.test' })
  mailer = createMemoryMailer()
  app = createApp({ config: testDb.config, db: testDb.db, mailer, now })
  client = createTestClient(app)
})
afterAll(() => testDb?.close())

/** Asks for a login to `email` from a fresh IP address each time (the default). */
const login = (email: string, { on = client, deviceId = newDeviceId() } = {}) =>
  on.post('/auth/v1/login/email', { email, deviceId })

const mailsTo = (email: string) => mailer.sent.filter((mail) => mail.to === email).length

describe(`inv-22 at most ${emailAddressLimit.limit} mails an hour to one address`, () => {
  test('from a new IP address each time: the next one waits for the hour, then works again', async () => {
    const email = newEmail()
    for (let sent = 0; sent < emailAddressLimit.limit; sent++) {
      expect((await login(email)).status).toBe(200)
      waitOutThrottle()
    }
    expect(mailsTo(email)).toBe(emailAddressLimit.limit)

    const refused = await login(email)
    expect(refused.status).toBe(429)
    const wait =
      emailAddressLimit.windowSeconds - emailAddressLimit.limit * (emailResendSeconds + 1)
    expect(refused.headers.get('retry-after')).toBe(String(wait))
    expect(await errorOf(refused)).toEqual({
      code: 'email_throttled',
      message: `Please try again after ${wait} seconds`,
    })
    expect(mailsTo(email)).toBe(emailAddressLimit.limit)
    // The refusal counted nothing, and left the 30 s slot free: asking again says the same.
    expect((await errorOf(await login(email))).message).toBe(
      `Please try again after ${wait} seconds`,
    )

    clock += wait * 1000
    expect((await login(email)).status).toBe(200)
    expect(mailsTo(email)).toBe(emailAddressLimit.limit + 1)
  })

  test('the address in another case is the same address', async () => {
    const email = newEmail()
    for (let sent = 0; sent < emailAddressLimit.limit; sent++) {
      expect((await login(sent % 2 ? email.toUpperCase() : email)).status).toBe(200)
      waitOutThrottle()
    }
    expect((await login(email.toUpperCase())).status).toBe(429)
  })

  test('holds across two API replicas sharing the database', async () => {
    const replica = createTestClient(
      createApp({ config: testDb.config, db: await testDb.openReplica(), mailer, now }),
    )
    const email = newEmail()
    for (let sent = 0; sent < emailAddressLimit.limit; sent++) {
      expect((await login(email, { on: sent % 2 ? replica : client })).status).toBe(200)
      waitOutThrottle()
    }
    expect((await login(email, { on: replica })).status).toBe(429)
    expect((await login(email, { on: client })).status).toBe(429)
  })

  test('a mail that could not be sent does not count', async () => {
    const email = newEmail()
    mailer.failNext(emailAddressLimit.limit + 2)
    for (let failed = 0; failed < emailAddressLimit.limit + 2; failed++)
      expect((await login(email)).status).toBe(502)
    for (let sent = 0; sent < emailAddressLimit.limit; sent++) {
      expect((await login(email)).status).toBe(200)
      waitOutThrottle()
    }
    expect((await login(email)).status).toBe(429)
  })

  test('another address is not held up', async () => {
    const email = newEmail()
    for (let sent = 0; sent < emailAddressLimit.limit; sent++) {
      expect((await login(email)).status).toBe(200)
      waitOutThrottle()
    }
    expect((await login(email)).status).toBe(429)
    expect((await login(newEmail())).status).toBe(200)
  })
})

describe('inv-26 the hourly cap tells nobody whether an address has an account', () => {
  test('an account (approval links) and no account (codes) get the same answers', async () => {
    const { email: member } = await signUp(client, mailer)
    const stranger = newEmail()
    // The member's sign-up mail counted once: give the stranger one too, at the same time.
    expect((await login(stranger)).status).toBe(200)
    waitOutThrottle()

    const answers: { member: unknown[]; stranger: unknown[] } = { member: [], stranger: [] }
    for (let asked = 1; asked <= emailAddressLimit.limit; asked++) {
      for (const [who, email] of [
        ['member', member],
        ['stranger', stranger],
      ] as const) {
        const response = await login(email)
        answers[who].push([
          response.status,
          response.headers.get('retry-after'),
          response.status === 200 ? 'sent' : await errorOf(response),
        ])
      }
      waitOutThrottle()
    }
    expect(answers.member).toEqual(answers.stranger)
    expect(answers.member.at(-1)).toEqual([
      429,
      expect.any(String),
      {
        code: 'email_throttled',
        message: expect.stringMatching(/^Please try again after \d+ seconds$/),
      },
    ])
  })

  test('a followed approval link still mails its code when the address is capped', async () => {
    const { email } = await signUp(client, mailer)
    waitOutThrottle()
    const deviceId = newDeviceId()
    for (let sent = 1; sent < emailAddressLimit.limit; sent++) {
      expect(await (await login(email, { deviceId })).json()).toEqual({ action: 'VERIFY_DEVICE' })
      waitOutThrottle()
    }
    expect((await login(email, { deviceId })).status).toBe(429)
    // The person opens the last link: the approval proves the mailbox, and its code goes out.
    const link = mailer.link(email)
    const approved = await app.request('/auth/v1/device/approve', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://api.test' },
      body: new URLSearchParams({ token: link.searchParams.get('token') ?? '' }).toString(),
    })
    expect(approved.status).toBe(200)
    const otp = mailer.code(email)
    const verified = await client.post('/auth/v1/login/email/verify', { email, otp, deviceId })
    expect(verified.status).toBe(200)
  })
})
