import { createHash, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ProjectId, SocialProvider } from '@porthole/protocol/Api'
import { isHttpsOrLoopback, isHttpsOrPrivate, parseHost } from '@porthole/protocol/HostNames'
import { fitsChain, TokenList } from '@porthole/protocol/Tokens'
import { z } from 'zod'
import { noTrustedProxies, parseTrustedProxies, type TrustedProxies } from './clientIp.js'
import { ConfigError } from './errors.js'
import { parseExactOrigin } from './origins.js'
import { Caip2 } from './schemas.js'

/**
 * The API's folder (apps/api): the nearest one above this module with a
 * package.json, whether this runs from src/http/ (tsx) or from the bundle in
 * dist/ (`node apps/api/dist/server.js`).
 */
export const apiRoot = (() => {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir)
      throw new Error('The API runs outside its package: no package.json above it.')
  }
})()

/** The repository root, two folders above the API's, with a trailing slash. */
export const repoRoot = `${join(apiRoot, '..', '..')}${sep}`

/** Whether `path` is `dir` or inside it. */
function isInside(dir: string, path: string): boolean {
  const from = relative(resolve(dir), resolve(path))
  return (
    from === '' || (!from.startsWith('..') && !from.startsWith(sep) && !/^[A-Za-z]:/.test(from))
  )
}

/** Where PGlite keeps its files unless `PGLITE_DIR` says otherwise. */
export const defaultPgliteDir = join(repoRoot, '.data', 'pglite')

/** `PGLITE_DIR=memory://` keeps the database in memory (tests). */
export const memoryDir = 'memory://'

/** The tokens of one network, as `GET /tokens` serves them: at most 100. */
const Tokens = TokenList.shape.tokens

/**
 * CAIP-2 chain id → the tokens `GET /tokens` lists for it: ERC-20 addresses on
 * `eip155:*`, SPL mints on `solana:*` (a chain of another namespace lists none).
 */
const TokenLists = z
  .record(Caip2, Tokens, { error: 'must be a JSON object mapping CAIP-2 chain ids to token lists' })
  .superRefine((lists, context) => {
    for (const [chainId, tokens] of Object.entries(lists)) {
      for (const [index, token] of tokens.entries()) {
        if (fitsChain(chainId, token)) continue
        context.addIssue({
          code: 'custom',
          path: [chainId, index, 'address'],
          message:
            'must be an ERC-20 address (0x and 40 hex characters) on an eip155 chain, an SPL mint (32 to 44 base58 characters) on a solana chain',
        })
      }
    }
  })
export type TokenLists = z.infer<typeof TokenLists>

const usdc = { name: 'USD Coin', symbol: 'USDC', decimals: 6 } as const

/** The stablecoins of Ethereum, Base and Sepolia (Circle, Tether and Maker deployments). */
export const defaultTokenLists: TokenLists = {
  'eip155:1': [
    { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', ...usdc },
    {
      address: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      name: 'Tether USD',
      symbol: 'USDT',
      decimals: 6,
    },
    {
      address: '0x6B175474E89094C44Da98b954EedeAC495271d0F',
      name: 'Dai Stablecoin',
      symbol: 'DAI',
      decimals: 18,
    },
  ],
  'eip155:8453': [{ address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', ...usdc }],
  'eip155:11155111': [{ address: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238', ...usdc }],
}

/**
 * `HISTORY_INDEXER`: chain id → how its history is kept. An eip155 chain is
 * indexed from a block number or `latest` (the head when the indexer first
 * runs); a solana chain is `address`: each page asked of its node when
 * Activity asks (`getSignaturesForAddress`), nothing indexed ahead.
 */
const HistoryIndexer = z
  .record(
    Caip2.refine(
      (id) => id.startsWith('eip155:') || id.startsWith('solana:'),
      'must be an eip155 or solana chain id',
    ),
    z.union([
      z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
      z.literal('latest'),
      z.literal('address'),
    ]),
    {
      error:
        'must be a JSON object mapping eip155 chain ids to a block number or "latest", solana chain ids to "address"',
    },
  )
  .superRefine((chains, context) => {
    for (const [chainId, mode] of Object.entries(chains))
      if (chainId.startsWith('solana:') && mode !== 'address')
        context.addIssue({
          code: 'custom',
          path: [chainId],
          message: 'a solana chain is "address" (read from its node per page)',
        })
  })

/** A price in US dollars: positive and finite (a price of nothing is no price). */
const UsdPrice = z.number().positive().max(1e15)

/**
 * `PRICES`: CAIP-2 chain id → the US dollar prices of its native coin and of
 * its tokens (addresses as in `TOKENS`), a static table (development, or a
 * pinned stablecoin); a chain or token not named has no price from it.
 */
const PriceTable = z
  .record(
    Caip2,
    z.strictObject({
      native: UsdPrice.optional(),
      tokens: z
        .record(z.string().max(64), UsdPrice)
        .refine((tokens) => Object.keys(tokens).length <= 100, 'must name at most 100 tokens')
        .default({}),
    }),
    { error: 'must be a JSON object mapping CAIP-2 chain ids to { native?, tokens? }' },
  )
  .superRefine((table, context) => {
    for (const [chainId, { tokens }] of Object.entries(table))
      for (const address of Object.keys(tokens))
        if (!fitsChain(chainId, { address }))
          context.addIssue({
            code: 'custom',
            path: [chainId, 'tokens', address],
            message: 'must be an ERC-20 address on an eip155 chain, an SPL mint on a solana chain',
          })
  })
export type PriceTable = z.infer<typeof PriceTable>

/** A CoinGecko id (an asset platform's or a coin's): lower-case letters, digits and dashes. */
const CoinGeckoId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,99}$/, 'must be a CoinGecko id')

/**
 * `PRICE_API_NETWORKS`: CAIP-2 chain id → its CoinGecko asset platform (the
 * `{platform}` of `/simple/token_price/{platform}`) and its native coin's id
 * (of `/simple/price?ids=`); a chain not named is not asked about.
 */
const PriceNetworks = z.record(
  Caip2,
  z.strictObject({ platform: CoinGeckoId.optional(), native: CoinGeckoId.optional() }),
  { error: 'must be a JSON object mapping CAIP-2 chain ids to { platform?, native? }' },
)
export type PriceNetworks = z.infer<typeof PriceNetworks>

/** Mainnets with real prices (a testnet's coins have none). */
export const defaultPriceNetworks: PriceNetworks = {
  'eip155:1': { platform: 'ethereum', native: 'ethereum' },
  'eip155:10': { platform: 'optimistic-ethereum', native: 'ethereum' },
  'eip155:8453': { platform: 'base', native: 'ethereum' },
  'eip155:42161': { platform: 'arbitrum-one', native: 'ethereum' },
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': { platform: 'solana', native: 'solana' },
}

/**
 * The local stack's origins (`@porthole/dev-stack/stack`, which shippable
 * code may not import): the documented defaults of `WIDGET_ORIGIN`,
 * `SECURE_FRAME_ORIGIN` and `PUBLIC_API_URL`, so the API alone runs against
 * the dev stack. `config.test.ts` fails if the two disagree.
 */
const devWidgetOrigin = 'http://widget.localhost:5171'
const devSecureFrameOrigin = 'http://secure.localhost:5172'

export const defaults = {
  port: 5173,
  host: '127.0.0.1',
  corsOrigins: [devWidgetOrigin, devSecureFrameOrigin],
  rpcUpstreams: { 'eip155:31337': 'http://127.0.0.1:8545' },
  rpcMaxAnswerBytes: 2 * 1024 * 1024,
  portholeEnv: 'development',
  devProjectId: 'porthole-dev',
  seedDevProject: true,
  mailFrom: 'Porthole <no-reply@porthole.localhost>',
  devOutbox: false,
  ipLimitScale: 1,
  publicApiUrl: 'http://api.localhost:5173',
  secureFrameOrigin: devSecureFrameOrigin,
  widgetOrigin: devWidgetOrigin,
  farcasterRelayUrl: 'https://relay.farcaster.xyz',
  farcasterChain: 'eip155:10',
  farcasterIdRegistry: '0x00000000Fc6c5F01Fc30151999387Bb99A9f489b',
} as const

/**
 * The key-encryption key of recovery shares when `SHARE_ENCRYPTION_KEY` is
 * unset in development: fixed and public, so it protects nothing. Its id,
 * `development`, marks every share it encrypted. Refused under
 * `PORTHOLE_ENV=production`.
 */
export const developmentShareKey = {
  id: 'development',
  key: createHash('sha256')
    .update('porthole development share key: public, never for real funds')
    .digest('base64'),
} as const

/** The id stored beside each share a key encrypted: a fingerprint of the key, never the key. */
export function shareKeyId(key: Buffer): string {
  return `k1-${createHash('sha256').update('porthole share key id').update(key).digest('hex').slice(0, 16)}`
}

const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })

/** Hosts an OAuth provider may be reached on over plain http (a local stand-in). */
export function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127(\.\d{1,3}){3}$/.test(hostname)
  )
}

/** An https URL; plain http only on a loopback host. */
const ProviderUrl = z
  .url({ protocol: /^https?$/, error: 'must be an https URL' })
  .max(2048)
  .pipe(
    z.string().refine(
      (url) => {
        const parsed = new URL(url)
        return parsed.protocol === 'https:' || isLoopbackHost(parsed.hostname)
      },
      { error: 'must be an https URL (http only on a loopback host such as 127.0.0.1)' },
    ),
  )

/** The social providers the API can sign in with (every social but Farcaster, which is no OAuth). */
export const OAuthProvider = z.enum(SocialProvider.options).exclude(['farcaster'])
export type OAuthProvider = z.infer<typeof OAuthProvider>

/**
 * One provider's OAuth client. Endpoints default to the provider's public
 * ones (static, nothing is fetched at start-up). With `issuer` and no
 * endpoints the provider's OIDC discovery document is fetched on first use.
 */
export const SocialProviderSettings = z
  .strictObject({
    clientId: z.string().min(1).max(512),
    /** Absent: a public client (PKCE only). */
    clientSecret: z.string().min(1).max(8192).optional(),
    issuer: ProviderUrl.optional(),
    authorizationEndpoint: ProviderUrl.optional(),
    tokenEndpoint: ProviderUrl.optional(),
    userinfoEndpoint: ProviderUrl.optional(),
    /** Space-separated scopes; defaults to the provider's. */
    scope: z
      .string()
      .regex(/^[\x21-\x7e]+( [\x21-\x7e]+)*$/, 'must be scopes separated by single spaces')
      .max(512)
      .optional(),
  })
  .refine(
    (settings) =>
      settings.issuer === undefined ||
      (settings.authorizationEndpoint === undefined &&
        settings.tokenEndpoint === undefined &&
        settings.userinfoEndpoint === undefined) ||
      (settings.authorizationEndpoint !== undefined && settings.tokenEndpoint !== undefined),
    {
      error:
        'with issuer, give no endpoints (OIDC discovery) or at least authorizationEndpoint and tokenEndpoint',
    },
  )
export type SocialProviderSettings = z.infer<typeof SocialProviderSettings>

/** An EVM chain (CAIP-2 `eip155:<id>`). */
const EvmChain = Caip2.regex(/^eip155:\d{1,20}$/, 'must be an EVM chain id such as eip155:10')
/** A 0x-prefixed 20-byte address. */
const EvmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address (20 bytes)')

const SocialProviders = z.partialRecord(OAuthProvider, SocialProviderSettings)
export type SocialProviders = z.infer<typeof SocialProviders>

/** The base64 of 32 bytes: an AES-256 key. */
const Base64Key = z
  .string()
  .regex(/^[A-Za-z0-9+/]{43}=$/, 'must be the base64 of 32 random bytes (openssl rand -base64 32)')

/** A key-encryption key of recovery shares and its id. */
export const ShareKey = z.strictObject({ id: z.string().min(1).max(64), key: Base64Key })
export type ShareKey = z.infer<typeof ShareKey>
const SmtpUrl = z.url({
  protocol: /^smtps?$/,
  error: 'must be an smtp:// or smtps:// URL, e.g. smtp://127.0.0.1:2525',
})
/** A From header: one line (no CR or LF), e.g. `Porthole <no-reply@example.com>`. */
const MailFrom = z
  .string()
  .min(3, 'must be a From address, e.g. Porthole <no-reply@example.com>')
  .max(320, 'must be at most 320 characters')
  .regex(
    /^[^\r\n]*@[^\r\n]*$/,
    'must be one line holding an address, e.g. Porthole <no-reply@example.com>',
  )

/** `PORTHOLE_ENV`: `production` turns on the refusals of `productionRefusals`. */
export const PortholeEnv = z.enum(['development', 'production'])
export type PortholeEnv = z.infer<typeof PortholeEnv>

/** A `TrustedProxies` (from `TRUSTED_PROXIES`), checked by shape only. */
const TrustedProxiesSchema = z.custom<TrustedProxies>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as TrustedProxies).entries) &&
    typeof (value as TrustedProxies).has === 'function',
  'must be a TrustedProxies (parseTrustedProxies)',
)

export const ConfigSchema = z.strictObject({
  /**
   * `production` makes the API refuse to start with any development setting
   * (`productionRefusals`); `development` (the default) allows them, with
   * warnings. The one switch for it: nothing else infers production.
   */
  portholeEnv: PortholeEnv,
  /** TCP port the server listens on. */
  port: z.number().int().min(0).max(65_535),
  /** Interface the server binds to. */
  host: z.string().min(1),
  /** PostgreSQL connection string; when absent the API runs on PGlite. */
  databaseUrl: z.string().optional(),
  /** PGlite data directory, or `memory://`. Unused with `databaseUrl`. */
  pgliteDir: z.string().min(1),
  /** Origins (widget, secure frame) allowed to call the API from a browser. */
  corsOrigins: z.array(z.string()),
  /** JSON-RPC upstream per CAIP-2 chain id, used by `POST /v1/`. */
  rpcUpstreams: z.record(Caip2, HttpUrl),
  /**
   * Largest upstream answer the RPC proxy passes on (`RPC_MAX_ANSWER_BYTES`,
   * 2 MiB by default, 64 KiB to 64 MiB); a larger one is refused once read
   * that far (SECURITY.md 24).
   */
  rpcMaxAnswerBytes: z
    .number()
    .int()
    .min(64 * 1024)
    .max(64 * 1024 * 1024),
  /** The networks the history indexer follows, each from its start block (`HISTORY_INDEXER`). */
  historyIndexer: HistoryIndexer,
  /** ERC-20 tokens per CAIP-2 chain id, served by `GET /tokens`; a chain not named has none. */
  tokenLists: TokenLists,
  /** Static US dollar prices per CAIP-2 chain (`PRICES`); they win over `priceApi`'s. */
  priceTable: PriceTable,
  /**
   * A price API of CoinGecko's shape (`PRICE_API_URL`, `PRICE_API_KEY`),
   * asked for what `priceTable` has no price for; absent, none is asked.
   */
  priceApi: z.strictObject({ url: ProviderUrl, key: z.string().optional() }).optional(),
  /** Each chain's CoinGecko platform and native coin ids (`PRICE_API_NETWORKS`). */
  priceNetworks: PriceNetworks,
  /** Id of the development project seeded at start-up. */
  devProjectId: ProjectId,
  /**
   * Whether start-up creates (or resets) the development project; the wallet
   * registry is seeded either way. `false` by default under
   * `PORTHOLE_ENV=production`, which refuses `true`.
   */
  seedDevProject: z.boolean(),
  /**
   * Where login codes are mailed (`smtp://…` or `smtps://…`, credentials in the
   * URL). Absent: mail is only recorded in the dev outbox (`dev_outbox` table).
   */
  smtpUrl: SmtpUrl.optional(),
  /** The From header of the mail the API sends. */
  mailFrom: MailFrom,
  /** Whether `GET /dev/outbox/<devOutboxToken>` serves the dev outbox (development only). */
  devOutbox: z.boolean(),
  /**
   * The unguessable last segment of the dev outbox's path (SECURITY.md 25):
   * base64url, at least 128 bits; random at each start unless
   * `DEV_OUTBOX_TOKEN` gives it.
   */
  devOutboxToken: z.string().regex(/^[A-Za-z0-9_-]{22,128}$/),
  /**
   * Multiplies every per-IP limit of the login endpoints (mails, code checks,
   * device polls, social starts; SECURITY.md 13) and the per-IP and
   * per-prefix limits of the RPC proxy, `/e` and sign-in nonces (SECURITY.md
   * 22). Behind a reverse proxy
   * every visitor shares its address: raise it there, and in test stacks
   * where every browser is 127.0.0.1.
   */
  ipLimitScale: z.number().int().min(1).max(100_000),
  /**
   * The reverse proxies in front of the API (`TRUSTED_PROXIES`): a request
   * from one of them is attributed to the client its `X-Forwarded-For`
   * names (the rightmost entry that is not a trusted proxy). None by
   * default: the header is ignored and the socket's peer is the client.
   */
  trustedProxies: TrustedProxiesSchema,
  /**
   * The API as browsers and mail readers reach it, without a trailing slash:
   * device-approval links and the OAuth redirect URI
   * (`<publicApiUrl>/auth/v1/social/callback`) are made from it.
   */
  publicApiUrl: HttpUrl,
  /**
   * More `host[:port]` names the API answers to (`API_HOSTS`), besides the
   * host of `publicApiUrl` and, in development, the loopback names on its
   * port; any other Host gets 421 (SECURITY.md 25).
   */
  apiHosts: z.array(z.string().min(1).max(300)),
  /** The secure frame's origin: the only browser origin that may start and collect a social login. */
  secureFrameOrigin: z.string().min(1),
  /**
   * The widget's origin: the only window the end of a social login (the
   * `/auth/v1/social/done` page in the popup) posts its result to.
   */
  widgetOrigin: z.string().min(1),
  /**
   * Key-encryption keys of recovery shares: the first encrypts, every one
   * decrypts (so a key can be rotated). Never logged.
   */
  shareEncryptionKeys: z.array(ShareKey).min(1),
  /** The OAuth clients of the social logins offered; a provider not named is not offered. */
  socialProviders: SocialProviders,
  /**
   * The Farcaster auth relay (AuthKit's `/v1/channel` API) Sign In With
   * Farcaster goes through, without a trailing slash; https, plain http only
   * on a loopback host (a local stand-in).
   */
  farcasterRelayUrl: ProviderUrl,
  /**
   * The chain of the Farcaster IdRegistry whose `custodyOf(fid)` must be the
   * signer of a Farcaster sign-in, read through its RPC upstream
   * (`rpcUpstreams`): Optimism, `eip155:10`, in production.
   */
  farcasterChain: EvmChain,
  /** The IdRegistry contract on `farcasterChain`. */
  farcasterIdRegistry: EvmAddress,
  /**
   * The variables among `devDefaultVariables` left unset (their value is the
   * dev stack's): `PORTHOLE_ENV=production` refuses each.
   */
  devDefaultsUsed: z.array(z.string()).default([]),
  /**
   * The operator's token for the admin endpoints and page (`/admin`); unset,
   * there is no admin at all (404), in any environment.
   */
  adminToken: z.string().optional(),
})

export type Config = z.infer<typeof ConfigSchema>

/** The random bytes of a generated `devOutboxToken` (192 bits). */
const devOutboxTokenBytes = 24

/** Unset and empty variables both mean "use the default". */
const unset = (value: unknown) => (value === '' ? undefined : value)

/**
 * A variable holding JSON, parsed, then checked by `schema`. Unparsable JSON
 * gets `malformed` as its message: the value itself is never echoed (it may
 * hold provider keys).
 */
function jsonVariable<schema extends z.ZodType>(schema: schema, malformed: string) {
  return z
    .string()
    .transform((value, context) => {
      try {
        return JSON.parse(value) as unknown
      } catch {
        context.addIssue({ code: 'custom', message: malformed })
        return z.NEVER
      }
    })
    .pipe(schema)
}

/** A URL (already checked as one) without query, fragment or credentials; `message` otherwise. */
const bareUrl = (message: string) =>
  z.string().refine((url) => {
    const parsed = new URL(url)
    return parsed.search === '' && parsed.hash === '' && parsed.username === ''
  }, message)

/** An exact origin (`scheme://host[:port]`), canonical; a trailing slash is dropped. */
const Origin = z.string().transform((value, context) => {
  try {
    return parseExactOrigin(value.trim())
  } catch (error) {
    context.addIssue({
      code: 'custom',
      message: `must be an origin (${(error as Error).message})`,
    })
    return z.NEVER
  }
})

/**
 * One environment variable of the API: how its text is read, and its row of
 * the README's configuration table (apps/api/README.md; config.test.ts fails
 * when the two disagree).
 */
type Variable = {
  /** Reads the text; its `.default()` or `.optional()` says what unset (or empty) means. */
  schema: z.ZodType
  /** The README's Meaning column: one line of markdown. */
  meaning: string
  /**
   * The README's Default column, where the default value itself does not
   * say it; otherwise the column is that value in backquotes, or `unset`.
   */
  shownDefault?: string
}

/** The API's environment variables, each spelled once, in the order their problems are reported. */
export const variables = {
  PORT: {
    schema: z
      .string()
      .regex(/^\d{1,5}$/, 'must be a port number (0-65535)')
      .transform(Number)
      .pipe(z.number().max(65_535, 'must be a port number (0-65535)'))
      .default(defaults.port),
    meaning: 'TCP port',
  },
  HOST: {
    schema: z.string().default(defaults.host),
    meaning: 'interface to bind',
  },
  DATABASE_URL: {
    schema: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// connection string')
      .optional(),
    meaning: '`postgres://…`: use PostgreSQL; unset: PGlite',
  },
  PGLITE_DIR: {
    schema: z.string().default(defaultPgliteDir),
    meaning: 'PGlite directory (created on first start), or `memory://`',
    shownDefault: '`<repo>/.data/pglite`',
  },
  CORS_ORIGINS: {
    schema: z
      .string()
      .transform((value, context) => {
        const origins: string[] = []
        for (const item of value.split(',')) {
          const origin = item.trim()
          if (origin === '') continue
          try {
            origins.push(parseExactOrigin(origin))
          } catch (error) {
            context.addIssue({
              code: 'custom',
              message: `must be a comma-separated list of origins (${(error as Error).message})`,
            })
            return z.NEVER
          }
        }
        return origins
      })
      .default([...defaults.corsOrigins]),
    meaning: 'browser origins allowed to read answers',
  },
  RPC_UPSTREAMS: {
    schema: jsonVariable(
      z.record(Caip2, HttpUrl, { error: 'must be a JSON object mapping CAIP-2 chain ids to URLs' }),
      'must be a JSON object mapping CAIP-2 chain ids to URLs, e.g. {"eip155:31337":"http://127.0.0.1:8545"}',
    ).default({ ...defaults.rpcUpstreams }),
    meaning: 'JSON: CAIP-2 chain id → JSON-RPC URL',
  },
  RPC_MAX_ANSWER_BYTES: {
    schema: z
      .string()
      .regex(/^\d{1,9}$/, { error: 'must be a whole number of bytes from 65536 to 67108864' })
      .transform(Number)
      .pipe(
        z
          .number()
          .min(64 * 1024, { error: 'must be a whole number of bytes from 65536 to 67108864' })
          .max(64 * 1024 * 1024, {
            error: 'must be a whole number of bytes from 65536 to 67108864',
          }),
      )
      .default(defaults.rpcMaxAnswerBytes),
    meaning:
      'largest upstream answer `/v1/` passes on, 65536 to 67108864; a larger one is cut while read and refused (see [RPC proxy](#rpc-proxy))',
    shownDefault: '`2097152` (2 MiB)',
  },
  HISTORY_INDEXER: {
    schema: jsonVariable(
      HistoryIndexer,
      'must be a JSON object mapping eip155 chain ids to the block to start from, e.g. {"eip155:1":"latest"}',
    ).optional(),
    meaning:
      'JSON: CAIP-2 chain id → how its history is kept: an eip155 chain indexed from a block (a number, or `"latest"`: the head at the first start) or `"address"` (token transfers asked of its node per page), a solana chain `"address"`; each chain named must be in `RPC_UPSTREAMS`; see [Account history](#account-history)',
    shownDefault:
      '`{"eip155:31337":0}` (and Solana Local `"address"`) when `RPC_UPSTREAMS` names the dev chain, otherwise none',
  },
  TOKENS: {
    schema: jsonVariable(
      TokenLists,
      'must be a JSON object mapping CAIP-2 chain ids to token lists, e.g. {"eip155:1":[{"address":"0x…","name":"USD Coin","symbol":"USDC","decimals":6}]}',
    )
      // Each chain it names replaces that chain's default list; the others keep theirs.
      .transform((lists) => ({ ...defaultTokenLists, ...lists }))
      .default(defaultTokenLists),
    meaning:
      'JSON: CAIP-2 chain id → `[{ address, name, symbol, decimals }]` (≤ 100; ERC-20 addresses on eip155, SPL mints on solana); each chain named replaces its default list',
    shownDefault: 'USDC, USDT, DAI on `eip155:1`; USDC on `eip155:8453`, `eip155:11155111`',
  },
  PRICES: {
    schema: jsonVariable(
      PriceTable,
      'must be a JSON object mapping CAIP-2 chain ids to prices, e.g. {"eip155:1":{"native":3000,"tokens":{"0x…":1}}}',
    ).default({}),
    meaning:
      "JSON: CAIP-2 chain id → `{ native?, tokens?: { address: price } }`, static US dollar prices (see [Prices](#prices)); they win over `PRICE_API_URL`'s",
    shownDefault: 'unset: none',
  },
  PRICE_API_URL: {
    schema: ProviderUrl.pipe(bareUrl('must be a URL without query, fragment or credentials'))
      .transform((url) => url.replace(/\/+$/, ''))
      .optional(),
    meaning:
      "a price API of CoinGecko's shape, e.g. `https://api.coingecko.com/api/v3`: https, plain http only on a loopback host; unset: only `PRICES` (see [Prices](#prices))",
  },
  PRICE_API_KEY: {
    schema: z
      .string()
      .regex(/^[\x21-\x7e]{1,256}$/, 'must be 1 to 256 printable characters without spaces')
      .optional(),
    meaning:
      "the price API's key, sent as `x-cg-pro-api-key` to `pro-api.coingecko.com`, as `x-cg-demo-api-key` elsewhere; never logged",
  },
  PRICE_API_NETWORKS: {
    schema: jsonVariable(
      PriceNetworks,
      'must be a JSON object mapping CAIP-2 chain ids to CoinGecko ids, e.g. {"eip155:1":{"platform":"ethereum","native":"ethereum"}}',
    )
      // Each chain it names replaces that chain's default; the others keep theirs.
      .transform((networks) => ({ ...defaultPriceNetworks, ...networks }))
      .default(defaultPriceNetworks),
    meaning:
      "JSON: CAIP-2 chain id → `{ platform?, native? }`, the CoinGecko asset platform of its tokens and its native coin's id; each chain named replaces its default",
    shownDefault: 'Ethereum, Optimism, Base, Arbitrum One, Solana mainnets',
  },
  PORTHOLE_ENV: {
    schema: z
      .enum(PortholeEnv.options, { error: 'must be development or production' })
      .default(defaults.portholeEnv),
    meaning:
      '`production`: refuse to start with any development setting (see [Production](#production-porthole_envproduction)); the one switch for it',
  },
  DEV_PROJECT_ID: {
    schema: z._default(ProjectId, defaults.devProjectId),
    meaning: 'id of the seeded dev project',
  },
  /** Unset: true in development, false under PORTHOLE_ENV=production (see configFromEnv). */
  SEED_DEV_PROJECT: {
    schema: z
      .enum(['true', 'false'], { error: 'must be true or false' })
      .transform((value) => value === 'true')
      .optional(),
    meaning: '`false`: do not create or reset the dev project; production refuses `true`',
    shownDefault: '`true` (`false` under `PORTHOLE_ENV=production`)',
  },
  SMTP_URL: {
    schema: SmtpUrl.optional(),
    meaning:
      '`smtp://[user:pass@]host:port` or `smtps://…`: where login codes are mailed; unset: mail only goes to the dev outbox (in production: nowhere, and the server refuses to start while a project has email login)',
  },
  MAIL_FROM: {
    schema: MailFrom.default(defaults.mailFrom),
    meaning: 'the From header of that mail (one line)',
  },
  DEV_OUTBOX: {
    schema: z
      .enum(['true', 'false'], { error: 'must be true or false' })
      .transform((value) => value === 'true')
      .default(defaults.devOutbox),
    meaning:
      '`true`: serve `GET /dev/outbox/<DEV_OUTBOX_TOKEN>` (development only: it shows login codes; production refuses it); `/dev/outbox` alone is 404',
  },
  DEV_OUTBOX_TOKEN: {
    schema: z
      .string()
      .regex(/^[A-Za-z0-9_-]{22,128}$/, {
        error:
          'must be 22 to 128 base64url characters (at least 128 bits), e.g. openssl rand -base64 24 | tr +/ -_',
      })
      .optional(),
    meaning:
      "the dev outbox path's last segment, 22 to 128 base64url characters (≥ 128 bits); the server prints the outbox URL at start (SECURITY.md 25)",
    shownDefault: 'unset: random at each start',
  },
  ADMIN_TOKEN: {
    schema: z
      .string()
      .regex(/^[A-Za-z0-9_-]{32,256}$/, {
        error:
          'must be 32 to 256 base64url characters (at least 192 bits), e.g. openssl rand -base64 32 | tr +/ -_ | tr -d =',
      })
      .optional(),
    meaning:
      "the operator's bearer token for the admin endpoints (`/admin/v1/…`), the admin page (`/admin`) and `npm run project -- --api`; unset, the admin is off (404)",
    shownDefault: 'unset: no admin',
  },
  API_HOSTS: {
    schema: z
      .string()
      .transform((value, context) => {
        const hosts: string[] = []
        for (const item of value.split(',')) {
          const host = item.trim().toLowerCase()
          if (host === '') continue
          if (parseHost(host, 80) === undefined) {
            context.addIssue({
              code: 'custom',
              message:
                'must be a comma-separated list of host names with optional ports, e.g. api.example.com,api.example.net:8443',
            })
            return z.NEVER
          }
          hosts.push(host)
        }
        return hosts
      })
      .default([]),
    meaning:
      "comma-separated `host[:port]` (a missing port is the default of `PUBLIC_API_URL`'s scheme): more names the API answers to, e.g. the one the secure-frame server's `API_URL` uses; see [Host names](#host-names)",
  },
  IP_LIMIT_SCALE: {
    schema: z
      .string()
      .regex(/^[1-9]\d{0,5}$/, { error: 'must be a whole number from 1 to 100000' })
      .transform(Number)
      .pipe(z.number().max(100_000, { error: 'must be a whole number from 1 to 100000' }))
      .default(defaults.ipLimitScale),
    meaning:
      'multiplies every per-IP and per-prefix limit (logins, the RPC proxy, `/e`, sign-in nonces), 1 to 100000: for a test stack where every browser is 127.0.0.1; behind a proxy, set `TRUSTED_PROXIES` instead (see [Client addresses](#client-addresses))',
  },
  TRUSTED_PROXIES: {
    schema: z
      .string()
      .transform((value, context) => {
        try {
          return parseTrustedProxies(value)
        } catch (error) {
          context.addIssue({
            code: 'custom',
            message: `must be a comma-separated list of IP addresses and CIDR ranges, e.g. 10.0.0.0/8,192.168.0.7 (${(error as Error).message})`,
          })
          return z.NEVER
        }
      })
      .default(noTrustedProxies),
    meaning:
      'comma-separated IP addresses and CIDR ranges of the reverse proxies in front of the API; see [Client addresses](#client-addresses)',
    shownDefault: 'unset: none',
  },
  PUBLIC_API_URL: {
    schema: HttpUrl.pipe(bareUrl('must be an http(s) URL without query, fragment or credentials'))
      .transform((url) => url.replace(/\/+$/, ''))
      .default(defaults.publicApiUrl),
    meaning:
      'the API as browsers and mail readers reach it (no trailing slash): device-approval links and the OAuth redirect URI `<PUBLIC_API_URL>/auth/v1/social/callback`; its host (port included) is the name the API answers to',
  },
  SECURE_FRAME_ORIGIN: {
    schema: Origin.default(defaults.secureFrameOrigin),
    meaning:
      "the only browser origin that may call the embedded wallet's state-changing endpoints (see [Cross-site requests](#cross-site-requests))",
  },
  WIDGET_ORIGIN: {
    schema: Origin.default(defaults.widgetOrigin),
    meaning:
      "the only window the social login's done page posts its result to (the target origin of its `postMessage`), and the only browser origin that may call `/siwx/nonce`, `/siwx/sessions` and `/e`",
  },
  SHARE_ENCRYPTION_KEY: {
    schema: Base64Key.optional(),
    meaning:
      'base64 of 32 random bytes (`openssl rand -base64 32`): the key-encryption key of recovery shares; **required** under `PORTHOLE_ENV=production` (start-up fails otherwise, and the development key is refused)',
    shownDefault: 'unset: a public development key (a warning at start)',
  },
  SHARE_ENCRYPTION_PREVIOUS_KEYS: {
    schema: z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((key) => key.trim())
          .filter((key) => key !== ''),
      )
      .pipe(z.array(Base64Key).max(16))
      .default([]),
    meaning: 'comma-separated older keys, decryption only (key rotation)',
  },
  FARCASTER_RELAY_URL: {
    schema: ProviderUrl.pipe(bareUrl('must be a URL without query, fragment or credentials'))
      .transform((url) => url.replace(/\/+$/, ''))
      .default(defaults.farcasterRelayUrl),
    meaning:
      "the Farcaster auth relay (AuthKit's `/v1/channel` API) Sign In With Farcaster goes through: https, plain http only on a loopback host (a local stand-in); no query, fragment or credentials",
  },
  FARCASTER_CHAIN: {
    schema: EvmChain.default(defaults.farcasterChain),
    meaning:
      'the chain of the Farcaster IdRegistry whose `custodyOf(fid)` must be the signer of a Farcaster sign-in, read through its `RPC_UPSTREAMS` entry',
  },
  FARCASTER_ID_REGISTRY: {
    schema: EvmAddress.default(defaults.farcasterIdRegistry),
    meaning: 'the IdRegistry contract on `FARCASTER_CHAIN`',
  },
  SOCIAL_PROVIDERS: {
    schema: jsonVariable(
      z.partialRecord(OAuthProvider, SocialProviderSettings, {
        error: `must be a JSON object mapping providers (${OAuthProvider.options.join(', ')}) to { clientId, clientSecret, … }`,
      }),
      'must be a JSON object mapping providers to their OAuth clients, e.g. {"google":{"clientId":"…","clientSecret":"…"}}',
    ).default({}),
    meaning:
      'JSON: `{ "google": { "clientId", "clientSecret"?, "issuer"?, "authorizationEndpoint"?, "tokenEndpoint"?, "userinfoEndpoint"?, "scope"? }, … }` for `google`, `github`, `apple`, `facebook`, `x`, `discord`; see [Social login](#social-login)',
  },
} satisfies Record<string, Variable>

const EnvSchema = z.object(
  Object.fromEntries(
    Object.entries(variables).map(([name, variable]) => [
      name,
      z.preprocess(unset, variable.schema),
    ]),
  ) as { [name in keyof typeof variables]: z.ZodPreprocess<(typeof variables)[name]['schema']> },
)

/**
 * Reads the configuration from environment variables. Bad values throw a
 * `ConfigError` naming each variable; values themselves are never echoed
 * (a DATABASE_URL or an RPC URL may carry a secret).
 */
export function configFromEnv(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(
    Object.fromEntries(Object.keys(variables).map((name) => [name, env[name]])),
  )
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const [variable, ...rest] = issue.path.map(String)
      const where = rest.length > 0 ? ` (at ${rest.join('.')})` : ''
      return `${variable ?? 'environment'}${where}: ${issue.message}`
    })
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`)
  }
  const env_ = parsed.data
  const unreachable = Object.keys(env_.HISTORY_INDEXER ?? {}).filter(
    (chainId) => !Object.hasOwn(env_.RPC_UPSTREAMS, chainId),
  )
  if (unreachable.length > 0) {
    throw new ConfigError(
      `Invalid configuration: HISTORY_INDEXER: ${unreachable.join(', ')} must have an RPC_UPSTREAMS entry to be indexed`,
    )
  }
  return ConfigSchema.parse({
    portholeEnv: env_.PORTHOLE_ENV,
    port: env_.PORT,
    host: env_.HOST,
    databaseUrl: env_.DATABASE_URL,
    pgliteDir: env_.PGLITE_DIR,
    corsOrigins: env_.CORS_ORIGINS,
    rpcUpstreams: env_.RPC_UPSTREAMS,
    rpcMaxAnswerBytes: env_.RPC_MAX_ANSWER_BYTES,
    historyIndexer: env_.HISTORY_INDEXER ?? devHistory(env_.RPC_UPSTREAMS),
    tokenLists: env_.TOKENS,
    priceTable: env_.PRICES,
    priceApi:
      env_.PRICE_API_URL === undefined
        ? undefined
        : { url: env_.PRICE_API_URL, key: env_.PRICE_API_KEY },
    priceNetworks: env_.PRICE_API_NETWORKS,
    devProjectId: env_.DEV_PROJECT_ID,
    seedDevProject: env_.SEED_DEV_PROJECT ?? env_.PORTHOLE_ENV !== 'production',
    smtpUrl: env_.SMTP_URL,
    mailFrom: env_.MAIL_FROM,
    devOutbox: env_.DEV_OUTBOX,
    devOutboxToken: env_.DEV_OUTBOX_TOKEN ?? randomBytes(devOutboxTokenBytes).toString('base64url'),
    ipLimitScale: env_.IP_LIMIT_SCALE,
    trustedProxies: env_.TRUSTED_PROXIES,
    publicApiUrl: env_.PUBLIC_API_URL,
    apiHosts: env_.API_HOSTS,
    secureFrameOrigin: env_.SECURE_FRAME_ORIGIN,
    widgetOrigin: env_.WIDGET_ORIGIN,
    shareEncryptionKeys: shareKeysFromEnv(env_),
    socialProviders: env_.SOCIAL_PROVIDERS,
    farcasterRelayUrl: env_.FARCASTER_RELAY_URL,
    farcasterChain: env_.FARCASTER_CHAIN,
    farcasterIdRegistry: env_.FARCASTER_ID_REGISTRY,
    adminToken: env_.ADMIN_TOKEN,
    devDefaultsUsed: Object.keys(devDefaultVariables).filter((name) => {
      if (name === 'MAIL_FROM' && !env_.SMTP_URL) return false
      if (name === 'PGLITE_DIR') return !env_.DATABASE_URL && unset(env.PGLITE_DIR) === undefined
      // Left unset, or set to the very value the dev stack uses (a copied dev .env).
      return (
        unset(env[name]) === undefined ||
        JSON.stringify(devValue(name, env_)) === JSON.stringify(devDefaultValues[name])
      )
    }),
  })
}

/**
 * `SHARE_ENCRYPTION_KEY` first, then `SHARE_ENCRYPTION_PREVIOUS_KEYS`; unset,
 * `developmentShareKey` (which `PORTHOLE_ENV=production` refuses).
 */
function shareKeysFromEnv(env: {
  SHARE_ENCRYPTION_KEY?: string | undefined
  SHARE_ENCRYPTION_PREVIOUS_KEYS: string[]
}): ShareKey[] {
  const keys = [
    env.SHARE_ENCRYPTION_KEY ?? developmentShareKey.key,
    ...env.SHARE_ENCRYPTION_PREVIOUS_KEYS,
  ]
  return keys.map((key) =>
    key === developmentShareKey.key
      ? { ...developmentShareKey }
      : { id: shareKeyId(Buffer.from(key, 'base64')), key },
  )
}

/**
 * Variables whose default is the dev stack's (or a placeholder): under
 * `PORTHOLE_ENV=production` each must be set, and the refusal says why.
 * MAIL_FROM only counts when SMTP_URL is set (no mail leaves otherwise).
 */
export const devDefaultVariables = {
  PUBLIC_API_URL: `the dev stack's ${defaults.publicApiUrl} is refused`,
  WIDGET_ORIGIN: `the dev stack's ${defaults.widgetOrigin} is refused`,
  SECURE_FRAME_ORIGIN: `the dev stack's ${defaults.secureFrameOrigin} is refused`,
  CORS_ORIGINS: "the dev stack's widget and secure-frame origins are refused",
  RPC_UPSTREAMS: "the dev stack's anvil at http://127.0.0.1:8545 alone is refused",
  MAIL_FROM: `login codes would come from ${defaults.mailFrom}`,
  PGLITE_DIR: "or DATABASE_URL: the default is the dev stack's .data/pglite inside the repository",
} as const

/** What each of `devDefaultVariables` is in the dev stack, to refuse it set explicitly too. */
const devDefaultValues: Record<string, unknown> = {
  PUBLIC_API_URL: originOf(defaults.publicApiUrl),
  WIDGET_ORIGIN: originOf(defaults.widgetOrigin),
  SECURE_FRAME_ORIGIN: originOf(defaults.secureFrameOrigin),
  CORS_ORIGINS: [...defaults.corsOrigins].sort(),
  RPC_UPSTREAMS: defaults.rpcUpstreams,
  MAIL_FROM: defaults.mailFrom,
}

/** A URL's origin, as browsers compare it (lower-case host, no path). */
function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : url
}

/**
 * The parsed value of one of `devDefaultVariables`, normalised as
 * `devDefaultValues` is: origins for the URLs, CORS_ORIGINS sorted and without
 * duplicates.
 */
function devValue(name: string, env: z.infer<typeof EnvSchema>): unknown {
  if (name === 'CORS_ORIGINS') return [...new Set(env.CORS_ORIGINS)].sort()
  if (name === 'PUBLIC_API_URL' || name === 'WIDGET_ORIGIN' || name === 'SECURE_FRAME_ORIGIN')
    return originOf(env[name])
  return (env as Record<string, unknown>)[name]
}

/** Public addresses no proxy list should trust: a list that does trusts nearly everyone. */
const publicSamples = ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888']

/** The dev stack's local chain: an upstream for it in production is a copied development setting. */
const devChain = 'eip155:31337'
/** The dev stack's Solana node (Solana Local). */
const devSolanaChain = 'solana:B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD'

/** The dev stack's history: its anvil indexed from block 0, its Solana node per address. */
function devHistory(upstreams: Readonly<Record<string, string>>) {
  if (!Object.hasOwn(upstreams, devChain)) return {}
  return {
    [devChain]: 0,
    ...(Object.hasOwn(upstreams, devSolanaChain) ? { [devSolanaChain]: 'address' as const } : {}),
  }
}

/** The marker of the tokens checked into the repository for development and tests. */
const notForProduction = 'not-for-production'

/** The start of every line `productionRefusals` writes. */
export const productionPrefix = 'PORTHOLE_ENV=production:'

/**
 * What `PORTHOLE_ENV=production` refuses in the configuration, one line per
 * setting, each naming its variable; empty in development. The server prints
 * them and exits before it opens the database. There is no override: each
 * refused setting exists only for development. (Later issues add to this
 * list; they do not add another switch.)
 */
export function productionRefusals(config: Config): string[] {
  if (config.portholeEnv !== 'production') return []
  const refusals: string[] = []
  if (config.seedDevProject)
    refusals.push(
      `${productionPrefix} SEED_DEV_PROJECT must be false (the dev project allows localhost hosts and is reset at every start)`,
    )
  const [current, ...previous] = config.shareEncryptionKeys
  if (current?.id === developmentShareKey.id)
    refusals.push(
      `${productionPrefix} SHARE_ENCRYPTION_KEY must be set (the public development key is refused)`,
    )
  if (previous.some((key) => key.id === developmentShareKey.id))
    refusals.push(
      `${productionPrefix} SHARE_ENCRYPTION_PREVIOUS_KEYS must not hold the public development key`,
    )
  if (config.devOutbox)
    refusals.push(
      `${productionPrefix} DEV_OUTBOX must be false (the dev outbox shows login codes to anyone)`,
    )
  for (const name of config.devDefaultsUsed)
    refusals.push(
      `${productionPrefix} ${name} must be set (${devDefaultVariables[name as keyof typeof devDefaultVariables]})`,
    )
  if (
    !config.databaseUrl &&
    !config.devDefaultsUsed.includes('PGLITE_DIR') &&
    config.pgliteDir !== memoryDir &&
    isInside(repoRoot, config.pgliteDir)
  )
    refusals.push(
      `${productionPrefix} PGLITE_DIR must be outside the repository (its .data/ is the dev stack's)`,
    )
  if (config.adminToken?.includes(notForProduction))
    refusals.push(
      `${productionPrefix} ADMIN_TOKEN must be your own (this one is in the repository, for development and tests)`,
    )
  if (devChain in config.rpcUpstreams && !config.devDefaultsUsed.includes('RPC_UPSTREAMS'))
    refusals.push(
      `${productionPrefix} RPC_UPSTREAMS must not name ${devChain} (the dev stack's local chain)`,
    )
  if (devChain in config.priceTable)
    refusals.push(
      `${productionPrefix} PRICES must not name ${devChain} (the dev stack's made-up prices)`,
    )
  if (!config.databaseUrl && config.pgliteDir === memoryDir)
    refusals.push(
      `${productionPrefix} PGLITE_DIR must not be memory:// (every wallet, share and session would go at the next restart)`,
    )
  if (config.ipLimitScale !== 1)
    refusals.push(
      `${productionPrefix} IP_LIMIT_SCALE must be 1 (a larger scale is for a test stack where every browser is 127.0.0.1; behind a proxy set TRUSTED_PROXIES)`,
    )
  if (publicSamples.some((address) => config.trustedProxies.has(address)))
    refusals.push(
      `${productionPrefix} TRUSTED_PROXIES must name the proxies, not public ranges (a list that trusts 8.8.8.8 lets any client choose its address)`,
    )
  if (!Object.values(config.rpcUpstreams).every(isHttpsOrPrivate))
    refusals.push(
      `${productionPrefix} RPC_UPSTREAMS must be https (plain http only to this machine or a private network address: sign-in checks go through them)`,
    )
  const published = [
    ['PUBLIC_API_URL', [config.publicApiUrl]],
    ['WIDGET_ORIGIN', [config.widgetOrigin]],
    ['SECURE_FRAME_ORIGIN', [config.secureFrameOrigin]],
    ['CORS_ORIGINS', config.corsOrigins],
  ] as const
  for (const [name, urls] of published)
    if (!urls.every(isHttpsOrLoopback))
      refusals.push(
        `${productionPrefix} ${name} must be https (plain http only on a loopback name such as 127.0.0.1 or *.localhost)`,
      )
  return refusals
}

/**
 * The configuration tests start from: in-memory PGlite, defaults otherwise,
 * and `localhost` among the API's names (`API_HOSTS`): the Host of an
 * in-process `app.request('/path')`, whose URL is `http://localhost/path`.
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return ConfigSchema.parse({
    ...configFromEnv({ PGLITE_DIR: memoryDir, API_HOSTS: 'localhost' }),
    ...overrides,
  })
}
