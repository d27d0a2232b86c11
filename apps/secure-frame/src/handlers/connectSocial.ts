import { Claim, type IdentityLoginResponse, socialDonePath } from '@porthole/protocol/Embedded'
import { InvalidParamsError } from '@porthole/protocol/Errors'
import { type Context, completeLogin, getChainId, poll, toSecureUser } from '../wallet/session.js'
import { takeFarcasterState } from './connectFarcaster.js'
import type { Handler, Result } from './handler.js'

/** Why a `uri` that is not the API's done page is refused. */
export const notDoneUriMessage =
  'connectSocial needs the URL the sign-in popup posted when it finished (…/auth/v1/social/done?state=…&claim=…), not the provider’s link.'

/**
 * `connectSocial`: collects a login. For a social login, `uri` is the URL of
 * the API's done page (`<apiUrl>/auth/v1/social/done?state=…&claim=…`), which
 * the popup posted to the window that opened it (the widget): its origin and
 * path must be the API's, its state one this frame made and has not used (it
 * is spent now), its claim well-formed; the claim is shown to the API, which
 * answers the login only for the claim it made at the callback (SECURITY.md
 * 15). For a Farcaster login (`connectFarcaster`) `uri` is the relay link it
 * answered. The API is asked every `pollInterval` until the login is there,
 * then the wallet is unlocked as after an email login.
 *
 * When the account's email must decide first (SECURITY.md 23: a device the
 * account has not used, or an identity found by its email alone), the API
 * opens no session: it mailed that email a device approval link or a code,
 * and the answer says which. The login then goes on as the email login of
 * that address (`connectDevice`, `connectOtp`); nothing is unlocked here.
 */
export const connectSocial = (async ({ uri }, context, { signal }) => {
  const farcasterState = takeFarcasterState(context.memory, uri)
  if (farcasterState !== undefined) {
    const deviceId = await context.storage.getDeviceId()
    return collect(context, signal, (stop) =>
      context.api.farcasterResult({ state: farcasterState, deviceId }, stop),
    )
  }
  const { state, claim } = readDoneUri(uri, context.api.apiUrl)
  if (!context.memory.socialStates.delete(state))
    throw new InvalidParamsError('This login was not started here; start it again.')
  const deviceId = await context.storage.getDeviceId()
  return collect(context, signal, (stop) =>
    context.api.socialResult({ state, deviceId, claim }, stop),
  )
}) satisfies Handler<'connectSocial'>

async function collect(
  context: Context,
  signal: AbortSignal,
  ask: (stop: AbortSignal) => Promise<IdentityLoginResponse | undefined>,
): Promise<Result<'connectSocial'>> {
  const result = await poll(ask, { interval: context.pollInterval, signal })
  if ('action' in result) {
    context.memory.pendingEmail = result.email
    return { action: result.action, email: result.email }
  }
  const user = await completeLogin(context, result)
  return { user: toSecureUser(user, await getChainId(context)) }
}

/**
 * The state and claim of the API's done page URL: exactly
 * `<apiUrl>/auth/v1/social/done?state=…&claim=…` (each once, nothing else).
 * Anything else (a provider's authorization URL, another origin or path) is
 * refused before any state is spent.
 */
export function readDoneUri(uri: string, apiUrl: string): { state: string; claim: string } {
  let url: URL
  let expected: URL
  try {
    url = new URL(uri)
    expected = new URL(`${apiUrl.replace(/\/+$/, '')}${socialDonePath}`)
  } catch {
    throw new InvalidParamsError(notDoneUriMessage)
  }
  if (
    url.origin !== expected.origin ||
    url.pathname !== expected.pathname ||
    url.username !== '' ||
    url.password !== '' ||
    url.hash !== ''
  )
    throw new InvalidParamsError(notDoneUriMessage)
  const names = [...url.searchParams.keys()].sort()
  const state = url.searchParams.get('state')
  const claim = url.searchParams.get('claim')
  if (state === null)
    throw new InvalidParamsError('This login was not started here; start it again.')
  if (claim === null || !Claim.safeParse(claim).success)
    throw new InvalidParamsError('The sign-in’s claim is missing or malformed; start it again.')
  if (names.join() !== 'claim,state') throw new InvalidParamsError(notDoneUriMessage)
  return { state, claim }
}
