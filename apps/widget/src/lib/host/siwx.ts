/**
 * Sign in with a wallet signature (SIWX, CAIP-122) for the connected account,
 * in any namespace, as the seed's flow says: on connect, when sign-in is on,
 * the network is supported and the account has no stored session,
 * SIWXSignMessage opens. The message's domain and URI are the host origin the
 * browser reported at the handshake, never anything the host sent. The API
 * issues the nonce, verifies the signature and keeps the session, scoped to
 * that origin (SECURITY.md 9). Each adapter writes its namespace's message
 * and signs it (`chains/evm/siwx.ts`: EIP-4361; `chains/solana/`: CAIP-122's
 * generic form, ed25519).
 */
import { BaseError } from '@porthole/protocol/Errors'
import { Session } from '@porthole/protocol/Host'
import { SiwxNonce, SiwxSession } from '@porthole/protocol/Siwx'
import { track } from '../data/analytics.js'
import { api } from '../data/api.js'
import { storage } from '../data/storage.js'
import { projectId } from '../env.js'
import { router } from '../state/router.js'
import { type Connection, caipNetworkIdOf, store } from '../state/store.js'
import { isUserRejection } from '../walletErrors.js'

/** The seed's sign-in copy, word for word. */
export const SiwxMessage = {
  declined: 'Signature declined',
  initFailed: 'A problem occurred while trying initialize authentication',
  smartAccount: 'This application might not support Smart Accounts',
  authenticating: 'Authenticating...',
} as const

/** The seed's thrown sign-in errors. */
export class SiwxError extends BaseError {
  override name = 'SiwxError'
}
export const SiwxErrorMessage = {
  notEnabled: 'SIWX is not enabled',
  noAddress: 'No ActiveCaipAddress found',
  noNetwork: 'No ActiveCaipNetwork or client found',
  noClient: 'No ConnectionController client found',
} as const

type Stored = Record<string, Session>

const keyOf = (hostOrigin: string) => `porthole.siwx.${hostOrigin}`

const caipAddressOf = (connection: Connection) => {
  const caipNetworkId = caipNetworkIdOf(connection)
  return connection.address && caipNetworkId ? `${caipNetworkId}:${connection.address}` : null
}

/** This host's stored sessions; an entry that is not a session (old or damaged storage) is skipped. */
function readStored(hostOrigin: string): Stored {
  try {
    const value: unknown = JSON.parse(storage.getItem(keyOf(hostOrigin)) ?? '{}')
    if (typeof value !== 'object' || value === null) return {}
    return Object.fromEntries(
      Object.entries(value).flatMap(([key, entry]) => {
        const parsed = Session.safeParse(entry)
        return parsed.success ? [[key, parsed.data]] : []
      }),
    )
  } catch {
    return {}
  }
}

/** Whether the API still accepts the session (`expiresAt`: its expiration time, or sooner). */
const isLive = (session: Session, now = Date.now()) => {
  const expiresAt = session.data.expiresAt
  return typeof expiresAt === 'string' && Date.parse(expiresAt) > now
}

/** The stored session of an account on this host, if it has not expired. */
export function storedSession(hostOrigin: string, caipAddress: string): Session | null {
  const session = readStored(hostOrigin)[caipAddress.toLowerCase()]
  return session && isLive(session) ? session : null
}

function writeSession(hostOrigin: string, caipAddress: string, session: Session | null) {
  const stored = readStored(hostOrigin)
  if (session) stored[caipAddress.toLowerCase()] = session
  else delete stored[caipAddress.toLowerCase()]
  storage.setItem(keyOf(hostOrigin), JSON.stringify(stored))
}

/**
 * On every connection change: the account's stored session becomes the
 * host's, and an account without one on a supported network is asked to sign
 * in (a new account or network asks again).
 */
export function followSession(connection: Connection, supported: boolean): void {
  const { siwx, hostOrigin, session } = store.getState()
  const caipAddress = caipAddressOf(connection)
  if (!siwx || !hostOrigin || connection.status !== 'connected' || !caipAddress) {
    if (session) store.setState({ session: null })
    if (store.getState().history.at(-1) === 'SIWXSignMessage') router.reset()
    return
  }
  const stored = storedSession(hostOrigin, caipAddress)
  store.setState({ session: stored })
  if (!stored && supported && store.getState().history.at(-1) !== 'SIWXSignMessage')
    router.open('SIWXSignMessage')
}

export type SignInOutcome = 'signed' | 'declined'

/** The message, or the seed's start failure when the settings cannot make one. */
function toMessage(create: () => string): string {
  try {
    return create()
  } catch (cause) {
    throw new SiwxError(SiwxMessage.initFailed, { cause })
  }
}

/** What a namespace's adapter gives sign-in: the account, and how to write and sign the message. */
export type SignInAccount = {
  address: string | undefined
  /** The connection's network (CAIP-2), when it is one of the project's. */
  caipNetworkId: string | undefined
  /** Whether the wallet can sign (wagmi's connector, the Solana adapter's wallet). */
  hasClient: boolean
  /** The message for this account, with the API's nonce, the host and the site's settings. */
  createMessage(fields: {
    nonce: string
    issuedAt: Date
    hostOrigin: string
    siwx: NonNullable<ReturnType<typeof store.getState>['siwx']>
  }): string
  /** The wallet's signature of the message, as the API verifies it (hex for EVM, base58 for Solana). */
  sign(message: string): Promise<string>
}

/** `siwx.expirationTime` seconds after `issuedAt`, for the message. */
export const expirationOf = (issuedAt: Date, seconds: number | undefined) =>
  seconds ? new Date(issuedAt.getTime() + seconds * 1000) : undefined

/**
 * Signs in: a nonce from the API, the message, the wallet's signature, the
 * API's session. Throws `SiwxError` for the seed's missing-state cases and
 * for a failed start ('A problem occurred…', after which the wallet is
 * disconnected by the caller); a declined or refused signature answers
 * 'declined' and tracks SIWX_AUTH_ERROR.
 */
export async function signInWith(account: SignInAccount): Promise<SignInOutcome> {
  const { siwx, hostOrigin } = store.getState()
  if (!siwx || !hostOrigin) throw new SiwxError(SiwxErrorMessage.notEnabled)
  const { address, caipNetworkId } = account
  if (!address) throw new SiwxError(SiwxErrorMessage.noAddress)
  if (!caipNetworkId) throw new SiwxError(SiwxErrorMessage.noNetwork)
  if (!account.hasClient) throw new SiwxError(SiwxErrorMessage.noClient)

  let nonce: string
  try {
    nonce = SiwxNonce.parse(await api.post('/siwx/nonce', { params: { projectId } })).nonce
  } catch (cause) {
    throw new SiwxError(SiwxMessage.initFailed, { cause })
  }
  const issuedAt = new Date()
  const message = toMessage(() => account.createMessage({ nonce, issuedAt, hostOrigin, siwx }))

  let signature: string
  try {
    signature = await account.sign(message)
  } catch (error) {
    void track('SIWX_AUTH_ERROR')
    if (isUserRejection(error)) return 'declined'
    throw error
  }
  let verified: SiwxSession
  try {
    verified = SiwxSession.parse(
      await api.post('/siwx/sessions', { params: { projectId }, body: { message, signature } }),
    )
  } catch {
    void track('SIWX_AUTH_ERROR')
    return 'declined'
  }
  const { message: signed, signature: proof, ...data } = verified
  const session: Session = { data, message: signed, signature: proof }
  writeSession(hostOrigin, `${caipNetworkId}:${address}`, session)
  store.setState({ session })
  void track('SIWX_AUTH_SUCCESS')
  router.close()
  return 'signed'
}

/** Ends the session: the API forgets it, the widget and the host too. The wallet stays connected. */
export async function signOutOf(caipAddress: string | null): Promise<void> {
  const { hostOrigin, session } = store.getState()
  if (hostOrigin && caipAddress) writeSession(hostOrigin, caipAddress, null)
  store.setState({ session: null })
  const token = session?.data.token
  if (typeof token === 'string')
    await api
      .delete('/siwx/sessions', {
        params: { projectId },
        headers: { authorization: `Bearer ${token}` },
      })
      .catch(() => undefined)
}
