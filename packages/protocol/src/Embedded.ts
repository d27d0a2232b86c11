/**
 * The embedded wallet's HTTP wire between the secure frame and the API
 * (login, device verification, sessions, key shares, email update, social
 * login). One schema per body, used by the API to parse what it receives and
 * by the frame to parse what it gets back (SECURITY.md 18). Every call also
 * carries `?projectId=` (the frame sends none of the API's optional common
 * parameters: `clientId`, `st`, `sv`); calls that need a session carry
 * `Authorization: Bearer <token>`.
 *
 * Keys (DESIGN 4): the frame splits the wallet's BIP-39 entropy 2-of-3. The
 * device share stays in the frame; the API keeps the auth share, released
 * only to a session, and the recovery share, encrypted under a key-encryption
 * key and released only to a session on a verified device.
 */
import { SocialProvider } from './Api.js'
import { z } from './zod.js'

/** A login email, compared lower-case; at most 254 characters (RFC 5321). */
export const Email = z.email().check(z.maxLength(254))
/** The API's one-time codes: 6 digits. */
export const Code = z
  .string()
  .check(z.regex(/^\d{6}$/, { error: 'must be the 6 digits of the code' }))
/**
 * The frame's device id: 128 random bits or more, base64url. It is a secret
 * of the frame's storage (the API keeps only its SHA-256).
 */
export const DeviceId = z.string().check(
  z.regex(/^[A-Za-z0-9_-]{22,64}$/, {
    error: 'must be 22-64 base64url characters',
  }),
)
/** A session token (256 random bits, base64url). */
export const Token = z.string().check(z.regex(/^[A-Za-z0-9_-]{43}$/))
/** One Shamir share, base64 (a share of 16-64 bytes of entropy plus its index byte). */
export const Share = z.string().check(
  z.regex(/^[A-Za-z0-9+/]{20,120}={0,2}$/, {
    error: 'must be a base64 share',
  }),
)
export const EvmAddress = z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/))
export const SolanaAddress = z.string().check(z.regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/))
export const Addresses = z.strictObject({ eip155: EvmAddress, solana: SolanaAddress })
export type Addresses = z.infer<typeof Addresses>

export const LoginAction = z.enum(['VERIFY_OTP', 'VERIFY_DEVICE'])

/**
 * A proof-of-work challenge (SECURITY.md 22): once a project's shared mail
 * budget is spent, a mail request is answered 428 `ProofOfWorkRequired` and
 * must be sent again with a nonce such that SHA-256 of the UTF-8 text
 * `challenge + nonce` starts with `difficulty` zero bits. Single use, short-lived,
 * bound to the project, the email and the request.
 */
export const ProofOfWorkChallenge = z.strictObject({
  challenge: z.string().check(z.regex(/^[A-Za-z0-9_-]{22,64}$/)),
  difficulty: z.number().check(z.int(), z.minimum(1), z.maximum(32)),
})
/** The solved challenge a mail request carries: `nonce` is a decimal number. */
export const ProofOfWork = z.strictObject({
  challenge: ProofOfWorkChallenge.shape.challenge,
  nonce: z.string().check(z.regex(/^\d{1,16}$/, { error: 'must be a decimal nonce' })),
})
export type ProofOfWork = z.infer<typeof ProofOfWork>
/** The 428 answer of a mail request that must carry a proof of work. */
export const ProofOfWorkRequired = z.strictObject({
  error: z.strictObject({
    code: z.literal('proof_of_work_required'),
    message: z.string().check(z.maxLength(2048)),
  }),
  proofOfWork: ProofOfWorkChallenge,
})

/**
 * `POST /auth/v1/login/email`: always VERIFY_OTP, so the answer tells nobody
 * whether the address has an account (SECURITY.md 26). The mail holds a code,
 * or, for an account on a device not verified for it, a device approval link
 * whose approval mails the code. VERIFY_DEVICE answers only `EmailStep`.
 */
export const EmailLoginRequest = z.strictObject({
  email: Email,
  deviceId: DeviceId,
  proofOfWork: z.optional(ProofOfWork),
})
export const EmailLoginResponse = z.strictObject({ action: LoginAction })

/** `POST /auth/v1/device/status`: whether the link mailed for this device has been followed. */
export const DeviceStatusRequest = z.strictObject({ email: Email, deviceId: DeviceId })
export const DeviceStatusResponse = z.strictObject({ verified: z.boolean() })

/** The user as the API knows them: `addresses` once a wallet exists. */
export const User = z.strictObject({
  id: z.string().check(z.minLength(1), z.maxLength(64)),
  email: z.optional(Email),
  userName: z.optional(z.string().check(z.maxLength(128))),
  addresses: z.optional(Addresses),
})
export type User = z.infer<typeof User>

/** What a completed login gives: a session for this device, and the user. */
export const LoginResult = z.strictObject({ token: Token, user: User })
export type LoginResult = z.infer<typeof LoginResult>

/**
 * A social or Farcaster login the account's email must still decide
 * (SECURITY.md 23): the device is one the account has not used, and the
 * account has an email (VERIFY_DEVICE: an approval link was mailed), or the
 * identity was found by its email alone and is linked only once that email
 * confirms it (a code was mailed: VERIFY_OTP, or first the approval link).
 * The login then goes on as the email login of `email`: device status, then
 * the code. No session, no key share comes with it.
 */
export const EmailStep = z.strictObject({ action: LoginAction, email: Email })
export type EmailStep = z.infer<typeof EmailStep>

/** What a finished social or Farcaster login answers: a session, or the email's step first. */
export const IdentityLoginResponse = z.union([LoginResult, EmailStep])
export type IdentityLoginResponse = z.infer<typeof IdentityLoginResponse>

/** `POST /auth/v1/login/email/verify`: the code; the device becomes verified for the user. */
export const EmailVerifyRequest = z.strictObject({ email: Email, otp: Code, deviceId: DeviceId })

/** `GET /auth/v1/session`: the session's user (401 when it has ended). `DELETE` signs out. */
export const SessionResponse = z.strictObject({ user: User })

/**
 * `GET /wallet/v1/shares[?recovery=true]`: the auth share, plus the recovery
 * share when asked for (404 `no_wallet` while the user has none).
 */
export const SharesResponse = z.strictObject({
  authShare: Share,
  recoveryShare: z.optional(Share),
  addresses: Addresses,
})
export type SharesResponse = z.infer<typeof SharesResponse>

/**
 * `PUT /wallet/v1/shares`: stores a new wallet's two server shares once
 * (201); a user who already has one gets 409 `wallet_exists`.
 */
export const PutSharesRequest = z.strictObject({
  authShare: Share,
  recoveryShare: Share,
  addresses: Addresses,
})

/** `POST /auth/v1/email/update`: the first code goes to the current address (or, with none, to the new one). */
export const UpdateEmailRequest = z.strictObject({
  email: Email,
  proofOfWork: z.optional(ProofOfWork),
})
export const UpdateEmailResponse = z.strictObject({
  action: z.enum(['VERIFY_PRIMARY_OTP', 'VERIFY_SECONDARY_OTP']),
})
/** `POST /auth/v1/email/update/primary` → VERIFY_SECONDARY_OTP; `…/secondary` → the new address. */
export const UpdateEmailOtpRequest = z.strictObject({ otp: Code })
export const UpdateEmailSecondaryResponse = z.strictObject({ newEmail: Email })

/** The OAuth state the frame makes for a social login: 128+ random bits, base64url. */
export const State = z.string().check(z.regex(/^[A-Za-z0-9_-]{22,64}$/))

/** `POST /auth/v1/social/start`: the provider's authorization URL for a popup. */
export const SocialStartRequest = z.strictObject({
  provider: z.enum(
    SocialProvider.options.filter(
      (provider): provider is Exclude<SocialProvider, 'farcaster'> => provider !== 'farcaster',
    ),
  ),
  deviceId: DeviceId,
  state: State,
})
export const SocialStartResponse = z.strictObject({
  uri: z.url({ protocol: /^https?$/ }).check(z.maxLength(4096)),
})

/**
 * The one-time secret that binds a finished social login to the window that
 * opened its popup (SECURITY.md 15): 256 random bits, base64url, made by the
 * API at the callback and delivered only in the `done` URL, which the done
 * page posts to its opener (`SocialDoneMessage`).
 */
export const Claim = z.string().check(
  z.regex(/^[A-Za-z0-9_-]{43}$/, {
    error: 'must be the 43 base64url characters of the claim',
  }),
)

/** The API path the callback redirects the popup to: `?state=<state>&claim=<claim>`. */
export const socialDonePath = '/auth/v1/social/done'

/**
 * What the done page (`GET /auth/v1/social/done`) posts to `window.opener`,
 * with the widget's origin as target origin: `uri` is the done page's own
 * URL (`<API>/auth/v1/social/done?state=…&claim=…`), which the widget passes
 * to the frame's `connectSocial({ uri })`.
 */
export const socialDoneMessageType = 'porthole:social-done'
export const SocialDoneMessage = z.strictObject({
  type: z.literal(socialDoneMessageType),
  uri: z.url({ protocol: /^https?$/ }).check(z.maxLength(4096)),
})
export type SocialDoneMessage = z.infer<typeof SocialDoneMessage>

/**
 * `POST /auth/v1/social/result`: 202 `{ status: 'pending' }` until the
 * provider has redirected back (any well-formed claim is accepted then), then
 * the login result (`IdentityLoginResponse`), once, only for the claim made
 * at the callback: any other answers 403 `claim_mismatch` and ends the login.
 */
export const SocialResultRequest = z.strictObject({
  state: State,
  deviceId: DeviceId,
  claim: Claim,
})
export const SocialPending = z.strictObject({ status: z.literal('pending') })

/**
 * `POST /auth/v1/farcaster/start` (Sign In With Farcaster): the API opens a
 * channel on the Farcaster auth relay bound to this state and device, and
 * answers the relay's https URL, which the person opens or scans with their
 * Farcaster app.
 */
export const FarcasterStartRequest = z.strictObject({ deviceId: DeviceId, state: State })
export const FarcasterStartResponse = z.strictObject({
  uri: z.url({ protocol: /^https$/ }).check(z.maxLength(4096)),
})

/**
 * `POST /auth/v1/farcaster/result`: each call asks the relay once; 202
 * `SocialPending` until the Farcaster app has signed, then the login result
 * (`IdentityLoginResponse`) once (the signature checked against the fid's
 * custody address), then 410.
 */
export const FarcasterResultRequest = z.strictObject({ state: State, deviceId: DeviceId })
