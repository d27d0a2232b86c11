/**
 * The embedded wallet's two server-held key shares (SECURITY.md 11, DESIGN 4).
 *
 * - `PUT /wallet/v1/shares` (session): stores a new wallet once: the auth
 *   share as given, the recovery share encrypted (AES-256-GCM under the
 *   key-encryption key, `shareCrypto.ts`). 201 `{ user }`; a user who has a
 *   wallet already gets 409 `wallet_exists`, also for an identical retry
 *   (the frame then GETs).
 * - `GET /wallet/v1/shares[?recovery=true]` (session): the auth share and the
 *   addresses; with `recovery=true` also the recovery share, only for a
 *   session on a verified device. 404 `no_wallet` while there is none.
 *
 * The database holds one share in plaintext at most (the auth share); the
 * third, the device share, never leaves the secure frame. Shares are never
 * written to an error message or a log.
 */
import { PutSharesRequest, type SharesResponse } from '@porthole/protocol/Embedded'
import { Hono } from 'hono'
import { getAddress } from 'viem'
import { z } from 'zod'
import type { At, Db } from '../db/db.js'
import type { Config } from '../http/config.js'
import { HttpError } from '../http/errors.js'
import { commonQuery, limitBody, parseInput, readJsonBody } from '../http/request.js'
import { readProjectQuery } from '../projects/projects.js'
import { decryptShare, encryptShare } from './shareCrypto.js'
import { isDeviceVerified, readUser, requireSession } from './users.js'

/** Largest `PUT /wallet/v1/shares` body accepted. */
export const maxSharesBodyBytes = 2048

const PutQuery = z.strictObject(commonQuery)
const GetQuery = z.strictObject({
  ...commonQuery,
  recovery: z.enum(['true', 'false']).optional(),
})
const SharesRow = z.object({
  auth_share: z.string(),
  recovery_share_ciphertext: z.string(),
  recovery_share_iv: z.string(),
  recovery_share_key_id: z.string(),
  evm_address: z.string(),
  solana_address: z.string(),
})

export function createSharesRoutes({
  db,
  config,
  now,
}: {
  db: Db
  config: Pick<Config, 'shareEncryptionKeys'>
  /** The clock of session expiry; by default the database's `now()`. */
  now?: (() => Date) | undefined
}): Hono {
  const app = new Hono()
  const at = (): At => now?.() ?? null

  app.put('/wallet/v1/shares', limitBody(maxSharesBodyBytes), async (c) => {
    const { project } = await readProjectQuery(c, db, PutQuery)
    const session = await requireSession(c, db, project.id, at())
    const body = parseInput(PutSharesRequest, await readJsonBody(c), 'body')
    const recovery = encryptShare(config.shareEncryptionKeys, session.userId, body.recoveryShare)
    // Insert once: the primary key on user_id makes a second wallet impossible, on any replica.
    const inserted = await db.query(
      `INSERT INTO wallet_shares
         (user_id, auth_share, recovery_share_ciphertext, recovery_share_iv, recovery_share_key_id,
          evm_address, solana_address, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, coalesce($8::timestamptz, now()))
       ON CONFLICT (user_id) DO NOTHING
       RETURNING 1`,
      [
        session.userId,
        body.authShare,
        recovery.ciphertext,
        recovery.iv,
        recovery.keyId,
        getAddress(body.addresses.eip155),
        body.addresses.solana,
        at(),
      ],
    )
    if (inserted.length === 0) {
      throw new HttpError(
        409,
        'wallet_exists',
        'This account already has a wallet: read it with GET /wallet/v1/shares',
      )
    }
    c.header('Cache-Control', 'no-store')
    return c.json({ user: await readUser(db, session.userId) }, 201)
  })

  app.get('/wallet/v1/shares', async (c) => {
    const { project, query } = await readProjectQuery(c, db, GetQuery)
    const session = await requireSession(c, db, project.id, at())
    const [row] = await db.query(
      `SELECT auth_share, recovery_share_ciphertext, recovery_share_iv, recovery_share_key_id,
              evm_address, solana_address
       FROM wallet_shares WHERE user_id = $1`,
      [session.userId],
    )
    if (row === undefined) {
      throw new HttpError(404, 'no_wallet', 'This account has no wallet yet')
    }
    const shares = SharesRow.parse(row)
    const body: SharesResponse = {
      authShare: shares.auth_share,
      addresses: { eip155: shares.evm_address, solana: shares.solana_address },
    }
    if (query.recovery === 'true') {
      if (!(await isDeviceVerified(db, session.userId, session.deviceIdSha256))) {
        throw new HttpError(
          403,
          'device_not_verified',
          'The recovery share is released only to a verified device: verify this device first',
        )
      }
      body.recoveryShare = decryptShare(config.shareEncryptionKeys, session.userId, {
        ciphertext: shares.recovery_share_ciphertext,
        iv: shares.recovery_share_iv,
        keyId: shares.recovery_share_key_id,
      })
    }
    c.header('Cache-Control', 'no-store')
    return c.json(body)
  })

  return app
}
