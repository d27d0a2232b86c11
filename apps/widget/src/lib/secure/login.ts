/**
 * Embedded-wallet login from the widget's side: every step is a request to
 * the secure frame, which alone talks to the API's auth endpoints and holds
 * the keys (SECURITY.md 11 and 12). The email itself is typed here, in the
 * widget; codes are typed here too and go straight to the frame.
 *
 * SPEC 3 and 4: one local-storage key holds the time of the last email login
 * request; it is set on success and cleared on disconnect or when the frame
 * reports it is not connected. A new email login within 30 s of it is refused
 * here ('Please try again after {n} seconds'), as the API also refuses.
 */

import type { SocialProvider } from '@porthole/protocol/Api'
import { emailLoginCooldown } from '@porthole/protocol/Constants'
import { ErrorCode, RpcError, TimeoutReason, UserRejectedError } from '@porthole/protocol/Errors'
import * as Secure from '@porthole/protocol/Secure'
import type { View } from '@porthole/protocol/Views'
import { storage } from '../data/storage.js'
import { t } from '../i18n.js'
import { currentView, raiseAlert, store } from '../state/store.js'
import { type SecureChannel, waitForSecureChannel } from './frame.js'

/** The local-storage key holding the time of the last email login request (ms since epoch). */
export const lastEmailLoginKey = 'porthole.lastEmailLoginTime'

/** A login step the user can fix or retry: its message is shown as is. */
export class LoginError extends RpcError {
  override name = 'LoginError'
  constructor(message: string, code: number = ErrorCode.invalidParams) {
    super(code, message)
  }
}

/** Seconds until another email login may be asked for (0: now). */
export function emailLoginWait(now: number = Date.now()): number {
  const last = Number(storage.getItem(lastEmailLoginKey))
  if (!Number.isFinite(last) || last <= 0 || last > now) return 0
  const left = last + emailLoginCooldown - now
  return left > 0 ? Math.ceil(left / 1000) : 0
}

export function clearEmailLogin(): void {
  storage.removeItem(lastEmailLoginKey)
}

/** SPEC 5: a valid email address; the message the form shows otherwise. */
export function checkEmail(value: string): string | null {
  return Secure.Email.safeParse(value.trim()).success ? null : t('email.invalid')
}

const loginOptions = (method: Secure.SecureMethod) => ({
  timeout: Secure.requestTimeouts[method],
  timeoutReason: TimeoutReason.iframeRequestTimeout,
})

/** Sends a login step; a timeout raises the `iframe_request_timeout` alert. */
async function loginStep<result>(
  method: Secure.SecureMethod,
  run: (channel: SecureChannel, options: ReturnType<typeof loginOptions>) => Promise<result>,
): Promise<result> {
  const open = store.getState().open
  const channel = await waitForSecureChannel()
  // The frame may still have been loading (or the host's check running): a
  // visitor who closed the modal meanwhile has dismissed the login.
  if (open && !store.getState().open) throw new UserRejectedError()
  try {
    return await run(channel, loginOptions(method))
  } catch (error) {
    const reason = (error as { data?: { reason?: unknown } })?.data?.reason
    if (reason === TimeoutReason.iframeRequestTimeout)
      raiseAlert({
        code: 'IFRAME_REQUEST_TIMEOUT',
        message: t('alert.IFRAME_REQUEST_TIMEOUT.event'),
      })
    throw error
  }
}

/**
 * Starts an email login: the frame answers CONNECT (this device already holds
 * a session for that email) or VERIFY_OTP: a mail went out, with a code, or,
 * for an account on a device it has not used, an approval link whose approval
 * mails the code (the answer does not say which: SECURITY.md 26).
 * VERIFY_DEVICE follows only a social or Farcaster login (`continueWithEmail`).
 */
export async function loginWithEmail(
  email: string,
  now: number = Date.now(),
): Promise<Secure.SecureSpec['requests']['connectEmail']['result']['action']> {
  const invalid = checkEmail(email)
  if (invalid) throw new LoginError(invalid)
  const wait = emailLoginWait(now)
  if (wait > 0) throw new LoginError(`Please try again after ${wait} seconds`)
  const { action } = await loginStep('connectEmail', (channel, options) =>
    channel.request('connectEmail', { email: email.trim() }, options),
  )
  storage.setItem(lastEmailLoginKey, String(now))
  return action
}

/** Waits until the device approval link in the mail has been followed. */
export function waitForDeviceApproval(signal?: AbortSignal): Promise<void> {
  return loginStep('connectDevice', (channel, options) =>
    channel.request('connectDevice', undefined, { ...options, signal }),
  )
}

/** Checks the mailed code; on success the frame holds the unlocked wallet. */
export function verifyOtp(otp: string): Promise<void> {
  const code = otp.trim()
  if (!/^\d{6}$/.test(code)) return Promise.reject(new LoginError(t('email.codeInvalid')))
  return loginStep('connectOtp', (channel, options) =>
    channel.request('connectOtp', { otp: code }, options),
  )
}

/** The provider's authorization URL for the social login popup. */
export function socialRedirectUri(provider: SocialProvider): Promise<string> {
  return loginStep('getSocialRedirectUri', async (channel, options) => {
    const { uri } = await channel.request('getSocialRedirectUri', { provider }, options)
    return uri
  })
}

/** Opens a Sign In With Farcaster channel in the frame; its URL is for the Farcaster app. */
export function farcasterUrl(): Promise<string> {
  return loginStep('connectFarcaster', async (channel, options) => {
    const { url } = await channel.request('connectFarcaster', undefined, options)
    return url
  })
}

export type SocialLoginResult = Secure.SecureSpec['requests']['connectSocial']['result']

/**
 * Waits for the social or Farcaster login that `uri` started to complete (the
 * frame asks the API): the user, signed in, or the step the account's email
 * must take first (`continueWithEmail`).
 */
export function completeSocialLogin(uri: string, signal?: AbortSignal): Promise<SocialLoginResult> {
  return loginStep('connectSocial', (channel, options) =>
    channel.request('connectSocial', { uri }, { ...options, signal }),
  )
}

/**
 * A social or Farcaster login on a device the account has not used, or one
 * that found the account by its email alone: the account's email decides
 * (SECURITY.md 23). The frame's API mailed it an approval link
 * (VERIFY_DEVICE) or a code (VERIFY_OTP); the login goes on as that email's,
 * in the view for that step, which takes the place of `from` (Back returns to
 * where the login began). A mail was just sent: Resend waits its 30 s.
 */
export function continueWithEmail(
  step: Extract<SocialLoginResult, { action: string }>,
  from: View,
): void {
  storage.setItem(lastEmailLoginKey, String(Date.now()))
  const next = step.action === 'VERIFY_DEVICE' ? 'EmailVerifyDevice' : 'EmailVerifyOtp'
  store.setState((state) =>
    currentView(state) === from
      ? { loginEmail: step.email, history: [...state.history.slice(0, -1), next] }
      : {},
  )
}
