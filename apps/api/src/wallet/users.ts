/**
 * Embedded-wallet accounts: users, their verified devices and their sessions.
 *
 * A user is found by a login identity (provider and subject: `email` and the
 * lower-case address for email login, the provider's `sub` for a social
 * login) or by their email. A device is the secure frame's storage on one
 * browser, known by the SHA-256 of its device id; key material is released
 * only to a device verified for the user (SECURITY.md 16), by the strongest
 * factor the user has: their email's approval when they have an email, else
 * their one login identity (SECURITY.md 23). A session is a
 * bearer token for one project and one device, stored as its SHA-256 only,
 * valid 30 days unless revoked.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { User } from '@porthole/protocol/Embedded'
import type { Context } from 'hono'
import { z } from 'zod'
import type { At, Queryable } from '../db/db.js'
import { readBearer, unauthorized } from '../http/request.js'

/** How long a session lasts. */
export const sessionTtlSeconds = 30 * 24 * 60 * 60

/** The hex SHA-256 of a secret (token, device id, state): all the database keeps of it. */
export function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

/** 256 random bits, base64url (43 characters): session and device-approval tokens. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url')
}

const IdRow = z.object({ id: z.string() })
const UserRow = z.object({
  id: z.string(),
  email: z.string().nullable(),
  evm_address: z.string().nullable(),
  solana_address: z.string().nullable(),
})
const SessionRow = z.object({
  user_id: z.string(),
  device_id_sha256: z.string(),
})

export type Session = {
  tokenSha256: string
  userId: string
  projectId: string
  deviceIdSha256: string
}

/** The id of the user with this (lower-case) email. */
export async function findUserByEmail(db: Queryable, email: string): Promise<string | undefined> {
  const [row] = await db.query('SELECT id FROM users WHERE email = $1', [email])
  return row === undefined ? undefined : IdRow.parse(row).id
}

/** The id of the user a login identity belongs to. */
export async function findUserByIdentity(
  db: Queryable,
  provider: string,
  subject: string,
): Promise<string | undefined> {
  const [row] = await db.query(
    'SELECT user_id AS id FROM identities WHERE provider = $1 AND subject = $2',
    [provider, subject],
  )
  return row === undefined ? undefined : IdRow.parse(row).id
}

/**
 * Creates a user with a login identity; `email` (already proven) may be
 * null. Resolves to undefined when another user took the email meanwhile.
 */
export async function createUser(
  tx: Queryable,
  { email, provider, subject }: { email: string | null; provider: string; subject: string },
  at: At,
): Promise<string | undefined> {
  const id = randomUUID()
  const created = await tx.query(
    `INSERT INTO users (id, email, created_at) VALUES ($1, $2, coalesce($3::timestamptz, now()))
     ON CONFLICT (email) DO NOTHING RETURNING id`,
    [id, email, at],
  )
  if (created.length === 0) return undefined
  await addIdentity(tx, { userId: id, provider, subject }, at)
  return id
}

/** Links a login identity to a user (nothing when it is linked already). */
export async function addIdentity(
  tx: Queryable,
  { userId, provider, subject }: { userId: string; provider: string; subject: string },
  at: At,
): Promise<void> {
  await tx.query(
    `INSERT INTO identities (provider, subject, user_id, created_at)
     VALUES ($1, $2, $3, coalesce($4::timestamptz, now()))
     ON CONFLICT (provider, subject) DO NOTHING`,
    [provider, subject, userId, at],
  )
}

/** The user's email (lower-case), or null when they have none. */
export async function emailOf(db: Queryable, userId: string): Promise<string | null> {
  const [row] = await db.query('SELECT email FROM users WHERE id = $1', [userId])
  return z.object({ email: z.string().nullable() }).parse(row).email
}

/** How long a login identity found by email alone waits for that email to confirm it. */
export const identityLinkTtlSeconds = 10 * 60

/**
 * Keeps a login identity waiting to be linked to the user whose email it
 * named (SECURITY.md 23): `confirmIdentityLinks` links it once a code mailed
 * to that email is entered on the same device, within `identityLinkTtlSeconds`.
 */
export async function addPendingIdentityLink(
  tx: Queryable,
  link: { userId: string; provider: string; subject: string; deviceIdSha256: string },
  at: At,
): Promise<void> {
  await tx.query(
    `INSERT INTO identity_links (user_id, provider, subject, device_id_sha256, created_at, expires_at)
     VALUES ($1, $2, $3, $4, coalesce($5::timestamptz, now()),
             coalesce($5::timestamptz, now()) + make_interval(secs => $6))
     ON CONFLICT (user_id, device_id_sha256, provider, subject)
       DO UPDATE SET created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
    [link.userId, link.provider, link.subject, link.deviceIdSha256, at, identityLinkTtlSeconds],
  )
}

/**
 * Links the identities waiting for this user on this device: its email just
 * proved itself there (a code mailed to it was entered). Expired ones are
 * dropped; an identity another user took meanwhile stays theirs.
 */
export async function confirmIdentityLinks(
  tx: Queryable,
  userId: string,
  deviceIdSha256: string,
  at: At,
): Promise<void> {
  await tx.query(
    `INSERT INTO identities (provider, subject, user_id, created_at)
     SELECT provider, subject, user_id, coalesce($3::timestamptz, now()) FROM identity_links
     WHERE user_id = $1 AND device_id_sha256 = $2 AND expires_at > coalesce($3::timestamptz, now())
     ON CONFLICT (provider, subject) DO NOTHING`,
    [userId, deviceIdSha256, at],
  )
  await tx.query('DELETE FROM identity_links WHERE user_id = $1 AND device_id_sha256 = $2', [
    userId,
    deviceIdSha256,
  ])
}

/** Whether the device is verified for the user. */
export async function isDeviceVerified(
  db: Queryable,
  userId: string,
  deviceIdSha256: string,
): Promise<boolean> {
  const rows = await db.query(
    'SELECT 1 FROM devices WHERE user_id = $1 AND device_id_sha256 = $2',
    [userId, deviceIdSha256],
  )
  return rows.length === 1
}

/**
 * Whether any device is verified for the user: none only for an account a
 * social or Farcaster login has just made, which holds no key share yet.
 */
export async function hasVerifiedDevice(db: Queryable, userId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM devices WHERE user_id = $1 LIMIT 1', [userId])
  return rows.length === 1
}

/** Marks the device verified for the user (idempotent). */
export async function verifyDevice(
  tx: Queryable,
  userId: string,
  deviceIdSha256: string,
  at: At,
): Promise<void> {
  await tx.query(
    `INSERT INTO devices (user_id, device_id_sha256, verified_at)
     VALUES ($1, $2, coalesce($3::timestamptz, now()))
     ON CONFLICT (user_id, device_id_sha256) DO NOTHING`,
    [userId, deviceIdSha256, at],
  )
}

/** Opens a session for the user on this device and project; resolves to its token. */
export async function createSession(
  tx: Queryable,
  { userId, projectId, deviceIdSha256 }: Omit<Session, 'tokenSha256'>,
  at: At,
): Promise<string> {
  const token = randomToken()
  await tx.query(
    `INSERT INTO embedded_sessions
       (token_sha256, user_id, project_id, device_id_sha256, created_at, expires_at)
     VALUES ($1, $2, $3, $4, coalesce($5::timestamptz, now()),
             coalesce($5::timestamptz, now()) + make_interval(secs => $6))`,
    [sha256Hex(token), userId, projectId, deviceIdSha256, at, sessionTtlSeconds],
  )
  return token
}

/**
 * The live session behind `Authorization: Bearer` for this project: 401
 * `missing_token` / `invalid_token` for a missing or malformed header,
 * `session_expired` for an unknown, expired, revoked or other project's one.
 */
export async function requireSession(
  c: Context,
  db: Queryable,
  projectId: string,
  at: At,
): Promise<Session> {
  const tokenSha256 = sha256Hex(readBearer(c))
  const [row] = await db.query(
    `SELECT user_id, device_id_sha256 FROM embedded_sessions
     WHERE token_sha256 = $1 AND project_id = $2 AND revoked_at IS NULL
       AND expires_at > coalesce($3::timestamptz, now())`,
    [tokenSha256, projectId, at],
  )
  if (row === undefined) {
    throw unauthorized('session_expired', 'The session has ended: sign in again')
  }
  const session = SessionRow.parse(row)
  return {
    tokenSha256,
    userId: session.user_id,
    projectId,
    deviceIdSha256: session.device_id_sha256,
  }
}

/** Ends a session (idempotent). */
export async function revokeSession(
  db: Queryable,
  { tokenSha256, projectId }: { tokenSha256: string; projectId: string },
  at: At,
): Promise<void> {
  await db.query(
    `UPDATE embedded_sessions SET revoked_at = coalesce($3::timestamptz, now())
     WHERE token_sha256 = $1 AND project_id = $2 AND revoked_at IS NULL`,
    [tokenSha256, projectId, at],
  )
}

/** The user as the wire shows them (`Embedded.User`): addresses once a wallet exists. */
export async function readUser(db: Queryable, userId: string): Promise<User> {
  const [row] = await db.query(
    `SELECT u.id, u.email, w.evm_address, w.solana_address
     FROM users u LEFT JOIN wallet_shares w ON w.user_id = u.id
     WHERE u.id = $1`,
    [userId],
  )
  const user = UserRow.parse(row)
  return {
    id: user.id,
    ...(user.email === null ? {} : { email: user.email }),
    ...(user.evm_address === null || user.solana_address === null
      ? {}
      : { addresses: { eip155: user.evm_address, solana: user.solana_address } }),
  }
}

/**
 * Deletes sessions ended over a day ago, spent or expired device approvals
 * and social and Farcaster logins, identity links never confirmed, and stale
 * email changes (the server runs this now and then).
 */
export async function pruneAccounts(db: Queryable): Promise<number> {
  const statements = [
    `DELETE FROM embedded_sessions
     WHERE expires_at <= now() - interval '1 day' OR revoked_at <= now() - interval '1 day'
     RETURNING 1`,
    `DELETE FROM device_verifications WHERE expires_at <= now() - interval '1 hour' RETURNING 1`,
    `DELETE FROM social_logins WHERE expires_at <= now() - interval '1 hour' RETURNING 1`,
    `DELETE FROM farcaster_logins WHERE expires_at <= now() - interval '1 hour' RETURNING 1`,
    `DELETE FROM email_updates WHERE expires_at <= now() - interval '1 hour' RETURNING 1`,
    `DELETE FROM identity_links WHERE expires_at <= now() - interval '1 hour' RETURNING 1`,
  ]
  let deleted = 0
  for (const sql of statements) deleted += (await db.query(sql)).length
  return deleted
}
