/**
 * What the frame's handlers share: the API, the storage, what lives only in
 * the page's memory (the auth share of the unlocked wallet, the login in
 * progress, the site's metadata) and the few browser facilities they need,
 * all injectable so the logic runs in Node tests.
 */
import { loginRequestTimeout } from '@porthole/protocol/Constants'
import type { LoginResult } from '@porthole/protocol/Embedded'
import { AbortedError, TimeoutError, TimeoutReason } from '@porthole/protocol/Errors'
import type * as Secure from '@porthole/protocol/Secure'
import type { ApprovalRequest } from '../approval/request.js'
import { type Api, ApiError, isApiError } from '../lib/api.js'
import { NotLoggedInError } from '../lib/errors.js'
import type { CachedUser, Storage } from './storage.js'
import { unlock } from './unlock.js'

/** What the approval UI is asked to show (`approval/`'s `requestApproval`), from its schema. */
export type { ApprovalRequest } from '../approval/request.js'

/** Resolves once the user approves in the frame's own UI; rejects (4001) otherwise. */
export type RequestApproval = (
  request: ApprovalRequest,
  options?: { signal?: AbortSignal | undefined },
) => Promise<void>

/** Held only in the page's memory, never stored. */
export type Memory = {
  /** The auth share of the unlocked wallet, and whose it is. */
  unlocked?: { userId: string; authShare: string } | undefined
  /** The email of the login in progress (connectEmail → connectDevice → connectOtp). */
  pendingEmail?: string | undefined
  /** One-time OAuth states this frame made (getSocialRedirectUri → connectSocial). */
  socialStates: Set<string>
  /** The site's metadata and SDK version (syncDappData), for the approval UI. */
  dappData?: Secure.DappData | undefined
  /** The network in use, once read or chosen. */
  chainId?: string | undefined
}

export type Context = {
  api: Api
  storage: Storage
  memory: Memory
  requestApproval: RequestApproval
  /** The host's origin as the browser reports it (`location.ancestorOrigins`), when it does. */
  ancestorOrigin: () => string | undefined
  /** Milliseconds between two polls of the API (device approval, social login). */
  pollInterval: number
  /** Reloads the frame's document. */
  reload: () => void
  /** Where `syncTheme` writes the theme; the document's root element when not given. */
  root?: ThemeRoot | undefined
}

/** Where the theme is written: the frame's `document.documentElement`. */
export type ThemeRoot = { readonly dataset: DOMStringMap }

/** SPEC 9: the default network. */
export const defaultChainId = 'eip155:1'
/** Solana mainnet, for Solana requests made while an EVM network is in use. */
export const solanaMainnet = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'

export function createMemory(): Memory {
  return { socialStates: new Set() }
}

/** The stored session, or a 4100 error when there is none. */
export async function requireSession(
  context: Context,
): Promise<{ token: string; user: CachedUser }> {
  const [token, user] = await Promise.all([context.storage.getToken(), context.storage.getUser()])
  if (!token || !user) throw new NotLoggedInError()
  return { token, user }
}

/**
 * Ends the local session (a 401, or sign out): the token, the cached user and
 * the auth share go; the device id and device shares stay, so this device
 * logs in again without a new device verification.
 */
export async function endLocalSession(context: Context): Promise<void> {
  context.memory.unlocked = undefined
  await context.storage.clearSession()
}

/** Runs `call` with the session's token; a 401 ends the local session and becomes 4100. */
export async function withSession<result>(
  context: Context,
  call: (token: string, user: CachedUser) => Promise<result>,
): Promise<result> {
  const { token, user } = await requireSession(context)
  try {
    return await call(token, user)
  } catch (error) {
    if (isApiError(error, 401)) {
      await endLocalSession(context)
      throw new NotLoggedInError(error.shortMessage)
    }
    throw error
  }
}

/**
 * Finishes a login: unlocks the wallet (creating it the first time), then
 * stores the session and the user. Nothing is stored when unlocking fails.
 */
export async function completeLogin(context: Context, result: LoginResult): Promise<CachedUser> {
  const { token, user } = result
  const unlocked = await unlock({
    api: context.api,
    storage: context.storage,
    token,
    userId: user.id,
  })
  const cached: CachedUser = {
    id: user.id,
    ...(user.email === undefined ? {} : { email: user.email }),
    addresses: unlocked.addresses,
  }
  await context.storage.setToken(token)
  await context.storage.setUser(cached)
  context.memory.unlocked = { userId: user.id, authShare: unlocked.authShare }
  context.memory.pendingEmail = undefined
  return cached
}

/** The network in use: chosen, stored, or the default. */
export async function getChainId(context: Context): Promise<string> {
  context.memory.chainId ??= (await context.storage.getChainId()) ?? defaultChainId
  return context.memory.chainId
}

export async function setChainId(context: Context, chainId: string): Promise<void> {
  context.memory.chainId = chainId
  await context.storage.setChainId(chainId)
}

export function namespaceOf(chainId: string): string {
  return chainId.slice(0, chainId.indexOf(':'))
}

/** The account on `chainId`: the Solana address on a Solana network, else the EVM one. */
export function accountOn(user: CachedUser, chainId: string): string {
  return namespaceOf(chainId) === 'solana' ? user.addresses.solana : user.addresses.eip155
}

/** The user as the widget sees it (SPEC 3): one EOA; smart accounts come later. */
export function toSecureUser(user: CachedUser, chainId: string): Secure.User {
  const address = accountOn(user, chainId)
  return {
    ...(user.email === undefined ? {} : { email: user.email }),
    address,
    chainId,
    accounts: [{ address, type: 'eoa' }],
    preferredAccountType: 'eoa',
    smartAccountDeployed: false,
  }
}

/** Waits `ms`, or rejects at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

export type PollOptions = {
  interval: number
  /** The request's signal: aborting it stops the polling at once. */
  signal: AbortSignal
  /** The longest the polling goes on, whatever the widget does (SECURITY.md 17). */
  timeout?: number | undefined
}

/**
 * Calls `check` every `interval` until it answers something. An API that
 * cannot be reached or fails (5xx) is asked again; any other error ends it.
 */
export async function poll<result>(
  check: (signal: AbortSignal) => Promise<result | undefined>,
  { interval, signal, timeout = loginRequestTimeout }: PollOptions,
): Promise<result> {
  // Either the request's end or the deadline stops it (no AbortSignal.any: older Safari).
  const stop = new AbortController()
  let timedOut = false
  const onAbort = () => stop.abort()
  const timer = setTimeout(() => {
    timedOut = true
    stop.abort()
  }, timeout)
  signal.addEventListener('abort', onAbort, { once: true })
  if (signal.aborted) stop.abort()
  const settle = (error: unknown) => {
    if (signal.aborted) return new AbortedError()
    if (timedOut) return new TimeoutError(TimeoutReason.iframeRequestTimeout)
    return error
  }
  try {
    for (;;) {
      try {
        if (stop.signal.aborted) throw settle(undefined)
        const answer = await check(stop.signal)
        if (answer !== undefined) return answer
      } catch (error) {
        if (stop.signal.aborted) throw settle(error)
        const transient = error instanceof ApiError && (error.status === 0 || error.status >= 500)
        if (!transient) throw error
      }
      try {
        await sleep(interval, stop.signal)
      } catch (error) {
        throw settle(error)
      }
    }
  } finally {
    clearTimeout(timer)
    signal.removeEventListener('abort', onAbort)
  }
}
