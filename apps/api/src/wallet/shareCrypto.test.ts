import { randomBytes } from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { developmentShareKey, type ShareKey, shareKeyId } from '../http/config.js'
import { ShareKeyError } from '../http/errors.js'
import { decryptShare, encryptShare } from './shareCrypto.js'

function newKey(): ShareKey {
  const key = randomBytes(32)
  return { id: shareKeyId(key), key: key.toString('base64') }
}

const share = randomBytes(33).toString('base64')

describe('encryptShare', () => {
  test('round-trips under the first key, with a fresh IV each time', () => {
    const keys = [newKey()]
    const first = encryptShare(keys, 'user-1', share)
    const second = encryptShare(keys, 'user-1', share)
    expect(first.keyId).toBe(keys[0]?.id)
    expect(Buffer.from(first.iv, 'base64')).toHaveLength(12)
    expect(first.iv).not.toBe(second.iv)
    expect(first.ciphertext).not.toBe(second.ciphertext)
    expect(first.ciphertext).not.toContain(share)
    expect(decryptShare(keys, 'user-1', first)).toBe(share)
    expect(decryptShare(keys, 'user-1', second)).toBe(share)
  })

  test('encrypts under the first key; every key decrypts (rotation)', () => {
    const old = newKey()
    const current = newKey()
    const before = encryptShare([old], 'user-1', share)
    const rotated = [current, old]
    expect(decryptShare(rotated, 'user-1', before)).toBe(share)
    expect(encryptShare(rotated, 'user-1', share).keyId).toBe(current.id)
  })

  test('key ids are fingerprints that do not reveal the key', () => {
    const key = newKey()
    expect(key.id).toMatch(/^k1-[0-9a-f]{16}$/)
    expect(key.id).not.toContain(key.key)
    expect(shareKeyId(Buffer.from(key.key, 'base64'))).toBe(key.id)
    expect(developmentShareKey.id).toBe('development')
  })
})

describe('decryptShare', () => {
  const keys = [newKey()]
  const encrypted = encryptShare(keys, 'user-1', share)

  test("refuses another user's row: the user id is authenticated", () => {
    expect(() => decryptShare(keys, 'user-2', encrypted)).toThrow(ShareKeyError)
  })

  test('refuses a key that is not configured, naming only its id', () => {
    expect(() => decryptShare([newKey()], 'user-1', encrypted)).toThrow(
      `A recovery share is encrypted under key '${encrypted.keyId}', which is not configured`,
    )
  })

  test('refuses an altered ciphertext, IV or tag', () => {
    const body = Buffer.from(encrypted.ciphertext, 'base64')
    for (const index of [0, body.length - 1]) {
      const altered = Buffer.from(body)
      altered[index] = (altered[index] ?? 0) ^ 1
      expect(() =>
        decryptShare(keys, 'user-1', { ...encrypted, ciphertext: altered.toString('base64') }),
      ).toThrow(ShareKeyError)
    }
    const iv = Buffer.from(encrypted.iv, 'base64')
    iv[0] = (iv[0] ?? 0) ^ 1
    expect(() => decryptShare(keys, 'user-1', { ...encrypted, iv: iv.toString('base64') })).toThrow(
      ShareKeyError,
    )
  })

  test('refuses under the right id but the wrong key bytes, without echoing either', () => {
    const impostor = { ...newKey(), id: keys[0]?.id ?? '' }
    try {
      decryptShare([impostor], 'user-1', encrypted)
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(ShareKeyError)
      expect((error as Error).message).not.toContain(impostor.key)
      expect((error as Error).message).not.toContain(share)
    }
  })
})
