/**
 * SECURITY.md 13, 22 and 26: one address gets at most `emailAddressLimit`
 * mails an hour, however many IP addresses (and API replicas) ask, so it
 * cannot be mail-bombed; the refusal reads the same whether or not the
 * address has an account.
 */

import { createHash } from 'node:crypto'
import { ProofOfWorkRequired } from '@porthole/protocol/Embedded'
import { leadingZeroBits } from '@porthole/protocol/ProofOfWork'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { createTestDb, type TestDb } from '../../../test/db.js'
import {
  createMemoryMailer,
  createTestClient,
  errorOf,
  type MemoryMailer,
  newDeviceId,
  newEmail,
  signUp,
  type TestClient,
} from '../../../test/embedded.js'
import { createApp } from '../../app.js'
import { parseTrustedProxies } from '../../http/clientIp.js'
import { ProjectError } from '../../http/errors.js'
import { createProject } from '../../projects/projects.js'
import {
  chargeMailBudget,
  emailAddressLimit,
  emailResendSeconds,
  emailSendPrefixLimit,
  emailSendProjectLimit,
  logMailBudgetTo,
  mailBudgetCounts,
  projectMailBudget,
  setProjectMailBudget,
} from './codes.js'
import {
  powBaseDifficultyBits,
  powHash,
  powPrefixDifficultyBits,
  solveChallenge,
} from './proofOfWork.js'

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
    const counted = `email-address:${createHash('sha256').update(email).digest('hex')}`
    for (let failed = 0; failed < emailAddressLimit.limit + 2; failed++) {
      // Login mails go after the answer (SECURITY.md 26): the failure is undone then.
      expect((await login(email)).status).toBe(200)
      await vi.waitFor(async () =>
        expect(
          await testDb.db.query('SELECT 1 FROM rate_limits WHERE key = $1', [counted]),
        ).toEqual([]),
      )
    }
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
      expect(await (await login(email, { deviceId })).json()).toEqual({ action: 'VERIFY_OTP' })
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

/**
 * SECURITY.md 22 (issue 11 §4): limits shed the abuser, not the project. Mail
 * requests pass a per-IP bucket, then a per-prefix one (IPv4 /24, IPv6 /56),
 * then the project's shared budget, which once spent asks for a proof of work
 * instead of refusing. The clients sit behind a trusted proxy (127.0.0.1) and
 * are told apart by `X-Forwarded-For`, as in production.
 */
describe('inv-22 a spent project mail budget raises the cost, never locks a fresh visitor out', () => {
  let proxied: TestClient
  let replica: TestClient
  /** The lines the operator's log got. */
  const warnings: string[] = []
  let projects = 0
  let addresses = 0
  /** A client address in a /24 no other request of these tests uses. */
  const freshAddress = () => {
    addresses += 1
    return `172.${16 + Math.floor(addresses / 256)}.${addresses % 256}.1`
  }
  beforeAll(async () => {
    const config = { ...testDb.config, trustedProxies: parseTrustedProxies('127.0.0.1') }
    proxied = createTestClient(createApp({ config, db: testDb.db, mailer, now }))
    replica = createTestClient(createApp({ config, db: await testDb.openReplica(), mailer, now }))
    logMailBudgetTo((line) => warnings.push(line))
  })

  /** A new project, with a mail budget of `budget` when given. */
  const newProject = async (budget?: number) => {
    projects += 1
    const id = `mail-budget-${projects}-${Date.now().toString(36)}`
    await createProject(testDb.db, { id, name: `Mail budget ${projects}` })
    if (budget !== undefined) await setProjectMailBudget(testDb.db, id, budget)
    return id
  }
  /** Asks for a login code as the client at `address` behind the proxy. */
  const ask = (
    projectId: string,
    address: string,
    body: { email: string; proofOfWork?: { challenge: string; nonce: string } },
    on = proxied,
  ) =>
    on.post(
      '/auth/v1/login/email',
      { deviceId: newDeviceId(), ...body },
      { ip: '127.0.0.1', projectId, headers: { 'x-forwarded-for': address } },
    )
  /** The challenge of a 428 answer. */
  const challengeOf = async (response: Response) => {
    expect(response.status).toBe(428)
    return ProofOfWorkRequired.parse(await response.json()).proofOfWork
  }
  /** Spends `projectId`'s budget of `budget` mails from fresh addresses. */
  const spend = async (projectId: string, budget: number) => {
    for (let sent = 0; sent < budget; sent++)
      expect((await ask(projectId, freshAddress(), { email: newEmail() })).status).toBe(200)
  }
  /** A nonce that does not solve the challenge. */
  const wrongNonce = ({ challenge, difficulty }: { challenge: string; difficulty: number }) => {
    for (let nonce = 0; ; nonce++)
      if (leadingZeroBits(powHash(challenge, String(nonce))) < difficulty) return String(nonce)
  }

  test('an attacker on 20 addresses spends the budget; a visitor from a fresh address gets a challenge, solves it and gets a code', async () => {
    const budget = 40
    const projectId = await newProject(budget)
    // 20 addresses in 20 networks, each well within its per-IP and per-prefix buckets.
    const attackers = Array.from({ length: 20 }, (_, index) => `100.${64 + index}.0.1`)
    for (const address of attackers)
      for (let sent = 0; sent < budget / attackers.length; sent++)
        expect((await ask(projectId, address, { email: newEmail() })).status).toBe(200)

    // A visitor from a fresh address is not refused: a challenge, then a code.
    const email = newEmail()
    const visitor = freshAddress()
    const challenge = await challengeOf(await ask(projectId, visitor, { email }))
    expect(challenge.difficulty).toBe(powBaseDifficultyBits)
    expect(challenge.challenge).toMatch(/^[A-Za-z0-9_-]{24,}$/)
    expect(mailer.last(email)).toBeUndefined()
    const proofOfWork = { challenge: challenge.challenge, nonce: solveChallenge(challenge) }
    const sent = await ask(projectId, visitor, { email, proofOfWork })
    expect(sent.status).toBe(200)
    expect(await sent.json()).toEqual({ action: 'VERIFY_OTP' })
    await expect.poll(() => mailer.last(email)?.text).toMatch(/\b\d{6}\b/)

    // The operator is told: one warning line for the window, and counters.
    expect((await ask(projectId, freshAddress(), { email: newEmail() })).status).toBe(428)
    const lines = warnings.filter((line) => line.includes(projectId))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      new RegExp(
        `^Mail budget spent: project '${projectId}' asked for more than ${budget} mails in 10 minutes`,
      ),
    )
    expect(lines[0]).not.toContain(email)
    expect(await mailBudgetCounts(testDb.db, projectId, 1)).toEqual({
      overflowMails: 1,
      challengesIssued: 2,
      challengesSolved: 1,
    })
  })

  test('20 addresses in one /24 share one bucket; the next /24 does not', async () => {
    const projectId = await newProject()
    const neighbours = Array.from({ length: 20 }, (_, index) => `203.0.113.${index + 1}`)
    const answers: number[] = []
    for (const address of neighbours)
      for (let sent = 0; sent < 2; sent++)
        answers.push((await ask(projectId, address, { email: newEmail() })).status)
    expect(answers.filter((status) => status === 200)).toHaveLength(emailSendPrefixLimit.limit)
    // A fresh neighbour is not refused: it proves work (a busy carrier NAT), the next /24 needs none.
    const email = newEmail()
    const asked = await ask(projectId, '203.0.113.99', { email })
    expect(asked.status).toBe(428)
    const challenge = await challengeOf(asked)
    expect(challenge.difficulty).toBe(powPrefixDifficultyBits)
    const proofOfWork = { challenge: challenge.challenge, nonce: solveChallenge(challenge) }
    expect((await ask(projectId, '203.0.113.99', { email, proofOfWork })).status).toBe(200)
    expect((await ask(projectId, '203.0.114.1', { email: newEmail() })).status).toBe(200)
  })

  test('a wrong, replayed, expired or other-email challenge is refused, and no mail goes out', async () => {
    const projectId = await newProject(1)
    const otherProject = await newProject(1)
    await spend(projectId, 1)
    await spend(otherProject, 1)
    const email = newEmail()
    const refusedWith = async (body: Parameters<typeof ask>[2]) => {
      const response = await ask(projectId, freshAddress(), body)
      expect(response.status).toBe(403)
      expect(await errorOf(response)).toEqual({
        code: 'proof_of_work_invalid',
        message: expect.stringMatching(/send the request again without it for a new challenge$/),
      })
    }

    const wrong = await challengeOf(await ask(projectId, freshAddress(), { email }))
    await refusedWith({
      email,
      proofOfWork: { challenge: wrong.challenge, nonce: wrongNonce(wrong) },
    })
    // Spent by the wrong try: the right nonce no longer helps.
    await refusedWith({
      email,
      proofOfWork: { challenge: wrong.challenge, nonce: solveChallenge(wrong) },
    })

    const forOther = await challengeOf(await ask(projectId, freshAddress(), { email: newEmail() }))
    await refusedWith({
      email,
      proofOfWork: { challenge: forOther.challenge, nonce: solveChallenge(forOther) },
    })

    const elsewhere = await challengeOf(await ask(otherProject, freshAddress(), { email }))
    await refusedWith({
      email,
      proofOfWork: { challenge: elsewhere.challenge, nonce: solveChallenge(elsewhere) },
    })

    const expired = await challengeOf(await ask(projectId, freshAddress(), { email }))
    await testDb.db.query(`UPDATE pow_challenges SET expires_at = now() - interval '1 second'`)
    await refusedWith({
      email,
      proofOfWork: { challenge: expired.challenge, nonce: solveChallenge(expired) },
    })

    const never = { challenge: 'A'.repeat(24), nonce: '0' }
    await refusedWith({ email, proofOfWork: never })
    expect(mailsTo(email)).toBe(0)

    // A right one passes once; replayed (another address, after the 30 s), it is refused.
    const right = await challengeOf(await ask(projectId, freshAddress(), { email }))
    const proofOfWork = { challenge: right.challenge, nonce: solveChallenge(right) }
    expect((await ask(projectId, freshAddress(), { email, proofOfWork })).status).toBe(200)
    await expect.poll(() => mailsTo(email)).toBe(1)
    waitOutThrottle()
    await refusedWith({ email, proofOfWork })
    expect(mailsTo(email)).toBe(1)
  })

  test('a challenge from one replica is spent at another, once; the difficulty rises with the overflow', async () => {
    const projectId = await newProject(1)
    await spend(projectId, 1)
    const email = newEmail()
    const first = await challengeOf(await ask(projectId, freshAddress(), { email }))
    expect(first.difficulty).toBe(powBaseDifficultyBits)
    const proofOfWork = { challenge: first.challenge, nonce: solveChallenge(first) }
    expect((await ask(projectId, freshAddress(), { email, proofOfWork }, replica)).status).toBe(200)
    waitOutThrottle()
    expect((await ask(projectId, freshAddress(), { email, proofOfWork })).status).toBe(403)
    // One budget over: one more bit.
    const second = await challengeOf(await ask(projectId, freshAddress(), { email: newEmail() }))
    expect(second.difficulty).toBe(powBaseDifficultyBits + 1)
  })

  test('IPv6: one /56 is one bucket; the next /56 is not', async () => {
    const projectId = await newProject()
    const inBlock = (index: number) => `2001:db8:0:${(index % 200).toString(16)}::${index + 1}`
    for (let sent = 0; sent < emailSendPrefixLimit.limit; sent++)
      expect((await ask(projectId, inBlock(sent), { email: newEmail() })).status).toBe(200)
    const asked = await ask(projectId, inBlock(99), { email: newEmail() })
    expect(asked.status).toBe(428)
    expect((await challengeOf(asked)).difficulty).toBe(powPrefixDifficultyBits)
    expect((await ask(projectId, '2001:db8:0:100::1', { email: newEmail() })).status).toBe(200)
  })

  test('a mail after a provider login (no request to prove) passes a spent budget and counts as overflow', async () => {
    const projectId = await newProject(1)
    await chargeMailBudget(testDb.db, projectId, undefined)
    await chargeMailBudget(testDb.db, projectId, undefined)
    expect((await mailBudgetCounts(testDb.db, projectId, 1)).overflowMails).toBe(1)
  })

  test("a project's budget is set, checked and reset", async () => {
    const projectId = await newProject(5)
    expect(await projectMailBudget(testDb.db, projectId)).toBe(5)
    await setProjectMailBudget(testDb.db, projectId, null)
    expect(await projectMailBudget(testDb.db, projectId)).toBe(emailSendProjectLimit.limit)
    await expect(setProjectMailBudget(testDb.db, projectId, 0)).rejects.toThrow(ProjectError)
    await expect(setProjectMailBudget(testDb.db, 'no-such-project', 5)).rejects.toThrow(
      /No project with the id 'no-such-project'/,
    )
  })
})
