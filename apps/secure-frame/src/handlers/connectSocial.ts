import type { HandlerContext } from '@porthole/protocol/Channel'
import { InvalidParamsError } from '@porthole/protocol/Errors'
import type { SecureSpec } from '@porthole/protocol/Secure'
import { type Context, completeLogin, getChainId, poll, toSecureUser } from '../wallet/session.js'
import { takeFarcasterState } from './connectFarcaster.js'

type Params = SecureSpec['requests']['connectSocial']['params']
type Result = SecureSpec['requests']['connectSocial']['result']

/**
 * `connectSocial`: the login started by `getSocialRedirectUri`, or by
 * `connectFarcaster` (then `uri` is the relay link it answered). The state
 * must be one this frame made and has not used (it is spent now); the API is
 * asked every `pollInterval` until the provider, or the Farcaster app, has
 * answered, then the wallet is unlocked as after an email login.
 */
export async function connectSocial(
  { uri }: Params,
  context: Context,
  { signal }: HandlerContext,
): Promise<Result> {
  const farcasterState = takeFarcasterState(context.memory, uri)
  const state = farcasterState ?? new URL(uri).searchParams.get('state')
  if (!state || (farcasterState === undefined && !context.memory.socialStates.delete(state)))
    throw new InvalidParamsError('This login was not started here; start it again.')
  const deviceId = await context.storage.getDeviceId()
  const collect =
    farcasterState === undefined ? context.api.socialResult : context.api.farcasterResult
  const result = await poll((stop) => collect({ state, deviceId }, stop), {
    interval: context.pollInterval,
    signal,
  })
  const user = await completeLogin(context, result)
  return { user: toSecureUser(user, await getChainId(context)) }
}
