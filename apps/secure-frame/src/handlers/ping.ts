import type { SecureSpec } from '@porthole/protocol/Secure'
import { version } from '../config.js'

type Result = SecureSpec['requests']['ping']['result']

/** `ping`: answers the frame's version, so the widget can tell the channel is alive. */
export function ping(): Result {
  return { version }
}
