/**
 * Tests only: an in-memory stand-in for the API's embedded-wallet endpoints,
 * implementing the frame's `Api` interface (not HTTP). It follows the wire's
 * rules (Embedded.ts): codes mailed per login, device verification before a
 * known account's keys are released to a new device (the login answers
 * VERIFY_OTP either way, SECURITY.md 26: the mail is an approval link, and
 * approving it mails the code), the auth share to any
 * session, the recovery share only to a verified device, one PUT per wallet.
 * Every call is logged so tests can check what left the frame.
 */
import type { Addresses, LoginResult, SharesResponse } from '@porthole/protocol/Embedded'
import { type Api, ApiError } from '../src/lib/api.js'

/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true

type User = { id: string; email: string; wallet?: SharesResponse & { recoveryShare: string } }
type Session = { userId: string; deviceId: string }

export type Call = { name: keyof Api; args: unknown[] }

export type MemoryApiOptions = {
  /** Answers `rpc` calls (the JSON-RPC proxy). */
  rpc?: ((chainId: string, method: string, params: unknown) => Promise<unknown>) | undefined
}

export type MemoryApi = Api & {
  readonly calls: Call[]
  readonly users: Map<string, User>
  readonly sessions: Map<string, Session>
  /** The code last mailed to `email` (none after an approval link, until it is followed). */
  codeFor(email: string): string | undefined
  /** Whether the last mail to `email` for `deviceId` is a device approval link not yet followed. */
  approvalMailed(email: string, deviceId: string): boolean
  /** Follows the device approval link mailed for (`email`, `deviceId`); mails the code. */
  approveDevice(email: string, deviceId: string): void
  /**
   * The provider redirected back for `state`: the login completes as `email`;
   * answers the done page's URL (`<apiUrl>/auth/v1/social/done?state&claim`)
   * the popup posts to its opener.
   */
  completeSocial(state: string, email: string): string
  /** The Farcaster app signed on the channel of `uri` (a `farcasterStart` link) as `fid`. */
  completeFarcaster(uri: string, fid: number): void
  /** Makes the next call to `name` fail once with `error`, after (`after: true`) or before it runs. */
  failNext(name: keyof Api, error: ApiError, options?: { after?: boolean }): void
  /** Makes the next `getShares` answer 404 `no_wallet` whatever exists (a stale read). */
  staleNextGetShares(): void
}

/** The memory API's `apiUrl`. */
export const memoryApiUrl = 'http://api.test'

let sequence = 0
const randomToken = () => {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
}

export function createMemoryApi(options: MemoryApiOptions = {}): MemoryApi {
  const calls: Call[] = []
  const users = new Map<string, User>()
  const sessions = new Map<string, Session>()
  const verified = new Set<string>()
  const pendingDevices = new Map<string, boolean>()
  /** The live code of each address, mailed or not (as the API's table). */
  const codes = new Map<string, string>()
  /** The code in the last mail to each address. */
  const mailed = new Map<string, string>()
  const social = new Map<string, { deviceId: string; email?: string; claim?: string }>()
  const farcaster = new Map<string, { deviceId: string; state: string; fid?: number }>()
  const failures = new Map<string, { error: ApiError; after: boolean }>()
  const pendingEmailUpdates = new Map<string, { email: string; step: 'primary' | 'secondary' }>()
  let staleGet = false

  const newCode = () => String(100000 + Math.floor(Math.random() * 900000))
  const mail = (email: string) => {
    const code = newCode()
    codes.set(email, code)
    mailed.set(email, code)
  }
  const userByEmail = (email: string) => users.get(email.toLowerCase())
  /** A known account on a device not verified for it: its email must approve the device. */
  const needsApproval = (user: User | undefined, deviceId: string) =>
    user?.wallet !== undefined && !verified.has(`${user.id}:${deviceId}`)
  const publicUser = (user: User) => ({
    id: user.id,
    email: user.email,
    ...(user.wallet ? { addresses: user.wallet.addresses } : {}),
  })
  const login = (user: User, deviceId: string): LoginResult => {
    verified.add(`${user.id}:${deviceId}`)
    const token = randomToken()
    sessions.set(token, { userId: user.id, deviceId })
    return { token, user: publicUser(user) }
  }
  const session = (token: string) => {
    const found = sessions.get(token)
    if (!found) throw new ApiError(401, 'unauthorized', 'The session has ended; log in again')
    const user = [...users.values()].find((candidate) => candidate.id === found.userId)
    if (!user) throw new ApiError(401, 'unauthorized', 'The session has ended; log in again')
    return { ...found, user }
  }
  const userFor = (email: string) => {
    const key = email.toLowerCase()
    let user = users.get(key)
    if (!user) {
      user = { id: `user-${++sequence}`, email: key }
      users.set(key, user)
    }
    return user
  }

  /** Logs the call, applies a queued failure, runs it. */
  const call =
    <args extends unknown[], result>(name: keyof Api, run: (...args: args) => Promise<result>) =>
    async (...args: args): Promise<result> => {
      calls.push({
        name,
        args: structuredClone(args.filter((arg) => !(arg instanceof AbortSignal))),
      })
      const failure = failures.get(name)
      if (failure) failures.delete(name)
      if (failure && !failure.after) throw failure.error
      const result = await run(...args)
      if (failure) throw failure.error
      return result
    }

  const api: Api = {
    apiUrl: memoryApiUrl,
    loginEmail: call('loginEmail', async ({ email, deviceId }) => {
      const key = email.toLowerCase()
      if (needsApproval(userByEmail(key), deviceId)) {
        // The approval link is mailed; a code is issued too but never mailed.
        pendingDevices.set(`${key}:${deviceId}`, false)
        codes.set(key, newCode())
        mailed.delete(key)
      } else mail(key)
      return { action: 'VERIFY_OTP' as const }
    }),
    deviceStatus: call('deviceStatus', async ({ email, deviceId }) => ({
      verified: pendingDevices.get(`${email.toLowerCase()}:${deviceId}`) === true,
    })),
    verifyEmail: call('verifyEmail', async ({ email, otp, deviceId }) => {
      const key = email.toLowerCase()
      if (!otp || codes.get(key) !== otp)
        throw new ApiError(400, 'invalid_code', 'The code is wrong or has expired')
      if (needsApproval(userByEmail(key), deviceId))
        throw new ApiError(
          403,
          'device_not_verified',
          'This device is not approved for this account yet: approve it with the link in the email we sent, then enter the code from the next email',
        )
      codes.delete(key)
      return login(userFor(key), deviceId)
    }),
    getSession: call('getSession', async (token: string) => ({
      user: publicUser(session(token).user),
    })),
    deleteSession: call('deleteSession', async (token: string) => {
      sessions.delete(token)
    }),
    getShares: call('getShares', async (token: string, options: { recovery?: boolean } = {}) => {
      const { user, deviceId } = session(token)
      if (!user.wallet || staleGet) {
        staleGet = false
        throw new ApiError(404, 'no_wallet', 'This account has no wallet yet')
      }
      const { authShare, recoveryShare, addresses } = user.wallet
      if (!options.recovery) return { authShare, addresses }
      if (!verified.has(`${user.id}:${deviceId}`))
        throw new ApiError(403, 'device_not_verified', 'Verify this device first')
      return { authShare, recoveryShare, addresses }
    }),
    putShares: call(
      'putShares',
      async (
        token: string,
        body: { authShare: string; recoveryShare: string; addresses: Addresses },
      ) => {
        const { user } = session(token)
        if (user.wallet) throw new ApiError(409, 'wallet_exists', 'This account has a wallet')
        user.wallet = { ...body }
      },
    ),
    updateEmail: call('updateEmail', async (token: string, { email }) => {
      const { user } = session(token)
      pendingEmailUpdates.set(user.id, { email, step: 'primary' })
      mail(user.email)
      return { action: 'VERIFY_PRIMARY_OTP' as const }
    }),
    updateEmailPrimary: call('updateEmailPrimary', async (token: string, { otp }) => {
      const { user } = session(token)
      const pending = pendingEmailUpdates.get(user.id)
      if (!pending || codes.get(user.email) !== otp)
        throw new ApiError(400, 'invalid_code', 'The code is wrong or has expired')
      pending.step = 'secondary'
      mail(pending.email)
    }),
    updateEmailSecondary: call('updateEmailSecondary', async (token: string, { otp }) => {
      const { user } = session(token)
      const pending = pendingEmailUpdates.get(user.id)
      if (pending?.step !== 'secondary' || codes.get(pending.email) !== otp)
        throw new ApiError(400, 'invalid_code', 'The code is wrong or has expired')
      users.delete(user.email)
      user.email = pending.email
      users.set(user.email, user)
      return { newEmail: pending.email }
    }),
    socialStart: call('socialStart', async ({ provider, deviceId, state }) => {
      social.set(state, { deviceId })
      return { uri: `https://${provider}.example/authorize?client_id=porthole&state=${state}` }
    }),
    socialResult: call('socialResult', async ({ state, deviceId, claim }) => {
      const entry = social.get(state)
      if (!entry || entry.deviceId !== deviceId)
        throw new ApiError(404, 'unknown_state', 'This login was not started')
      if (!entry.email) return undefined
      social.delete(state)
      if (entry.claim !== claim)
        throw new ApiError(
          403,
          'claim_mismatch',
          'This sign-in was not finished in the window that started it: start again',
        )
      return login(userFor(entry.email), deviceId)
    }),
    farcasterStart: call('farcasterStart', async ({ deviceId, state }) => {
      const channelToken = randomToken()
      farcaster.set(channelToken, { deviceId, state })
      return {
        uri: `https://farcaster.example/~/siwf?channelToken=${channelToken}&nonce=${sequence++}abcdefgh`,
      }
    }),
    farcasterResult: call('farcasterResult', async ({ state, deviceId }) => {
      const [channelToken, entry] = [...farcaster].find(([, login]) => login.state === state) ?? []
      if (!channelToken || !entry || entry.deviceId !== deviceId)
        throw new ApiError(
          410,
          'login_expired',
          'This login has expired or was already collected: start again',
        )
      if (!entry.fid) return undefined
      farcaster.delete(channelToken)
      return login(userFor(`fid-${entry.fid}@farcaster.example`), deviceId)
    }),
    rpc: call('rpc', async (chainId: string, method: string, params?: unknown) => {
      if (!options.rpc) throw new ApiError(502, 'rpc_error', 'No RPC here')
      return options.rpc(chainId, method, params)
    }),
  }

  return {
    ...api,
    calls,
    users,
    sessions,
    codeFor: (email) => mailed.get(email.toLowerCase()),
    approvalMailed: (email, deviceId) =>
      pendingDevices.get(`${email.toLowerCase()}:${deviceId}`) === false,
    approveDevice(email, deviceId) {
      const key = `${email.toLowerCase()}:${deviceId}`
      if (!pendingDevices.has(key)) throw new Error('No device approval was mailed')
      pendingDevices.set(key, true)
      const user = userByEmail(email)
      if (user) verified.add(`${user.id}:${deviceId}`)
      mail(email.toLowerCase())
    },
    completeSocial(state, email) {
      const entry = social.get(state)
      if (!entry) throw new Error('No such social login')
      entry.email = email
      entry.claim = randomToken()
      const done = new URL(`${memoryApiUrl}/auth/v1/social/done`)
      done.searchParams.set('state', state)
      done.searchParams.set('claim', entry.claim)
      return done.href
    },
    completeFarcaster(uri, fid) {
      const entry = farcaster.get(new URL(uri).searchParams.get('channelToken') ?? '')
      if (!entry) throw new Error('No such Farcaster login')
      entry.fid = fid
    },
    failNext(name, error, { after = false } = {}) {
      failures.set(name, { error, after })
    },
    staleNextGetShares() {
      staleGet = true
    },
  }
}
