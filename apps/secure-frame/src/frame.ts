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
import { initSmartAccount } from './handlers/initSmartAccount.js'
import { isConnected } from './handlers/isConnected.js'
import { ping } from './handlers/ping.js'
import { reload } from './handlers/reload.js'
import { rpcRequest } from './handlers/rpcRequest.js'
import { setPreferredAccount } from './handlers/setPreferredAccount.js'
import { signOut } from './handlers/signOut.js'
import { switchNetwork } from './handlers/switchNetwork.js'
import { syncDappData } from './handlers/syncDappData.js'
import { syncTheme, type ThemeRoot } from './handlers/syncTheme.js'
import { updateEmail } from './handlers/updateEmail.js'
import { updateEmailPrimaryOtp } from './handlers/updateEmailPrimaryOtp.js'
import { updateEmailSecondaryOtp } from './handlers/updateEmailSecondaryOtp.js'
import type { Context } from './wallet/session.js'

export type SecureChannel = Channel.Channel<Secure.SecureSpec, Secure.WidgetSpec>

export type StartFrameOptions = {
  /** Where `syncTheme` writes; defaults to `document.documentElement`. */
  root?: ThemeRoot | undefined
  /** The API, storage and browser facilities the handlers use; defaults to the browser's. */
  context?: Context | undefined
}

/** Opens the channel on the accepted port, registers every handler, then emits `ready`. */
export function startFrame(accepted: Accepted, options: StartFrameOptions = {}): SecureChannel {
  const context = options.context ?? createBrowserContext()
  const channel = Channel.create<Secure.SecureSpec, Secure.WidgetSpec>({
    port: accepted.port,
    origin: accepted.origin,
    parsers: Contract.parsers(Secure.secure, Secure.widget),
  })
  channel.handle('syncTheme', (params) => syncTheme(params, options.root))
  channel.handle('ping', () => ping())
  channel.handle('connectEmail', (params) => connectEmail(params, context))
  channel.handle('connectDevice', (_, call) => connectDevice(context, call))
  channel.handle('connectOtp', (params) => connectOtp(params, context))
  channel.handle('getSocialRedirectUri', (params) => getSocialRedirectUri(params, context))
  channel.handle('connectSocial', (params, call) => connectSocial(params, context, call))
  channel.handle('connectFarcaster', () => connectFarcaster(context))
  channel.handle('getUser', (params) => getUser(params, context))
  channel.handle('signOut', () => signOut(context))
  channel.handle('isConnected', () => isConnected(context))
  channel.handle('getChainId', () => getChainId(context))
  channel.handle('switchNetwork', (params) => switchNetwork(params, context))
  channel.handle('rpcRequest', (params, call) =>
    rpcRequest(params, context, call, () => {
      const { approvalId } = params
      if (approvalId !== undefined) channel.emit('approved', { approvalId })
    }),
  )
  channel.handle('updateEmail', (params) => updateEmail(params, context))
  channel.handle('updateEmailPrimaryOtp', (params) => updateEmailPrimaryOtp(params, context))
  channel.handle('updateEmailSecondaryOtp', (params) => updateEmailSecondaryOtp(params, context))
  channel.handle('syncDappData', (params) => syncDappData(params, context))
  channel.handle('initSmartAccount', () => initSmartAccount())
  channel.handle('setPreferredAccount', () => setPreferredAccount(context))
  channel.handle('getSmartAccountEnabledNetworks', () => getSmartAccountEnabledNetworks())
  channel.handle('reload', () => reload(context))
  // Handlers first: the widget may send its first request as soon as it sees READY.
  channel.emit('ready', undefined)
  return channel
}
