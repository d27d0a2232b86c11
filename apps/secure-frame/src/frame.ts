/**
 * The frame's side of the widget ↔ secure-frame channel, once the handshake
 * has bound the widget's port and origin: the handlers, then the READY event.
 */
import * as Channel from '@porthole/protocol/Channel'
import * as Contract from '@porthole/protocol/Contract'
import type { Accepted } from '@porthole/protocol/Handshake'
import * as Secure from '@porthole/protocol/Secure'
import { createBrowserContext } from './context.js'
import { connectDevice } from './handlers/connectDevice.js'
import { connectEmail } from './handlers/connectEmail.js'
import { connectFarcaster } from './handlers/connectFarcaster.js'
import { connectOtp } from './handlers/connectOtp.js'
import { connectSocial } from './handlers/connectSocial.js'
import { getChainId } from './handlers/getChainId.js'
import { getSmartAccountEnabledNetworks } from './handlers/getSmartAccountEnabledNetworks.js'
import { getSocialRedirectUri } from './handlers/getSocialRedirectUri.js'
import { getUser } from './handlers/getUser.js'
import type { Handler } from './handlers/handler.js'
import { initSmartAccount } from './handlers/initSmartAccount.js'
import { isConnected } from './handlers/isConnected.js'
import { ping } from './handlers/ping.js'
import { reload } from './handlers/reload.js'
import { rpcRequest } from './handlers/rpcRequest.js'
import { setPreferredAccount } from './handlers/setPreferredAccount.js'
import { signOut } from './handlers/signOut.js'
import { switchNetwork } from './handlers/switchNetwork.js'
import { syncDappData } from './handlers/syncDappData.js'
import { syncTheme } from './handlers/syncTheme.js'
import { updateEmail } from './handlers/updateEmail.js'
import { updateEmailPrimaryOtp } from './handlers/updateEmailPrimaryOtp.js'
import { updateEmailSecondaryOtp } from './handlers/updateEmailSecondaryOtp.js'
import type { Context } from './wallet/session.js'

export type SecureChannel = Channel.Channel<Secure.SecureSpec, Secure.WidgetSpec>

export type StartFrameOptions = {
  /** The API, storage and browser facilities the handlers use; defaults to the browser's. */
  context?: Context | undefined
}

/** One handler per request of the `secure` contract: a request without one does not compile. */
const handlers: { [method in Secure.SecureMethod]: Handler<method> } = {
  syncTheme,
  ping,
  connectEmail,
  connectDevice,
  connectOtp,
  getSocialRedirectUri,
  connectSocial,
  connectFarcaster,
  getUser,
  signOut,
  isConnected,
  getChainId,
  switchNetwork,
  rpcRequest,
  updateEmail,
  updateEmailPrimaryOtp,
  updateEmailSecondaryOtp,
  syncDappData,
  initSmartAccount,
  setPreferredAccount,
  getSmartAccountEnabledNetworks,
  reload,
}

/** Opens the channel on the accepted port, registers every handler, then emits `ready`. */
export function startFrame(accepted: Accepted, options: StartFrameOptions = {}): SecureChannel {
  const context = options.context ?? createBrowserContext()
  const channel = Channel.create<Secure.SecureSpec, Secure.WidgetSpec>({
    port: accepted.port,
    origin: accepted.origin,
    parsers: Contract.parsers(Secure.secure, Secure.widget),
  })
  const emit = channel.emit.bind(channel)
  const register = <method extends Secure.SecureMethod>(method: method) =>
    channel.handle(method, (params, call) => handlers[method](params, context, { ...call, emit }))
  for (const method of Object.keys(handlers) as Secure.SecureMethod[]) register(method)
  // Handlers first: the widget may send its first request as soon as it sees READY.
  channel.emit('ready', undefined)
  return channel
}
