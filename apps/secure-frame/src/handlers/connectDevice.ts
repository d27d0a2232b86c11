import { InvalidParamsError } from '@porthole/protocol/Errors'
import { poll } from '../wallet/session.js'
import type { Handler } from './handler.js'

/**
 * `connectDevice`: after VERIFY_DEVICE (a social or Farcaster login on a
 * device its account's email has not approved), asks the API every `pollInterval`
 * whether the approval link mailed for this device has been followed, until
 * it has (the API then mails the code). Stops when the request is cancelled,
 * and after the login timeout in any case.
 */
export const connectDevice = (async (_, context, { signal }) => {
  const email = context.memory.pendingEmail
  if (!email) throw new InvalidParamsError('No email login is in progress.')
  const deviceId = await context.storage.getDeviceId()
  await poll(
    async (stop) => {
      const { verified } = await context.api.deviceStatus({ email, deviceId }, stop)
      return verified ? true : undefined
    },
    { interval: context.pollInterval, signal },
  )
}) satisfies Handler<'connectDevice'>
