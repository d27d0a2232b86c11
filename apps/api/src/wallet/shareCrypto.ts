/**
 * Encryption of recovery shares at rest (SECURITY.md 11, DESIGN 4):
 * AES-256-GCM under a key-encryption key kept outside the database
 * (`SHARE_ENCRYPTION_KEY`), a fresh 96-bit IV per share, and the user id as
 * additional data, so a ciphertext moved to another user's row fails to
 * decrypt. Each row names its key's id; keys can rotate: the first
 * configured key encrypts, every configured key decrypts.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { ShareKey } from '../http/config.js'
import { ShareKeyError } from '../http/errors.js'

const algorithm = 'aes-256-gcm'
const ivBytes = 12
const tagBytes = 16

export type EncryptedShare = {
  /** base64 of the ciphertext followed by the 16-byte GCM tag. */
  ciphertext: string
  /** base64 of the 12-byte IV. */
  iv: string
  keyId: string
}

/** Encrypts `share` for `userId` under the first of `keys`. */
export function encryptShare(
  keys: readonly ShareKey[],
  userId: string,
  share: string,
): EncryptedShare {
  const [current] = keys
  if (current === undefined) throw new ShareKeyError('No share encryption key is configured')
  const iv = randomBytes(ivBytes)
  const cipher = createCipheriv(algorithm, Buffer.from(current.key, 'base64'), iv, {
    authTagLength: tagBytes,
  })
  cipher.setAAD(additionalData(userId))
  const body = Buffer.concat([cipher.update(share, 'utf8'), cipher.final(), cipher.getAuthTag()])
  return { ciphertext: body.toString('base64'), iv: iv.toString('base64'), keyId: current.id }
}

/** Decrypts a share `encryptShare` made for `userId`; throws `ShareKeyError` otherwise. */
export function decryptShare(
  keys: readonly ShareKey[],
  userId: string,
  encrypted: EncryptedShare,
): string {
  const key = keys.find((candidate) => candidate.id === encrypted.keyId)
  if (key === undefined) {
    throw new ShareKeyError(
      `A recovery share is encrypted under key '${encrypted.keyId}', which is not configured (SHARE_ENCRYPTION_KEY, SHARE_ENCRYPTION_PREVIOUS_KEYS)`,
    )
  }
  const body = Buffer.from(encrypted.ciphertext, 'base64')
  try {
    const decipher = createDecipheriv(
      algorithm,
      Buffer.from(key.key, 'base64'),
      Buffer.from(encrypted.iv, 'base64'),
      { authTagLength: tagBytes },
    )
    decipher.setAAD(additionalData(userId))
    decipher.setAuthTag(body.subarray(body.length - tagBytes))
    return Buffer.concat([
      decipher.update(body.subarray(0, body.length - tagBytes)),
      decipher.final(),
    ]).toString('utf8')
  } catch (error) {
    throw new ShareKeyError(
      `A recovery share failed to decrypt under key '${encrypted.keyId}' (wrong key, or the row was altered)`,
      { cause: error },
    )
  }
}

function additionalData(userId: string): Buffer {
  return Buffer.from(`porthole recovery share v1\0${userId}`, 'utf8')
}
