import { InvalidParamsError } from '@porthole/protocol/Errors'
import { NotAvailableError } from '../lib/errors.js'
import { createRandomId } from '../wallet/storage.js'
import { farcasterNotAvailable } from './connectFarcaster.js'
import type { Handler } from './handler.js'

/** One-time states kept at most; the oldest is dropped first. */
export const maxPendingStates = 8

/**
 * `getSocialRedirectUri`: makes a one-time OAuth state (128 random bits,
 * kept in this page's memory only) and asks the API for the provider's
 * authorization URL bound to it and to this device.
 */
export const getSocialRedirectUri = (async ({ provider }, context) => {
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
}) satisfies Handler<'getSocialRedirectUri'>
