/**
 * The frame's side of the widget ↔ secure-frame channel, once the handshake
 * has bound the widget's port and origin: the handlers, then the READY event.
 */
import * as Channel from '@porthole/protocol/Channel'
import * as Contract from '@porthole/protocol/Contract'
import type { Accepted } from '@porthole/protocol/Handshake'
import * as Secure from '@porthole/protocol/Secure'
import { ping } from './handlers/ping.js'
import { syncTheme, type ThemeRoot } from './handlers/syncTheme.js'

export type SecureChannel = Channel.Channel<Secure.SecureSpec, Secure.WidgetSpec>

export type StartFrameOptions = {
  /** Where `syncTheme` writes; defaults to `document.documentElement`. */
  root?: ThemeRoot | undefined
}

/** Opens the channel on the accepted port, registers every handler, then emits `ready`. */
export function startFrame(accepted: Accepted, options: StartFrameOptions = {}): SecureChannel {
  const channel = Channel.create<Secure.SecureSpec, Secure.WidgetSpec>({
    port: accepted.port,
    origin: accepted.origin,
    parsers: Contract.parsers(Secure.secure, Secure.widget),
  })
  channel.handle('syncTheme', (params) => syncTheme(params, options.root))
  channel.handle('ping', () => ping())
  // Handlers first: the widget may send its first request as soon as it sees READY.
  channel.emit('ready', undefined)
  return channel
}
