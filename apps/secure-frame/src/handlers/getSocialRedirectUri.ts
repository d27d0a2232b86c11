import { InvalidParamsError } from '@porthole/protocol/Errors'
import type { SecureSpec } from '@porthole/protocol/Secure'
import { NotAvailableError } from '../errors.js'
import type { Context } from '../wallet/session.js'
import { createRandomId } from '../wallet/storage.js'
import { farcasterNotAvailable } from './connectFarcaster.js'

type Params = SecureSpec['requests']['getSocialRedirectUri']['params']
type Result = SecureSpec['requests']['getSocialRedirectUri']['result']

/** One-time states kept at most; the oldest is dropped first. */
export const maxPendingStates = 8

/**
 * `getSocialRedirectUri`: makes a one-time OAuth state (128 random bits,
 * kept in this page's memory only) and asks the API for the provider's
 * authorization URL bound to it and to this device.
 */
export async function getSocialRedirectUri(
  { provider }: Params,
  context: Context,
): Promise<Result> {
  if (provider === 'farcaster') throw new NotAvailableError(farcasterNotAvailable)
  const deviceId = await context.storage.getDeviceId()
  const state = createRandomId()
  const { uri } = await context.api.socialStart({ provider, deviceId, state })
  if (new URL(uri).searchParams.get('state') !== state)
    throw new InvalidParamsError('The login link does not carry this login’s state.')
  const states = context.memory.socialStates
  states.add(state)
  for (const old of states) if (states.size > maxPendingStates) states.delete(old)
  return { uri }
}
