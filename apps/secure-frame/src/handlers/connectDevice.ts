import type { HandlerContext } from '@porthole/protocol/Channel'
import { InvalidParamsError } from '@porthole/protocol/Errors'
import { type Context, poll } from '../wallet/session.js'

/**
 * `connectDevice`: after VERIFY_DEVICE (a social or Farcaster login on a
 * device its account's email has not approved), asks the API every `pollInterval`
 * whether the approval link mailed for this device has been followed, until
 * it has (the API then mails the code). Stops when the request is cancelled,
 * and after the login timeout in any case.
 */
export async function connectDevice(
  context: Context,
  { signal }: HandlerContext,
): Promise<undefined> {
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
}
