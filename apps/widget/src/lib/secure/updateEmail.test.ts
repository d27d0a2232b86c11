import { afterEach, describe, expect, test } from 'vitest'
import { storage } from '../data/storage.js'
import { lastEmailLoginKey } from './login.js'
import {
  emailUpdateWait,
  lastEmailUpdateKey,
  startEmailUpdate,
  verifyUpdatePrimary,
  verifyUpdateSecondary,
} from './updateEmail.js'

afterEach(() => {
  storage.removeItem(lastEmailUpdateKey)
  storage.removeItem(lastEmailLoginKey)
})

describe('changing the email: what is refused before the secure frame is asked', () => {
  const at = 1_700_000_000_000

  test('an invalid address, or the one the wallet has already', async () => {
    await expect(startEmailUpdate('not an email', 'a@example.com', at)).rejects.toThrow(
      'Enter a valid email address',
    )
    await expect(startEmailUpdate(' A@Example.com ', 'a@example.com', at)).rejects.toThrow(
      "That is already this wallet's email.",
    )
  })

  test("30 s after the last update mail, or the last login's, in the seed's words", async () => {
    storage.setItem(lastEmailUpdateKey, String(at))
    expect(emailUpdateWait(at + 12_500)).toBe(18)
    await expect(startEmailUpdate('b@example.com', 'a@example.com', at + 12_500)).rejects.toThrow(
      'Please try again after 18 seconds',
    )
    expect(emailUpdateWait(at + 30_000)).toBe(0)
    storage.removeItem(lastEmailUpdateKey)
    storage.setItem(lastEmailLoginKey, String(at))
    expect(emailUpdateWait(at + 1_000)).toBe(29)
  })

  test('codes are six digits', async () => {
    await expect(verifyUpdatePrimary('12345')).rejects.toThrow('Enter the 6 digits of the code')
    await expect(verifyUpdateSecondary('abcdef')).rejects.toThrow('Enter the 6 digits of the code')
  })
})
