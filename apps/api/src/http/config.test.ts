import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { devSolanaToken, origins, ports } from '@porthole/dev-stack/stack'
import { TokenList } from '@porthole/protocol/Tokens'
import { describe, expect, test } from 'vitest'
import { noTrustedProxies } from './clientIp.js'
import {
  configFromEnv,
  defaultPgliteDir,
  defaultPriceNetworks,
  defaults,
  defaultTokenLists,
  developmentShareKey,
  productionRefusals,
  repoRoot,
  shareKeyId,
  variables,
} from './config.js'
import { ConfigError } from './errors.js'

const devSplMint = devSolanaToken.address
const currentKey = Buffer.alloc(32, 7).toString('base64')
const previousKey = Buffer.alloc(32, 9).toString('base64')

describe('configFromEnv', () => {
  test('has working defaults', () => {
    expect(configFromEnv({})).toEqual({
      portholeEnv: 'development',
      port: 5173,
      host: '127.0.0.1',
      databaseUrl: undefined,
      pgliteDir: defaultPgliteDir,
      corsOrigins: ['http://widget.localhost:5171', 'http://secure.localhost:5172'],
      rpcUpstreams: { 'eip155:31337': 'http://127.0.0.1:8545' },
      rpcMaxAnswerBytes: 2 * 1024 * 1024,
      historyIndexer: { 'eip155:31337': 0 },
      tokenLists: defaultTokenLists,
      priceTable: {},
      priceApi: undefined,
      priceNetworks: defaultPriceNetworks,
      devProjectId: 'porthole-dev',
      seedDevProject: true,
      smtpUrl: undefined,
      mailFrom: 'Porthole <no-reply@porthole.localhost>',
      devOutbox: false,
      devOutboxToken: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
      ipLimitScale: 1,
      trustedProxies: noTrustedProxies,
      publicApiUrl: 'http://api.localhost:5173',
      apiHosts: [],
      secureFrameOrigin: 'http://secure.localhost:5172',
      widgetOrigin: 'http://widget.localhost:5171',
      shareEncryptionKeys: [developmentShareKey],
      socialProviders: {},
      farcasterRelayUrl: 'https://relay.farcaster.xyz',
      farcasterChain: 'eip155:10',
      farcasterIdRegistry: '0x00000000Fc6c5F01Fc30151999387Bb99A9f489b',
      devDefaultsUsed: [
        'PUBLIC_API_URL',
        'WIDGET_ORIGIN',
        'SECURE_FRAME_ORIGIN',
        'CORS_ORIGINS',
        'RPC_UPSTREAMS',
        'PGLITE_DIR',
      ],
    })
    expect(defaultPgliteDir).toBe(`${repoRoot}.data/pglite`)
  })

  test('inv-25: a new random dev outbox token at each start, unless DEV_OUTBOX_TOKEN gives it', () => {
    const tokens = new Set(
      Array.from({ length: 5 }, () => configFromEnv({ DEV_OUTBOX: 'true' }).devOutboxToken),
    )
    expect(tokens.size).toBe(5)
    const given = 'Zm9yLXRlc3RzLW9ubHktMTI4LWJpdHM'
    expect(configFromEnv({ DEV_OUTBOX_TOKEN: given }).devOutboxToken).toBe(given)
  })

  test('lists the stablecoins of Ethereum, Base and Sepolia by default', () => {
    const { tokenLists } = configFromEnv({})
    const symbols = Object.fromEntries(
      Object.entries(tokenLists).map(([chainId, tokens]) => [
        chainId,
        tokens.map((token) => `${token.symbol} ${token.address} ${token.decimals} ${token.name}`),
      ]),
    )
    expect(symbols).toEqual({
      'eip155:1': [
        'USDC 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48 6 USD Coin',
        'USDT 0xdAC17F958D2ee523a2206206994597C13D831ec7 6 Tether USD',
        'DAI 0x6B175474E89094C44Da98b954EedeAC495271d0F 18 Dai Stablecoin',
      ],
      'eip155:8453': ['USDC 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913 6 USD Coin'],
      'eip155:11155111': ['USDC 0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238 6 USD Coin'],
    })
    for (const tokens of Object.values(tokenLists)) TokenList.parse({ tokens })
  })

  test('TOKENS lists SPL mints on a solana chain', () => {
    const ptt = { address: devSplMint, name: 'Porthole Test Token', symbol: 'PTT', decimals: 6 }
    const { tokenLists } = configFromEnv({
      TOKENS: JSON.stringify({ 'solana:B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD': [ptt] }),
    })
    expect(tokenLists['solana:B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD']).toEqual([ptt])
  })

  test('TOKENS replaces the lists of the chains it names and keeps the other defaults', () => {
    const weth = {
      address: '0x4200000000000000000000000000000000000006',
      name: 'Wrapped Ether',
      symbol: 'WETH',
      decimals: 18,
    }
    const { tokenLists } = configFromEnv({
      TOKENS: JSON.stringify({ 'eip155:8453': [weth], 'eip155:10': [weth], 'eip155:1': [] }),
    })
    expect(tokenLists).toEqual({
      'eip155:1': [],
      'eip155:8453': [weth],
      'eip155:10': [weth],
      'eip155:11155111': defaultTokenLists['eip155:11155111'],
    })
  })

  test('HISTORY_INDEXER: an eip155 network may be address-scoped too', () => {
    expect(
      configFromEnv({
        RPC_UPSTREAMS: '{"eip155:1":"https://rpc.example.com"}',
        HISTORY_INDEXER: '{"eip155:1":"address"}',
      }).historyIndexer,
    ).toEqual({ 'eip155:1': 'address' })
  })

  test('reads every variable', () => {
    expect(
      configFromEnv({
        PORT: '8080',
        HOST: '0.0.0.0',
        DATABASE_URL: 'postgres://user:secret@db.example:5432/porthole',
        PGLITE_DIR: 'memory://',
        CORS_ORIGINS: 'https://widget.example.com, https://secure.example.com/',
        RPC_UPSTREAMS:
          '{"eip155:1":"https://rpc.example.com/key","solana:devnet":"http://127.0.0.1:8899"}',
        HISTORY_INDEXER: '{"eip155:1":"latest"}',
        RPC_MAX_ANSWER_BYTES: '1048576',
        TOKENS:
          '{"eip155:31337":[{"address":"0x5FbDB2315678afecb367f032d93F642f64180aa3","name":"Test Token","symbol":"TST","decimals":18}]}',
        PRICES:
          '{"eip155:1":{"native":3000,"tokens":{"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48":1}}}',
        PRICE_API_URL: 'https://pro-api.coingecko.com/api/v3/',
        PRICE_API_KEY: 'CG-price-key',
        PRICE_API_NETWORKS:
          '{"eip155:8453":{"native":"ethereum"},"eip155:137":{"platform":"polygon-pos"}}',
        PORTHOLE_ENV: 'production',
        DEV_PROJECT_ID: 'my-dev',
        SEED_DEV_PROJECT: 'false',
        SMTP_URL: 'smtp://mailer:secret@127.0.0.1:2525',
        MAIL_FROM: 'Example <login@example.com>',
        DEV_OUTBOX: 'true',
        DEV_OUTBOX_TOKEN: 'abcdefghijklmnopqrstuv_-09',
        API_HOSTS: ' API.example.net ,internal-api:8080,',
        IP_LIMIT_SCALE: '50',
        TRUSTED_PROXIES: ' 10.0.0.0/8, 192.168.1.7 ,fd00::/8,',
        PUBLIC_API_URL: 'https://api.example.com/porthole/',
        SECURE_FRAME_ORIGIN: 'https://secure.example.com/',
        WIDGET_ORIGIN: 'https://widget.example.com/',
        SHARE_ENCRYPTION_KEY: currentKey,
        SHARE_ENCRYPTION_PREVIOUS_KEYS: ` ${previousKey} ,`,
        SOCIAL_PROVIDERS: JSON.stringify({
          google: { clientId: 'g-id', clientSecret: 'g-secret' },
          github: { clientId: 'gh-id', clientSecret: 'gh-secret', scope: 'read:user' },
        }),
        FARCASTER_RELAY_URL: 'http://127.0.0.1:4100/',
        FARCASTER_CHAIN: 'eip155:31337',
        FARCASTER_ID_REGISTRY: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      }),
    ).toEqual({
      portholeEnv: 'production',
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgres://user:secret@db.example:5432/porthole',
      pgliteDir: 'memory://',
      corsOrigins: ['https://widget.example.com', 'https://secure.example.com'],
      rpcUpstreams: {
        'eip155:1': 'https://rpc.example.com/key',
        'solana:devnet': 'http://127.0.0.1:8899',
      },
      rpcMaxAnswerBytes: 1024 * 1024,
      historyIndexer: { 'eip155:1': 'latest' },
      tokenLists: {
        ...defaultTokenLists,
        'eip155:31337': [
          {
            address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
            name: 'Test Token',
            symbol: 'TST',
            decimals: 18,
          },
        ],
      },
      priceTable: {
        'eip155:1': { native: 3000, tokens: { '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48': 1 } },
      },
      priceApi: { url: 'https://pro-api.coingecko.com/api/v3', key: 'CG-price-key' },
      priceNetworks: {
        ...defaultPriceNetworks,
        'eip155:8453': { native: 'ethereum' },
        'eip155:137': { platform: 'polygon-pos' },
      },
      devProjectId: 'my-dev',
      seedDevProject: false,
      smtpUrl: 'smtp://mailer:secret@127.0.0.1:2525',
      mailFrom: 'Example <login@example.com>',
      devOutbox: true,
      devOutboxToken: 'abcdefghijklmnopqrstuv_-09',
      ipLimitScale: 50,
      trustedProxies: expect.objectContaining({
        entries: ['10.0.0.0/8', '192.168.1.7', 'fd00::/8'],
      }),
      publicApiUrl: 'https://api.example.com/porthole',
      apiHosts: ['api.example.net', 'internal-api:8080'],
      secureFrameOrigin: 'https://secure.example.com',
      widgetOrigin: 'https://widget.example.com',
      shareEncryptionKeys: [
        { id: shareKeyId(Buffer.from(currentKey, 'base64')), key: currentKey },
        { id: shareKeyId(Buffer.from(previousKey, 'base64')), key: previousKey },
      ],
      socialProviders: {
        google: { clientId: 'g-id', clientSecret: 'g-secret' },
        github: { clientId: 'gh-id', clientSecret: 'gh-secret', scope: 'read:user' },
      },
      farcasterRelayUrl: 'http://127.0.0.1:4100',
      farcasterChain: 'eip155:31337',
      farcasterIdRegistry: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      devDefaultsUsed: [],
    })
  })

  test.each([
    [undefined, undefined, true],
    ['', undefined, true],
    ['true', undefined, true],
    ['false', undefined, false],
    [undefined, 'production', false],
    ['', 'production', false],
    ['true', 'production', true],
  ])(
    'SEED_DEV_PROJECT=%j under PORTHOLE_ENV=%j seeds the dev project: %s',
    (value, portholeEnv, seedDevProject) => {
      expect(
        configFromEnv({
          SEED_DEV_PROJECT: value,
          PORTHOLE_ENV: portholeEnv,
          SHARE_ENCRYPTION_KEY: currentKey,
        }).seedDevProject,
      ).toBe(seedDevProject)
    },
  )

  test('SEED_DEV_PROJECT=false alone is not production: the development key serves, with the warning', () => {
    const config = configFromEnv({ SEED_DEV_PROJECT: 'false' })
    expect(config.portholeEnv).toBe('development')
    expect(config.shareEncryptionKeys).toEqual([developmentShareKey])
    expect(productionRefusals(config)).toEqual([])
  })

  test('accepts a loopback http issuer (a local stand-in) and public endpoints', () => {
    const { socialProviders } = configFromEnv({
      SOCIAL_PROVIDERS: JSON.stringify({
        google: { clientId: 'a', issuer: 'http://127.0.0.1:4000' },
        discord: {
          clientId: 'b',
          clientSecret: 'c',
          tokenEndpoint: 'https://discord.example/token',
        },
        x: { clientId: 'public-client' },
      }),
    })
    expect(Object.keys(socialProviders)).toEqual(['google', 'discord', 'x'])
  })

  test('production runs with a real key', () => {
    const config = configFromEnv({
      PORTHOLE_ENV: 'production',
      SHARE_ENCRYPTION_KEY: currentKey,
      PGLITE_DIR: '/var/lib/porthole/pglite',
      PUBLIC_API_URL: 'https://api.porthole.example',
      WIDGET_ORIGIN: 'https://widget.porthole.example',
      SECURE_FRAME_ORIGIN: 'https://secure.porthole.example',
      CORS_ORIGINS: 'https://widget.porthole.example',
      RPC_UPSTREAMS: '{"eip155:1":"https://rpc.porthole.example"}',
    })
    expect(config.shareEncryptionKeys).toEqual([
      { id: shareKeyId(Buffer.from(currentKey, 'base64')), key: currentKey },
    ])
    expect(productionRefusals(config)).toEqual([])
  })

  test('treats empty variables as unset', () => {
    expect(configFromEnv({ PORT: '', DATABASE_URL: '' })).toMatchObject({
      port: 5173,
      databaseUrl: undefined,
    })
  })

  test.each([
    [{ PORT: 'eighty' }, /PORT: must be a port number/],
    [{ PORT: '70000' }, /PORT: must be a port number/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL: must be a postgres/],
    [
      { CORS_ORIGINS: 'https://ok.example, not an origin' },
      /CORS_ORIGINS: must be a comma-separated/,
    ],
    [{ CORS_ORIGINS: 'https://a.example/path' }, /CORS_ORIGINS/],
    [{ RPC_UPSTREAMS: '{nope' }, /RPC_UPSTREAMS: must be a JSON object/],
    [{ FARCASTER_RELAY_URL: 'http://relay.example' }, /FARCASTER_RELAY_URL: must be an https URL/],
    [{ FARCASTER_RELAY_URL: 'https://relay.example/?key=1' }, /FARCASTER_RELAY_URL/],
    [{ FARCASTER_CHAIN: 'solana:mainnet' }, /FARCASTER_CHAIN: must be an EVM chain id/],
    [{ FARCASTER_ID_REGISTRY: '0x1234' }, /FARCASTER_ID_REGISTRY: must be a 0x address/],
    [{ RPC_UPSTREAMS: '["http://a"]' }, /RPC_UPSTREAMS/],
    [{ RPC_UPSTREAMS: '{"mainnet":"http://a.example"}' }, /RPC_UPSTREAMS/],
    [{ RPC_UPSTREAMS: '{"eip155:1":"ftp://a.example"}' }, /RPC_UPSTREAMS \(at eip155:1\)/],
    [{ TOKENS: '{nope' }, /TOKENS: must be a JSON object mapping CAIP-2 chain ids to token lists/],
    [{ TOKENS: '[]' }, /TOKENS: must be a JSON object/],
    [{ TOKENS: '{"mainnet":[]}' }, /TOKENS/],
    [{ TOKENS: '{"eip155:1":{}}' }, /TOKENS \(at eip155:1\)/],
    [
      { TOKENS: '{"eip155:1":[{"address":"0x12","name":"X","symbol":"X","decimals":6}]}' },
      /TOKENS \(at eip155:1\.0\.address\)/,
    ],
    [
      {
        TOKENS:
          '{"eip155:1":[{"address":"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48","name":"X","symbol":"X","decimals":6.5}]}',
      },
      /TOKENS \(at eip155:1\.0\.decimals\)/,
    ],
    [
      {
        TOKENS:
          '{"eip155:1":[{"address":"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48","name":"X","symbol":"X","decimals":6,"logo":"x"}]}',
      },
      /TOKENS \(at eip155:1\.0\)/,
    ],
    [
      {
        TOKENS: JSON.stringify({
          'eip155:1': Array.from({ length: 101 }, () => defaultTokenLists['eip155:1']?.[0]),
        }),
      },
      /TOKENS \(at eip155:1\)/,
    ],
    [
      {
        TOKENS: JSON.stringify({
          'solana:B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD': defaultTokenLists['eip155:1'],
        }),
      },
      /TOKENS \(at solana:B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD\.0\.address\): must be an ERC-20 address .* an SPL mint/,
    ],
    [
      {
        TOKENS: JSON.stringify({
          'eip155:1': [{ ...defaultTokenLists['eip155:1']?.[0], address: devSplMint }],
        }),
      },
      /TOKENS \(at eip155:1\.0\.address\): must be an ERC-20 address/,
    ],
    [
      {
        TOKENS: JSON.stringify({
          'bip122:000000000019d6689c085ae165831e93': [
            { ...defaultTokenLists['eip155:1']?.[0], address: devSplMint },
          ],
        }),
      },
      /TOKENS \(at bip122:000000000019d6689c085ae165831e93\.0\.address\)/,
    ],
    [{ DEV_PROJECT_ID: 'has space' }, /DEV_PROJECT_ID/],
    [{ SEED_DEV_PROJECT: 'no' }, /SEED_DEV_PROJECT: must be true or false/],
    [{ SEED_DEV_PROJECT: 'FALSE' }, /SEED_DEV_PROJECT: must be true or false/],
    [{ SMTP_URL: 'http://127.0.0.1:2525' }, /SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/],
    [{ SMTP_URL: 'not a url' }, /SMTP_URL: must be an smtp/],
    [{ MAIL_FROM: 'Porthole\r\nBcc: x@example.com' }, /MAIL_FROM: must be one line/],
    [{ MAIL_FROM: 'nobody' }, /MAIL_FROM/],
    [{ DEV_OUTBOX: 'yes' }, /DEV_OUTBOX: must be true or false/],
    [{ DEV_OUTBOX_TOKEN: 'short' }, /DEV_OUTBOX_TOKEN: must be 22 to 128 base64url characters/],
    [{ DEV_OUTBOX_TOKEN: `${'a'.repeat(22)}/` }, /DEV_OUTBOX_TOKEN: must be 22 to 128/],
    [{ API_HOSTS: 'https://api.example.com' }, /API_HOSTS: must be a comma-separated list/],
    [{ API_HOSTS: 'user@api.example.com' }, /API_HOSTS: must be a comma-separated list/],
    [{ API_HOSTS: 'api.example.com:99999' }, /API_HOSTS: must be a comma-separated list/],
    [{ PUBLIC_API_URL: 'api.example.com' }, /PUBLIC_API_URL: must be an http\(s\) URL/],
    [
      { PUBLIC_API_URL: 'https://api.example.com/?x=1' },
      /PUBLIC_API_URL: must be an http\(s\) URL without query/,
    ],
    [
      { SECURE_FRAME_ORIGIN: 'https://secure.example.com/frame' },
      /SECURE_FRAME_ORIGIN: must be an origin/,
    ],
    [{ WIDGET_ORIGIN: 'https://widget.example.com/app' }, /WIDGET_ORIGIN: must be an origin/],
    [{ WIDGET_ORIGIN: '*' }, /WIDGET_ORIGIN: must be an origin/],
    [
      { SHARE_ENCRYPTION_KEY: 'c2hvcnQ=' },
      /SHARE_ENCRYPTION_KEY: must be the base64 of 32 random bytes/,
    ],
    [
      { SHARE_ENCRYPTION_PREVIOUS_KEYS: `${currentKey},nope` },
      /SHARE_ENCRYPTION_PREVIOUS_KEYS \(at 1\): must be the base64 of 32 random bytes/,
    ],
    [{ SOCIAL_PROVIDERS: '{nope' }, /SOCIAL_PROVIDERS: must be a JSON object mapping providers/],
    [{ SOCIAL_PROVIDERS: '{"myspace":{"clientId":"x"}}' }, /SOCIAL_PROVIDERS/],
    [{ SOCIAL_PROVIDERS: '{"farcaster":{"clientId":"x"}}' }, /SOCIAL_PROVIDERS/],
    [
      { SOCIAL_PROVIDERS: '{"google":{"clientId":"x","issuer":"not a url"}}' },
      /SOCIAL_PROVIDERS \(at google\.issuer\): must be an https URL/,
    ],
    [{ SOCIAL_PROVIDERS: '{"google":{}}' }, /SOCIAL_PROVIDERS \(at google\.clientId\)/],
    [
      { SOCIAL_PROVIDERS: '{"google":{"clientId":"x","tenant":"y"}}' },
      /SOCIAL_PROVIDERS \(at google\)/,
    ],
    [
      { SOCIAL_PROVIDERS: '{"google":{"clientId":"x","issuer":"http://idp.example.com"}}' },
      /SOCIAL_PROVIDERS \(at google\.issuer\): must be an https URL \(http only on a loopback host/,
    ],
    [
      {
        SOCIAL_PROVIDERS:
          '{"google":{"clientId":"x","issuer":"https://idp.example.com","tokenEndpoint":"https://idp.example.com/token"}}',
      },
      /SOCIAL_PROVIDERS \(at google\): with issuer, give no endpoints/,
    ],
    [{ IP_LIMIT_SCALE: '0' }, /IP_LIMIT_SCALE: must be a whole number from 1 to 100000/],
    [{ RPC_MAX_ANSWER_BYTES: '1000' }, /RPC_MAX_ANSWER_BYTES: must be a whole number of bytes/],
    [
      { HISTORY_INDEXER: '{"eip155:5":0}' },
      /HISTORY_INDEXER: eip155:5 must have an RPC_UPSTREAMS entry/,
    ],
    [{ HISTORY_INDEXER: '{"solana:x1y":0}' }, /HISTORY_INDEXER/],
    [{ HISTORY_INDEXER: '{"eip155:31337":-1}' }, /HISTORY_INDEXER/],
    [
      {
        RPC_UPSTREAMS: '{"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp":"https://sol.example"}',
        HISTORY_INDEXER: '{"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp":0}',
      },
      /HISTORY_INDEXER.*a solana chain is "address"/,
    ],
    [{ RPC_MAX_ANSWER_BYTES: '2MiB' }, /RPC_MAX_ANSWER_BYTES: must be a whole number of bytes/],
    [{ RPC_MAX_ANSWER_BYTES: '999999999' }, /RPC_MAX_ANSWER_BYTES: must be a whole number/],
    [{ IP_LIMIT_SCALE: '-5' }, /IP_LIMIT_SCALE: must be a whole number/],
    [{ IP_LIMIT_SCALE: '2.5' }, /IP_LIMIT_SCALE: must be a whole number/],
    [{ IP_LIMIT_SCALE: '999999' }, /IP_LIMIT_SCALE: must be a whole number/],
    [{ PORTHOLE_ENV: 'prod' }, /PORTHOLE_ENV: must be development or production/],
    [{ PORTHOLE_ENV: 'Production' }, /PORTHOLE_ENV: must be development or production/],
    [{ TRUSTED_PROXIES: 'loadbalancer' }, /TRUSTED_PROXIES: must be a comma-separated list/],
    [{ TRUSTED_PROXIES: '10.0.0.0/33' }, /TRUSTED_PROXIES: .*bad prefix length/],
    [{ TRUSTED_PROXIES: '10.0.0.0/8/8' }, /TRUSTED_PROXIES/],
    [{ TRUSTED_PROXIES: 'fd00::/129' }, /TRUSTED_PROXIES/],
    [{ TRUSTED_PROXIES: '10.0.0.1:8080' }, /TRUSTED_PROXIES/],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => configFromEnv(env)).toThrow(ConfigError)
    expect(() => configFromEnv(env)).toThrow(message)
  })

  test('never echoes a value that may hold a secret', () => {
    const secret = 'sup3r-s3cret-key'
    for (const env of [
      { DATABASE_URL: `mysql://root:${secret}@db` },
      { RPC_UPSTREAMS: `{"eip155:1":"ftp://x/${secret}"}` },
      { RPC_UPSTREAMS: `{bad json ${secret}` },
      { SMTP_URL: `http://mailer:${secret}@smtp.example.com` },
      { SHARE_ENCRYPTION_KEY: `${secret}AAAAAAAAAAAAAAAAAAAAAAAAAA=` },
      { SOCIAL_PROVIDERS: `{"google":{"clientId":"x","clientSecret":"${secret}","extra":1}}` },
      { SOCIAL_PROVIDERS: `{bad json ${secret}` },
    ]) {
      expect(() => configFromEnv(env)).toThrow(ConfigError)
      try {
        configFromEnv(env)
      } catch (error) {
        expect((error as Error).message).not.toContain(secret)
      }
    }
  })

  test('names every bad variable at once', () => {
    expect(() => configFromEnv({ PORT: 'x', DEV_PROJECT_ID: '!' })).toThrow(
      /PORT: .*; DEV_PROJECT_ID: /,
    )
  })
})

describe('productionRefusals', () => {
  /** Every public URL and upstream set, in https. */
  const deployed = {
    PUBLIC_API_URL: 'https://api.porthole.example',
    WIDGET_ORIGIN: 'https://widget.porthole.example',
    SECURE_FRAME_ORIGIN: 'https://secure.porthole.example',
    CORS_ORIGINS: 'https://widget.porthole.example,https://secure.porthole.example',
    RPC_UPSTREAMS: '{"eip155:1":"https://rpc.porthole.example"}',
  }
  const production = {
    PORTHOLE_ENV: 'production',
    SHARE_ENCRYPTION_KEY: currentKey,
    PGLITE_DIR: '/var/lib/porthole/pglite',
    ...deployed,
  }

  test('takes https, and plain http on loopback names only (tests on this machine)', () => {
    const local = {
      PUBLIC_API_URL: 'http://127.0.0.1:5173',
      WIDGET_ORIGIN: 'http://widget.localhost:6171',
      SECURE_FRAME_ORIGIN: 'http://[::1]:5172',
      CORS_ORIGINS: 'http://localhost:5171,https://secure.porthole.example',
    }
    expect(productionRefusals(configFromEnv({ ...production, ...local }))).toEqual([])
    const privateUpstreams = {
      RPC_UPSTREAMS: '{"eip155:1":"http://10.0.0.7:8545","eip155:8453":"http://geth:8545"}',
    }
    expect(productionRefusals(configFromEnv({ ...production, ...privateUpstreams }))).toEqual([])
    expect(
      productionRefusals(
        configFromEnv({ ...production, PGLITE_DIR: '', DATABASE_URL: 'postgres://db/porthole' }),
      ),
    ).toEqual([])
  })

  test('refuses nothing in development, whatever is set', () => {
    expect(
      productionRefusals(
        configFromEnv({ SEED_DEV_PROJECT: 'true', DEV_OUTBOX: 'true', SMTP_URL: '' }),
      ),
    ).toEqual([])
  })

  test.each([
    [
      { SHARE_ENCRYPTION_KEY: '' },
      'PORTHOLE_ENV=production: SHARE_ENCRYPTION_KEY must be set (the public development key is refused)',
    ],
    [
      { SHARE_ENCRYPTION_KEY: developmentShareKey.key },
      'PORTHOLE_ENV=production: SHARE_ENCRYPTION_KEY must be set (the public development key is refused)',
    ],
    [
      { SHARE_ENCRYPTION_PREVIOUS_KEYS: developmentShareKey.key },
      'PORTHOLE_ENV=production: SHARE_ENCRYPTION_PREVIOUS_KEYS must not hold the public development key',
    ],
    [
      { SEED_DEV_PROJECT: 'true' },
      'PORTHOLE_ENV=production: SEED_DEV_PROJECT must be false (the dev project allows localhost hosts and is reset at every start)',
    ],
    [
      { DEV_OUTBOX: 'true' },
      'PORTHOLE_ENV=production: DEV_OUTBOX must be false (the dev outbox shows login codes to anyone)',
    ],
    [
      { RPC_UPSTREAMS: '' },
      "PORTHOLE_ENV=production: RPC_UPSTREAMS must be set (the dev stack's anvil at http://127.0.0.1:8545 alone is refused)",
    ],
    [
      { PUBLIC_API_URL: 'http://api.porthole.example' },
      'PORTHOLE_ENV=production: PUBLIC_API_URL must be https (plain http only on a loopback name such as 127.0.0.1 or *.localhost)',
    ],
    [
      { CORS_ORIGINS: 'https://widget.porthole.example,http://[2001:db8::1]:8080' },
      'PORTHOLE_ENV=production: CORS_ORIGINS must be https (plain http only on a loopback name such as 127.0.0.1 or *.localhost)',
    ],
    [
      { WIDGET_ORIGIN: 'http://widget.localhost:5171' },
      "PORTHOLE_ENV=production: WIDGET_ORIGIN must be set (the dev stack's http://widget.localhost:5171 is refused)",
    ],
    [
      { CORS_ORIGINS: 'http://secure.localhost:5172, http://widget.localhost:5171' },
      "PORTHOLE_ENV=production: CORS_ORIGINS must be set (the dev stack's widget and secure-frame origins are refused)",
    ],
    [
      { PGLITE_DIR: '' },
      "PORTHOLE_ENV=production: PGLITE_DIR must be set (or DATABASE_URL: the default is the dev stack's .data/pglite inside the repository)",
    ],
    [
      { PGLITE_DIR: 'memory://' },
      'PORTHOLE_ENV=production: PGLITE_DIR must not be memory:// (every wallet, share and session would go at the next restart)',
    ],
    [
      { IP_LIMIT_SCALE: '1000' },
      'PORTHOLE_ENV=production: IP_LIMIT_SCALE must be 1 (a larger scale is for a test stack where every browser is 127.0.0.1; behind a proxy set TRUSTED_PROXIES)',
    ],
    [
      { TRUSTED_PROXIES: '10.0.0.0/8,::/0' },
      'PORTHOLE_ENV=production: TRUSTED_PROXIES must name the proxies, not public ranges (a list that trusts 8.8.8.8 lets any client choose its address)',
    ],
    [
      { RPC_UPSTREAMS: '{"eip155:1":"http://rpc.porthole.example"}' },
      'PORTHOLE_ENV=production: RPC_UPSTREAMS must be https (plain http only to this machine or a private network address: sign-in checks go through them)',
    ],
    [
      { TRUSTED_PROXIES: '0.0.0.0/1,128.0.0.0/1' },
      'PORTHOLE_ENV=production: TRUSTED_PROXIES must name the proxies, not public ranges (a list that trusts 8.8.8.8 lets any client choose its address)',
    ],
    [
      { PUBLIC_API_URL: 'http://API.localhost:5173/x' },
      "PORTHOLE_ENV=production: PUBLIC_API_URL must be set (the dev stack's http://api.localhost:5173 is refused)",
    ],
    [
      { PGLITE_DIR: join(repoRoot, '.data', 'pglite') },
      "PORTHOLE_ENV=production: PGLITE_DIR must be outside the repository (its .data/ is the dev stack's)",
    ],
    [
      { ADMIN_TOKEN: 'porthole-e2e-admin-token-not-for-production' },
      'PORTHOLE_ENV=production: ADMIN_TOKEN must be your own (this one is in the repository, for development and tests)',
    ],
    [
      {
        RPC_UPSTREAMS:
          '{"eip155:1":"https://rpc.porthole.example","eip155:31337":"http://127.0.0.1:8545/"}',
      },
      "PORTHOLE_ENV=production: RPC_UPSTREAMS must not name eip155:31337 (the dev stack's local chain)",
    ],
    [
      { PUBLIC_API_URL: '' },
      "PORTHOLE_ENV=production: PUBLIC_API_URL must be set (the dev stack's http://api.localhost:5173 is refused)",
    ],
    [
      { WIDGET_ORIGIN: '' },
      "PORTHOLE_ENV=production: WIDGET_ORIGIN must be set (the dev stack's http://widget.localhost:5171 is refused)",
    ],
    [
      { SECURE_FRAME_ORIGIN: '' },
      "PORTHOLE_ENV=production: SECURE_FRAME_ORIGIN must be set (the dev stack's http://secure.localhost:5172 is refused)",
    ],
    [
      { CORS_ORIGINS: '' },
      "PORTHOLE_ENV=production: CORS_ORIGINS must be set (the dev stack's widget and secure-frame origins are refused)",
    ],
    [
      { MAIL_FROM: '', SMTP_URL: 'smtp://mail.porthole.example:587' },
      'PORTHOLE_ENV=production: MAIL_FROM must be set (login codes would come from Porthole <no-reply@porthole.localhost>)',
    ],
    [
      { SECURE_FRAME_ORIGIN: 'http://10.0.0.7:5172' },
      'PORTHOLE_ENV=production: SECURE_FRAME_ORIGIN must be https (plain http only on a loopback name such as 127.0.0.1 or *.localhost)',
    ],
  ])('%j: one line naming the variable', (env, line) => {
    expect(productionRefusals(configFromEnv({ ...production, ...env }))).toEqual([line])
  })

  test('names every refused setting, one line each', () => {
    const lines = productionRefusals(
      configFromEnv({
        PORTHOLE_ENV: 'production',
        SEED_DEV_PROJECT: 'true',
        DEV_OUTBOX: 'true',
        SMTP_URL: 'smtp://127.0.0.1:2525',
      }),
    )
    expect(lines.map((line) => line.split(' ')[1])).toEqual([
      'SEED_DEV_PROJECT',
      'SHARE_ENCRYPTION_KEY',
      'DEV_OUTBOX',
      'PUBLIC_API_URL',
      'WIDGET_ORIGIN',
      'SECURE_FRAME_ORIGIN',
      'CORS_ORIGINS',
      'RPC_UPSTREAMS',
      'MAIL_FROM',
      'PGLITE_DIR',
    ])
    for (const line of lines) expect(line).toMatch(/^PORTHOLE_ENV=production: [A-Z_]+ must /)
  })
})

describe('defaults', () => {
  test("are the dev stack's origins and ports, which npm start passes as well", () => {
    expect(defaults).toMatchObject({
      port: ports.api,
      publicApiUrl: origins.api,
      widgetOrigin: origins.widget,
      secureFrameOrigin: origins.secure,
      corsOrigins: [origins.widget, origins.secure],
      rpcUpstreams: { 'eip155:31337': `http://127.0.0.1:${ports.anvil}` },
    })
  })
})

describe("the README's configuration table", () => {
  /** `| \`NAME\` | default | meaning |` rows of the table headed `| Variable | Default | Meaning |`. */
  function readmeRows(): Record<string, [string, string]> {
    const lines = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').split('\n')
    const header = lines.findIndex((line) => /^\| Variable +\| Default +\| Meaning +\|$/.test(line))
    expect(header).toBeGreaterThan(0)
    const rows: Record<string, [string, string]> = {}
    for (const line of lines.slice(header + 2)) {
      if (!line.startsWith('|')) break
      const [name = '', shown = '', meaning = ''] = line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim())
      rows[name.replace(/^`|`$/g, '')] = [shown, meaning]
    }
    return rows
  }

  /** What the Default column says of a default value: it in backquotes, or `unset`. */
  function shown(value: unknown): string {
    if (value === undefined || (Array.isArray(value) && value.length === 0)) return 'unset'
    if (Array.isArray(value)) return `\`${value.join(',')}\``
    if (typeof value === 'object') return `\`${JSON.stringify(value)}\``
    return `\`${String(value)}\``
  }

  test('lists every variable once, with its default and meaning as the table in config.ts gives them', () => {
    const table = Object.fromEntries(
      Object.entries(variables).map(([name, variable]) => [
        name,
        [
          'shownDefault' in variable
            ? variable.shownDefault
            : shown(variable.schema.parse(undefined)),
          variable.meaning,
        ],
      ]),
    )
    expect(Object.keys(table).length).toBeGreaterThan(20)
    expect(readmeRows()).toEqual(table)
  })

  test('every variable the parser reads is in the table, and only those', () => {
    const read = new Set<string>()
    const env = new Proxy<Record<string, string | undefined>>(
      {},
      {
        get: (_, name) => {
          read.add(String(name))
          return undefined
        },
      },
    )
    configFromEnv(env)
    expect([...read].sort()).toEqual(Object.keys(variables).sort())
  })
})
