import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { createTestDb, type TestDb } from '../../test/db.js'
import type { Db } from '../db/db.js'
import { HttpError } from '../http/errors.js'
import { createProject } from '../projects/projects.js'
import { createUser, isDeviceVerified, sha256Hex, verifyDevice } from '../wallet/users.js'
import {
  consumePendingLogin,
  isStateUsed,
  pendingLoginTtlSeconds,
  readPendingLogin,
  signInOrAskEmail,
  startPendingLogin,
} from './pendingLogin.js'

let testDb: TestDb
let db: Db
let projectId: string
let otherProjectId: string

beforeAll(async () => {
  testDb = await createTestDb()
  db = testDb.db
  projectId = testDb.config.devProjectId
  otherProjectId = `pending-${randomUUID().slice(0, 8)}`
  await createProject(db, { id: otherProjectId, name: 'Other' })
}, 60_000)
afterAll(() => testDb.close())

/** The Farcaster table's own columns, as its routes read them. */
const farcasterLogins = {
  table: 'farcaster_logins',
  columns: 'channel_token, nonce',
  row: z.object({ channel_token: z.string(), nonce: z.string() }),
} as const
const t0 = new Date('2030-01-01T00:00:00Z')
const after = (seconds: number) => new Date(t0.getTime() + seconds * 1000)

async function start(state = randomUUID(), deviceId = randomUUID()) {
  await startPendingLogin(
    db,
    'farcaster_logins',
    { state, projectId, deviceId, columns: { channel_token: 'channel', nonce: 'nonce' } },
    t0,
  )
  return { state, deviceId }
}

async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string }> {
  const error = await promise.then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(error).toBeInstanceOf(HttpError)
  const { status, code } = error as HttpError
  return { status, code }
}

describe('startPendingLogin', () => {
  test('a started login is pending: neither consumed nor expired, with its own columns', async () => {
    const { state, deviceId } = await start()
    expect(await isStateUsed(db, 'farcaster_logins', sha256Hex(state))).toBe(true)
    const row = await readPendingLogin(db, farcasterLogins, { state, projectId, deviceId }, t0)
    expect(row).toMatchObject({
      consumed: false,
      expired: false,
      channel_token: 'channel',
      nonce: 'nonce',
    })
  })

  test('a state starts one login only: 409 state_in_use, even from another device', async () => {
    const { state } = await start()
    expect(await refusal(start(state))).toEqual({ status: 409, code: 'state_in_use' })
  })

  test('a state never started is not used', async () => {
    expect(await isStateUsed(db, 'social_logins', sha256Hex(randomUUID()))).toBe(false)
  })
})

describe('readPendingLogin', () => {
  test('an unknown state is 410 login_expired', async () => {
    const collector = { state: randomUUID(), projectId, deviceId: randomUUID() }
    expect(await refusal(readPendingLogin(db, farcasterLogins, collector, t0))).toEqual({
      status: 410,
      code: 'login_expired',
    })
  })

  test('another project is 410 login_expired, another device 403 device_mismatch', async () => {
    const { state, deviceId } = await start()
    const read = (collector: { projectId: string; deviceId: string }) =>
      readPendingLogin(db, farcasterLogins, { state, ...collector }, t0)
    expect(await refusal(read({ projectId: otherProjectId, deviceId }))).toEqual({
      status: 410,
      code: 'login_expired',
    })
    expect(await refusal(read({ projectId, deviceId: randomUUID() }))).toEqual({
      status: 403,
      code: 'device_mismatch',
    })
  })

  test(`a login expires ${pendingLoginTtlSeconds / 60} minutes after its start`, async () => {
    const { state, deviceId } = await start()
    const read = (at: Date) =>
      readPendingLogin(db, farcasterLogins, { state, projectId, deviceId }, at)
    expect((await read(after(pendingLoginTtlSeconds - 1))).expired).toBe(false)
    expect((await read(after(pendingLoginTtlSeconds))).expired).toBe(true)
  })
})

describe('consumePendingLogin', () => {
  test('a login is consumed once: a second consumption keeps the first time', async () => {
    const { state, deviceId } = await start()
    const stateSha256 = sha256Hex(state)
    await consumePendingLogin(db, 'farcaster_logins', stateSha256, after(1))
    await consumePendingLogin(db, 'farcaster_logins', stateSha256, after(2))
    const row = await readPendingLogin(
      db,
      farcasterLogins,
      { state, projectId, deviceId },
      after(3),
    )
    expect(row.consumed).toBe(true)
    const [kept] = await db.query<{ consumed_at: Date }>(
      'SELECT consumed_at FROM farcaster_logins WHERE state_sha256 = $1',
      [stateSha256],
    )
    expect(new Date(kept?.consumed_at ?? 0).getTime()).toBe(after(1).getTime())
  })
})

describe('signInOrAskEmail', () => {
  const newUser = async (email: string | null) => {
    const userId = await createUser(
      db,
      { email, provider: 'farcaster', subject: randomUUID() },
      null,
    )
    expect(userId).toBeDefined()
    return userId as string
  }
  const sessions = async (userId: string) =>
    (await db.query('SELECT 1 FROM embedded_sessions WHERE user_id = $1', [userId])).length

  test('an account without an email: the sign-in verifies the device and opens a session', async () => {
    const userId = await newUser(null)
    const deviceIdSha256 = sha256Hex(randomUUID())
    const outcome = await signInOrAskEmail(db, { userId, projectId, deviceIdSha256 }, null)
    expect(outcome).toMatchObject({ kind: 'signed_in', userId, token: expect.any(String) })
    expect(await isDeviceVerified(db, userId, deviceIdSha256)).toBe(true)
    expect(await sessions(userId)).toBe(1)
  })

  test("an account's first device is verified by the sign-in, even with an email", async () => {
    const userId = await newUser(`${randomUUID()}@example.com`)
    const deviceIdSha256 = sha256Hex(randomUUID())
    const outcome = await signInOrAskEmail(db, { userId, projectId, deviceIdSha256 }, null)
    expect(outcome.kind).toBe('signed_in')
    expect(await isDeviceVerified(db, userId, deviceIdSha256)).toBe(true)
  })

  test('inv-23 an account with an email and a verified device: another device asks the email', async () => {
    const email = `${randomUUID()}@example.com`
    const userId = await newUser(email)
    await verifyDevice(db, userId, sha256Hex('known device'), null)
    const deviceIdSha256 = sha256Hex(randomUUID())
    const outcome = await signInOrAskEmail(db, { userId, projectId, deviceIdSha256 }, null)
    expect(outcome).toEqual({ kind: 'email', userId, email, action: 'VERIFY_DEVICE' })
    expect(await isDeviceVerified(db, userId, deviceIdSha256)).toBe(false)
    expect(await sessions(userId)).toBe(0)
  })

  test('a device verified for the account gets a session', async () => {
    const userId = await newUser(`${randomUUID()}@example.com`)
    const deviceIdSha256 = sha256Hex(randomUUID())
    await verifyDevice(db, userId, sha256Hex('other device'), null)
    await verifyDevice(db, userId, deviceIdSha256, null)
    const outcome = await signInOrAskEmail(db, { userId, projectId, deviceIdSha256 }, null)
    expect(outcome.kind).toBe('signed_in')
    expect(await sessions(userId)).toBe(1)
  })
})
