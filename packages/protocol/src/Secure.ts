/**
 * The widget ↔ secure-frame contract (SPEC section 7, "Secure iframe
 * messages"). The secure frame serves `secure`: every app→frame message of the
 * seed, each answered once, by request id, with its result (SUCCESS) or an
 * error (ERROR); the widget serves `widget`: no requests; it receives the frame's
 * `ready` (READY) and `approved` events. Both sides parse with these schemas
 * (SECURITY.md 18).
 *
 * The frame serves every message; smart accounts do not exist yet, so
 * `initSmartAccount` answers 4200 and `getSmartAccountEnabledNetworks` lists
 * none.
 */

import { SocialProvider } from './Api.js'
import { caip2Pattern } from './Caip.js'
import { loginRequestTimeout, signOutTimeout } from './Constants.js'
import type { Infer } from './Contract.js'
import * as Origin from './Origin.js'
import { z } from './zod.js'

export const channel = 'porthole:widget-secure'

const none = z.undefined()

/** SPEC 5: a valid email address; at most 254 characters (RFC 5321). */
export const Email = z.email().check(z.maxLength(254))
/** SPEC 5: the OTP is a string; the API's are 6 digits. */
export const Otp = z.string().check(z.minLength(1), z.maxLength(16))
/** SPEC 5: the connect actions an email login answers with. */
export const ConnectAction = z.enum(['VERIFY_DEVICE', 'VERIFY_OTP', 'CONNECT'])
/** SPEC 5: the actions of an email update. */
export const UpdateEmailAction = z.enum(['VERIFY_PRIMARY_OTP', 'VERIFY_SECONDARY_OTP'])
/** SPEC 3: the account types. */
export const AccountType = z.enum(['eoa', 'smartAccount'])
const ChainId = z.string().check(z.regex(caip2Pattern))
const Address = z.string().check(z.minLength(1), z.maxLength(128))
const Url = z.url({ protocol: /^https?$/ }).check(z.maxLength(2048))

/** SPEC 3: the embedded wallet's user. */
export const User = z.strictObject({
  email: z.optional(Email),
  address: Address,
  chainId: ChainId,
  accounts: z.optional(
    z.array(z.strictObject({ address: Address, type: AccountType })).check(z.maxLength(16)),
  ),
  userName: z.optional(z.string().check(z.maxLength(128))),
  preferredAccountType: z.optional(AccountType),
  smartAccountDeployed: z.optional(z.boolean()),
})
export type User = z.infer<typeof User>

/**
 * The host's origin as the widget's handshake got it from the browser
 * (`event.origin`). The frame shows it on an approval only where the
 * browser gives none itself (`location.ancestorOrigins`, absent in Firefox).
 */
const HostOrigin = z.string().check(
  z.maxLength(2048),
  z.refine((value) => Origin.parse(value) !== undefined, {
    error: 'must be an http(s) origin',
  }),
)

/** An RPC request for the embedded wallet (its method is checked against the safe and needs-approval lists). */
export const RpcRequest = z.strictObject({
  method: z.string().check(z.minLength(1), z.maxLength(128)),
  params: z.optional(z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())])),
  chainId: z.optional(ChainId),
  /** The host's origin, for the approval (`HostOrigin`). */
  origin: z.optional(HostOrigin),
  /**
   * The widget's name for a request that needs approval (`crypto.randomUUID()`):
   * the frame's `approved` event carries it back, so the widget knows exactly
   * which request the visitor approved, whatever order the frame shows them in.
   */
  approvalId: z.optional(z.uuid()),
})
export type RpcRequest = z.infer<typeof RpcRequest>

/** `approved`'s payload: the `approvalId` of the request the visitor approved. */
export const Approved = z.strictObject({ approvalId: z.uuid() })

/** The site's metadata and the widget's version, which the frame shows and sends to the API. */
export const DappData = z.strictObject({
  projectId: z.string().check(z.minLength(1), z.maxLength(64)),
  sdkVersion: z.string().check(z.minLength(1), z.maxLength(32)),
  metadata: z.optional(
    z.strictObject({
      name: z.string().check(z.maxLength(128)),
      description: z.string().check(z.maxLength(512)),
      url: Url,
      icons: z.array(Url).check(z.maxLength(4)),
    }),
  ),
})
export type DappData = z.infer<typeof DappData>

export const secure = {
  requests: {
    syncTheme: { params: z.strictObject({ theme: z.enum(['light', 'dark']) }), result: none },
    ping: { params: none, result: z.strictObject({ version: z.string().check(z.maxLength(32)) }) },
    connectEmail: {
      params: z.strictObject({ email: Email }),
      result: z.strictObject({ action: ConnectAction }),
    },
    connectDevice: { params: none, result: none },
    connectOtp: { params: z.strictObject({ otp: Otp }), result: none },
    connectSocial: {
      params: z.strictObject({ uri: Url }),
      /**
       * The user, signed in; or, when the account's email must decide first
       * (SECURITY.md 23), what was mailed to it: the login goes on as the
       * email login of `email` (`connectDevice`, then `connectOtp`).
       */
      result: z.union([
        z.strictObject({ user: User }),
        z.strictObject({ action: z.enum(['VERIFY_DEVICE', 'VERIFY_OTP']), email: Email }),
      ]),
    },
    getSocialRedirectUri: {
      params: z.strictObject({ provider: SocialProvider }),
      result: z.strictObject({ uri: Url }),
    },
    connectFarcaster: { params: none, result: z.strictObject({ url: Url }) },
    getUser: { params: z.strictObject({ chainId: z.optional(ChainId) }), result: User },
    signOut: { params: none, result: none },
    isConnected: { params: none, result: z.strictObject({ isConnected: z.boolean() }) },
    getChainId: { params: none, result: z.strictObject({ chainId: ChainId }) },
    rpcRequest: { params: RpcRequest, result: z.unknown() },
    /**
     * Starts the change of the account's email, once the visitor approves it
     * in the frame's approval window (so the widget shows ApproveTransaction
     * meanwhile); `origin` as for `rpcRequest`.
     */
    updateEmail: {
      params: z.strictObject({ email: Email, origin: z.optional(HostOrigin) }),
      result: z.strictObject({ action: UpdateEmailAction }),
    },
    updateEmailPrimaryOtp: { params: z.strictObject({ otp: Otp }), result: none },
    updateEmailSecondaryOtp: {
      params: z.strictObject({ otp: Otp }),
      result: z.strictObject({ newEmail: Email }),
    },
    syncDappData: { params: DappData, result: none },
    initSmartAccount: {
      params: none,
      result: z.strictObject({ address: Address, isDeployed: z.boolean() }),
    },
    setPreferredAccount: {
      params: z.strictObject({ type: AccountType }),
      result: z.strictObject({ type: AccountType, address: Address }),
    },
    getSmartAccountEnabledNetworks: {
      params: none,
      result: z.strictObject({
        smartAccountEnabledNetworks: z.array(ChainId).check(z.maxLength(64)),
      }),
    },
    switchNetwork: {
      params: z.strictObject({ chainId: ChainId }),
      result: z.strictObject({ chainId: ChainId }),
    },
    reload: { params: none, result: none },
  },
  events: {},
} as const

export const widget = {
  requests: {},
  /**
   * `approved`: the visitor approved the request named by `approvalId`; it is
   * being signed and sent, and its real result follows.
   */
  events: { ready: none, approved: Approved },
} as const

export type SecureSpec = Infer<typeof secure>
export type WidgetSpec = Infer<typeof widget>
export type SecureMethod = keyof SecureSpec['requests']

/**
 * How long the widget waits for each reply (SPEC 9): 120 000 ms for the login
 * steps (the `iframe_request_timeout` alert after), at most 3000 ms for sign
 * out; the channel's default for the others.
 */
export const requestTimeouts: Partial<Record<SecureMethod, number>> = {
  connectEmail: loginRequestTimeout,
  connectDevice: loginRequestTimeout,
  connectOtp: loginRequestTimeout,
  connectSocial: loginRequestTimeout,
  getSocialRedirectUri: loginRequestTimeout,
  updateEmail: loginRequestTimeout,
  updateEmailPrimaryOtp: loginRequestTimeout,
  updateEmailSecondaryOtp: loginRequestTimeout,
  signOut: signOutTimeout,
}
