/**
 * The provider services' wire shapes, shared by the API that serves them and
 * the widget and secure frame that read them: one schema each, so the two
 * sides cannot drift apart.
 */
import { caip2Pattern } from './Caip.js'
import { projectIdPattern } from './Constants.js'
import { z } from './zod.js'

// Defined with the constants, so zod-free code (the widget's prefetch entry) can test one.
export { projectIdPattern }
export const ProjectId = z
  .string()
  .check(
    z.regex(
      projectIdPattern,
      'must be 1-64 letters, digits, "-" or "_", starting with a letter or digit',
    ),
  )
export type ProjectId = z.infer<typeof ProjectId>

/** A wallet id or image id of the registry: 64 lowercase hex digits. */
export const WalletId = z
  .string()
  .check(z.regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits'))

/** Social logins (SPEC 5) plus Farcaster, which SPEC 9 lists among the default socials. */
export const socialProviders = [
  'google',
  'github',
  'apple',
  'facebook',
  'x',
  'discord',
  'farcaster',
] as const
export const SocialProvider = z.enum(socialProviders)
export type SocialProvider = z.infer<typeof SocialProvider>

/** A project's features, as `GET /appkit/v1/config` serves them. */
export const Features = z.strictObject({
  email: z.boolean(),
  socials: z.array(SocialProvider).check(z.maxLength(socialProviders.length)),
  onramp: z.boolean(),
  swaps: z.boolean(),
  history: z.boolean(),
  analytics: z.boolean(),
  /**
   * How often the widget checks its pending transactions for a receipt (the
   * seed's polling: off by default, 30 000 ms when on); absent or null: off.
   */
  pendingTransactionsPollMs: z.optional(
    z.nullable(z.number().check(z.int(), z.minimum(1_000), z.maximum(3_600_000))),
  ),
})
export type Features = z.infer<typeof Features>

/**
 * A network a project offers, as a CAIP-2 id (`namespace:reference`). Which
 * ones exist is the API's business (it serves only those of
 * `@porthole/chains`); the widget skips an id it does not know, so the wire
 * stays open to networks a newer API adds, and the widget's start-up bundle
 * carries no network table.
 */
export const NetworkId = z
  .string()
  .check(z.regex(caip2Pattern, { error: 'must be a CAIP-2 network id such as eip155:1' }))
export type NetworkId = z.infer<typeof NetworkId>

/** At most this many networks per project. */
export const maxNetworks = 64

/** The networks of a new project: Ethereum mainnet, the default network (SPEC section 9). */
export const defaultNetworks = ['eip155:1'] as const

/**
 * A project's configuration, as `GET /appkit/v1/config` serves it. The first
 * of `networks` is the project's default network.
 */
export const ProjectConfig = z.strictObject({
  features: Features,
  networks: z.array(NetworkId).check(z.minLength(1), z.maxLength(maxNetworks)),
  /**
   * Those of `networks` the API has no RPC upstream for (`RPC_UPSTREAMS`): the
   * widget cannot read balances there. Absent from an older API.
   */
  networksWithoutRpc: z.optional(z.array(NetworkId).check(z.maxLength(maxNetworks))),
  /**
   * Those of `networks` the API keeps a transaction history for
   * (`HISTORY_INDEXER`): Activity is offered there only. Absent from an older API.
   */
  networksWithHistory: z.optional(z.array(NetworkId).check(z.maxLength(maxNetworks))),
})
export type ProjectConfig = z.infer<typeof ProjectConfig>

const text = z.string().check(z.maxLength(2048))

/** A wallet entry as `GET /getWallets` serves it; absent values are `null`. */
export const WalletEntry = z.strictObject({
  id: WalletId,
  name: z.string().check(z.minLength(1), z.maxLength(200)),
  image_id: z.nullable(z.string().check(z.regex(/^[A-Za-z0-9._-]{1,128}$/))),
  rdns: z.nullable(text),
  chains: z.array(z.string().check(z.maxLength(64))).check(z.maxLength(200)),
  homepage: z.nullable(text),
  mobile_link: z.nullable(text),
  desktop_link: z.nullable(text),
  webapp_link: z.nullable(text),
  badge_type: z.nullable(z.string().check(z.maxLength(64))),
})
export type WalletEntry = z.infer<typeof WalletEntry>

/** At most this many entries in one page (`entries` is capped there). */
export const maxWalletEntries = 100

export const WalletsPage = z.strictObject({
  /** Matches before paging. */
  count: z.number().check(z.int(), z.minimum(0)),
  data: z.array(WalletEntry).check(z.maxLength(maxWalletEntries)),
})
export type WalletsPage = z.infer<typeof WalletsPage>

/** Bounds of a project's allowed origins. */
export const maxAllowedOrigins = 100
export const maxOriginLength = 300

export const OriginsResponse = z.strictObject({
  allowedOrigins: z
    .array(z.string().check(z.maxLength(maxOriginLength)))
    .check(z.maxLength(maxAllowedOrigins)),
})
export type OriginsResponse = z.infer<typeof OriginsResponse>

export const AnalyticsConfig = z.strictObject({ isAnalyticsEnabled: z.boolean() })

/** The longest code and message of an `ErrorBody`. */
export const errorBodyBounds = { code: 64, message: 2048 } as const

/** Every error the API answers with (its JSON-RPC proxy aside). */
export const ErrorBody = z.strictObject({
  error: z.strictObject({
    code: z.string().check(z.maxLength(errorBodyBounds.code)),
    message: z.string().check(z.maxLength(errorBodyBounds.message)),
  }),
})
export type ErrorBody = z.infer<typeof ErrorBody>
