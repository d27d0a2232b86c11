/**
 * Changing an email wallet's address (Account → Change email), proven at both
 * ends: a code to the current address (VERIFY_PRIMARY_OTP), then one to the
 * new address (VERIFY_SECONDARY_OTP). As for login, every step is a request
 * to the secure frame, which alone talks to the API with the session.
 *
 * The first step waits for the visitor's Approve in the secure origin's
 * approval window, as a signature does (SECURITY.md 7): a host that hides
 * this frame under a page of its own cannot have the visitor type the
 * account away. Meanwhile ApproveTransaction shows (`withApproval`); a
 * rejection ends the change with `updateEmail.rejected`, nothing mailed.
 *
 * The 30 s between mails (SPEC 9): a new request within 30 s of the last one
 * this widget asked for (a login's or an update's) is refused here with
 * 'Please try again after {n} seconds'; the API refuses the same for any
 * mail to an address, in the same words.
 */
import { emailLoginCooldown } from '@porthole/protocol/Constants'
import { ErrorCode, TimeoutReason } from '@porthole/protocol/Errors'
import * as Secure from '@porthole/protocol/Secure'
import { storage } from '../data/storage.js'
import { t } from '../i18n.js'
import { store } from '../state/store.js'
import { isUserRejection } from '../walletErrors.js'
import { approvalTimeout, withApproval } from './approval.js'
import { waitForSecureChannel } from './frame.js'
import { checkEmail, emailLoginWait, LoginError } from './login.js'

/** The local-storage key holding the time of the last email-update mail asked for (ms). */
export const lastEmailUpdateKey = 'porthole.lastEmailUpdateTime'

/** Seconds until another update mail may be asked for (0: now). */
export function emailUpdateWait(now: number = Date.now()): number {
  const last = Number(storage.getItem(lastEmailUpdateKey))
  const own =
    Number.isFinite(last) && last > 0 && last <= now
      ? Math.max(0, Math.ceil((last + emailLoginCooldown - now) / 1000))
      : 0
  return Math.max(own, emailLoginWait(now))
}

const options = (method: Secure.SecureMethod) => ({
  timeout: Secure.requestTimeouts[method],
  timeoutReason: TimeoutReason.iframeRequestTimeout,
})

export type UpdateEmailAction = Secure.SecureSpec['requests']['updateEmail']['result']['action']

/** Asks for the change to `email`: which code comes first (the current address's, unless it has none). */
export async function startEmailUpdate(
  email: string,
  current: string | undefined,
  now: number = Date.now(),
): Promise<UpdateEmailAction> {
  const invalid = checkEmail(email)
  if (invalid) throw new LoginError(invalid)
  if (!current) throw new LoginError(t('updateEmail.none'))
  if (email.trim().toLowerCase() === current.toLowerCase())
    throw new LoginError(t('updateEmail.same'))
  const wait = emailUpdateWait(now)
  if (wait > 0) throw new LoginError(`Please try again after ${wait} seconds`)
  const channel = await waitForSecureChannel()
  // The host origin the browser gave the widget, for a frame whose browser names none (SECURITY.md 8).
  const { hostOrigin } = store.getState()
  let action: UpdateEmailAction
  try {
    ;({ action } = await withApproval(t('updateEmail.approval'), (signal) =>
      channel.request(
        'updateEmail',
        { email: email.trim(), ...(hostOrigin ? { origin: hostOrigin } : {}) },
        { ...options('updateEmail'), signal, timeout: approvalTimeout },
      ),
    ))
  } catch (error) {
    if (isUserRejection(error))
      throw new LoginError(t('updateEmail.rejected'), ErrorCode.userRejected)
    throw error
  }
  storage.setItem(lastEmailUpdateKey, String(now))
  return action
}

const sixDigits = (otp: string) => {
  const code = otp.trim()
  if (!/^\d{6}$/.test(code)) throw new LoginError(t('email.codeInvalid'))
  return code
}

/** The current address's code; the API then mails the new address its own. */
export async function verifyUpdatePrimary(otp: string, now: number = Date.now()): Promise<void> {
  const code = sixDigits(otp)
  const channel = await waitForSecureChannel()
  await channel.request('updateEmailPrimaryOtp', { otp: code }, options('updateEmailPrimaryOtp'))
  storage.setItem(lastEmailUpdateKey, String(now))
}

/** The new address's code: the account's email is now that address. */
export async function verifyUpdateSecondary(otp: string): Promise<string> {
  const code = sixDigits(otp)
  const channel = await waitForSecureChannel()
  const { newEmail } = await channel.request(
    'updateEmailSecondaryOtp',
    { otp: code },
    options('updateEmailSecondaryOtp'),
  )
  return newEmail
}

/** The signed-in account's email, if it has one (the frame's `getUser`). */
export async function currentEmail(): Promise<string | undefined> {
  const channel = await waitForSecureChannel()
  return (await channel.request('getUser', {})).email
}
