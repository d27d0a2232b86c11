import { version } from '../lib/config.js'
import type { Handler } from './handler.js'

/** `ping`: answers the frame's version, so the widget can tell the channel is alive. */
export const ping = (() => {
  return { version }
}) satisfies Handler<'ping'>
