/**
 * The secure frame's entry. The handshake listener is installed first, at
 * module top level, so it exists before the frame's `load` event that makes
 * the widget post its hello; only the widget's origin is accepted
 * (SECURITY.md 1). Nothing is ever posted to `window.parent` directly: all
 * traffic goes over the port the widget sent.
 */
import './lib/style.css'
import * as Handshake from '@porthole/protocol/Handshake'
import * as Secure from '@porthole/protocol/Secure'
import { startFrame } from './frame.js'
import { widgetOrigin } from './lib/config.js'

const accepted = Handshake.accept({
  channel: Secure.channel,
  isAllowedOrigin: (origin) => origin === widgetOrigin,
})

void accepted.then((peer) => startFrame(peer))
