import { emailLoginCooldown } from '@porthole/protocol/Constants'
import { afterEach, describe, expect, test } from 'vitest'
import { storage } from '../data/storage.js'
import { store } from '../state/store.js'
import {
  checkEmail,
  clearEmailLogin,
  continueWithEmail,
  emailLoginWait,
  LoginError,
  lastEmailLoginKey,
  loginWithEmail,
  verifyOtp,
} from './login.js'
import { popupName } from './social.js'

afterEach(() => clearEmailLogin())

describe('the email login cache (SPEC 3-5)', () => {
  test('no wait without a previous login request', () => {
    expect(storage.getItem(lastEmailLoginKey)).toBeNull()
    expect(emailLoginWait(1_000_000)).toBe(0)
  })

  test('the wait counts down from 30 s, rounded up, then ends', () => {
    const at = 1_700_000_000_000
    storage.setItem(lastEmailLoginKey, String(at))
    expect(emailLoginCooldown).toBe(30_000)
    expect(emailLoginWait(at)).toBe(30)
    expect(emailLoginWait(at + 1)).toBe(30)
    expect(emailLoginWait(at + 29_001)).toBe(1)
    expect(emailLoginWait(at + 29_999)).toBe(1)
    expect(emailLoginWait(at + 30_000)).toBe(0)
  })

  test('a damaged or future time never blocks', () => {
    storage.setItem(lastEmailLoginKey, 'yesterday')
    expect(emailLoginWait(5)).toBe(0)
    storage.setItem(lastEmailLoginKey, String(10_000))
    expect(emailLoginWait(5)).toBe(0)
  })

  test('clearEmailLogin removes the key', () => {
    storage.setItem(lastEmailLoginKey, String(Date.now()))
    clearEmailLogin()
    expect(storage.getItem(lastEmailLoginKey)).toBeNull()
    expect(emailLoginWait()).toBe(0)
  })

  test('a second login within 30 s is refused with the seed’s message, before the frame is asked', async () => {
    const at = 1_700_000_000_000
    storage.setItem(lastEmailLoginKey, String(at))
    await expect(loginWithEmail('ada@example.com', at + 12_400)).rejects.toThrow(
      'Please try again after 18 seconds',
    )
    await expect(loginWithEmail('ada@example.com', at + 12_400)).rejects.toBeInstanceOf(LoginError)
  })
})

describe('input checks', () => {
  test.each(['ada@example.com', '  ada@example.com ', 'a.b+c@sub.example.org'])(
    '%s is an email',
    (value) => {
      expect(checkEmail(value)).toBeNull()
    },
  )

  test.each(['', 'ada', 'ada@', '@example.com', 'ada example@x.com', `${'a'.repeat(250)}@x.com`])(
    '%j is refused with a message',
    (value) => {
      expect(checkEmail(value)).toBe('Enter a valid email address')
    },
  )

  test('a bad email is refused before the frame is asked', async () => {
    await expect(loginWithEmail('not-an-email')).rejects.toThrow('Enter a valid email address')
  })

  test.each(['', '12345', '1234567', 'abcdef', '12 456'])(
    'the code %j is refused before the frame is asked',
    async (otp) => {
      await expect(verifyOtp(otp)).rejects.toThrow('Enter the 6 digits of the code')
    },
  )
})

describe('inv-23 a social login the account’s email decides', () => {
  test.each([
    ['VERIFY_DEVICE', 'EmailVerifyDevice'],
    ['VERIFY_OTP', 'EmailVerifyOtp'],
  ] as const)('%s replaces the login’s view with %s, for that email', (action, view) => {
    store.setState({ history: ['Connect', 'ConnectingSocial'], loginEmail: null })
    continueWithEmail({ action, email: 'ada@example.com' }, 'ConnectingSocial')
    expect(store.getState().history).toEqual(['Connect', view])
    expect(store.getState().loginEmail).toBe('ada@example.com')
    // A mail just went out: Resend waits its 30 s.
    expect(emailLoginWait()).toBeGreaterThan(28)
  })

  test('a login whose view was left changes nothing', () => {
    store.setState({ history: ['Connect'], loginEmail: null })
    continueWithEmail({ action: 'VERIFY_DEVICE', email: 'ada@example.com' }, 'ConnectingFarcaster')
    expect(store.getState().history).toEqual(['Connect'])
    expect(store.getState().loginEmail).toBeNull()
  })
})

describe('inv-15 the social login window’s name', () => {
  test('is fresh and unguessable for every login, never the old fixed one', () => {
    const names = new Set(Array.from({ length: 20 }, popupName))
    expect(names.size).toBe(20)
    for (const name of names) expect(name).toMatch(/^porthole-social-[0-9a-f-]{36}$/)
  })
})
