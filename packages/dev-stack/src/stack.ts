/** The dev stack's ports, origins and projects, shared by `npm start`, e2e and bench. */
import { getContractAddress } from 'viem'

export const ports = {
  demo: 5170,
  widget: 5171,
  secure: 5172,
  api: 5173,
  relay: 5174,
  /** The OIDC provider standing in for Google (oidcProvider.ts). */
  idp: 5175,
  /** e2e only: the SMTP server catching the API's mail, and its HTTP listing. */
  smtp: 5176,
  mail: 5177,
  /** e2e only: a Farcaster relay stand-in (farcasterRelay.ts). */
  farcaster: 5178,
  /** e2e only: a stand-in of CoinGecko's price API (priceApi.ts). */
  prices: 5179,
  /** e2e only: the demo host again, on another port of 127.0.0.1: another origin on the same site. */
  demoSameSite: 5180,
  /** e2e only: the app built outside the workspace from the packed packages (e2e/outside-app.spec.ts). */
  outsideApp: 5181,
  /** e2e only: the same widget build served with other settings, its host page, and its API's name (e2e/runtime-config.spec.ts). */
  widgetB: 5182,
  hostB: 5183,
  apiB: 5184,
  /** `npm run bench` and `bench:peers` only: the host pages they measure (bench/hostPages.ts). */
  benchPages: 5185,
  anvil: 8545,
  /** The local Solana node (solanaNode.ts): JSON-RPC here, its WebSocket on the next port, as solana-test-validator's. */
  solana: 8899,
  solanaWs: 8900,
} as const

export const origins = {
  demo: `http://127.0.0.1:${ports.demo}`,
  /** e2e only: the demo host on another origin of the demo's site (browsers share its storage partition). */
  demoSameSite: `http://127.0.0.1:${ports.demoSameSite}`,
  /** The same demo host on another site, which the dev project does not allow. */
  evil: `http://evil.localhost:${ports.demo}`,
  widget: `http://widget.localhost:${ports.widget}`,
  secure: `http://secure.localhost:${ports.secure}`,
  api: `http://api.localhost:${ports.api}`,
  idp: `http://127.0.0.1:${ports.idp}`,
  /** e2e only: `GET /messages` lists the mail caught, as JSON. */
  mail: `http://127.0.0.1:${ports.mail}`,
} as const

/**
 * e2e: the admin token `npm start` gives the API under PORTHOLE_E2E (a dev
 * secret, not a credential of anything real); otherwise it makes a new one at
 * each start and prints the admin page with it.
 */
export const e2eAdminToken = 'porthole-e2e-admin-token-not-for-production'

/** The dev stack's client at the stand-in Google (a dev secret, not a credential of anything real). */
export const devSocialClient = {
  clientId: 'porthole-dev',
  clientSecret: 'porthole-dev-secret-not-for-production',
  redirectUri: `${origins.api}/auth/v1/social/callback`,
} as const

export const projects = {
  dev: { id: 'porthole-dev' },
  e2e: [
    /** No allowed origins: only the dev defaults (localhost, 127.0.0.1, *.localhost) pass. */
    { id: 'porthole-e2e-open', name: 'E2E empty allow list', allowedOrigins: [] as string[] },
    /** Farcaster login on (against the relay stand-in and an IdRegistry on anvil). */
    {
      id: 'porthole-e2e-farcaster',
      name: 'E2E Farcaster',
      allowedOrigins: [] as string[],
      socials: 'farcaster',
    },
    /** Two origins on one site (two ports of 127.0.0.1), both allowed: sessions per origin (SECURITY.md 9). */
    {
      id: 'porthole-e2e-same-site',
      name: 'E2E two origins on one site',
      allowedOrigins: [origins.demo, origins.demoSameSite] as string[],
      socials: 'google',
    },
    /**
     * Email login (no social login) with a shared mail budget of 20 per 10
     * minutes, for the attack on it (e2e/security/inv-22-mail-budget.spec.ts);
     * no other test uses it.
     */
    {
      id: 'porthole-e2e-mail-budget',
      name: 'E2E small mail budget',
      allowedOrigins: [] as string[],
      socials: '',
      mailBudget: 20,
    },
  ],
} as const

/**
 * e2e: the IdRegistry stand-in on anvil, deployed by dev account 9 as its first
 * transaction (so at a known address), with one fid whose custody is account 9.
 */
export const devFarcaster = {
  deployerIndex: 9,
  deployer: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
  idRegistry: getContractAddress({ from: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720', nonce: 0n }),
  fid: 20_001,
} as const

/** The local WalletConnect relay (relay.ts), the widget's default relay URL. */
export const relayUrl = `ws://127.0.0.1:${ports.relay}`

/** The dev mnemonic: anvil's dev accounts (m/44'/60'/0'/0/i) and the Solana ones (m/44'/501'/i'/0', solanaKeys.ts). */
export const devMnemonic = 'test test test test test test test test test test test junk'

/** Anvil's dev account 0, which deploys the dev token as the node's first transaction. */
export const devTokenDeployer = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' as const

/**
 * An ERC-20 on the local chain (contracts/TestToken.sol), deployed
 * by `npm start` as anvil's first transaction, so its address is known ahead.
 * Every dev account (0–9) holds 1 000 000 of it.
 */
export const devToken = {
  chainId: 'eip155:31337',
  address: getContractAddress({ from: devTokenDeployer, nonce: 0n }),
  name: 'Porthole Test Token',
  symbol: 'PTT',
  decimals: 6,
} as const

/**
 * The dev stack's prices in US dollars, made up (development and tests only):
 * anvil's ETH and the dev token. `npm start` gives them as `PRICES`; e2e
 * serves them from the price API stand-in (priceApi.ts) under these
 * CoinGecko ids, `PRICE_API_NETWORKS` mapping the local chain to them.
 */
export const devPrices = {
  chainId: 'eip155:31337',
  /** The stand-in's asset platform of the local chain, and its native coin's id. */
  platform: 'porthole-local',
  nativeId: 'ethereum',
  native: 3000,
  token: 1.25,
} as const

const devEnsDeployer = '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f' as const

/**
 * ENS on the local chain (contracts/Ens*.sol, `ens.ts`): the registry, the
 * reverse registrar, the public resolver and the UniversalResolver, deployed by
 * `npm start` as dev account 8's first four transactions (so at known
 * addresses; `@porthole/chains`' local chain names the UniversalResolver).
 * Dev account 1 is `porthole-dev.eth`: its address, its primary name (reverse
 * record) and an avatar, an SVG as a data: URI (nothing to fetch, and the
 * widget's CSP allows data: images).
 */
export const devEns = {
  deployerIndex: 8,
  deployer: devEnsDeployer,
  registry: getContractAddress({ from: devEnsDeployer, nonce: 0n }),
  reverseRegistrar: getContractAddress({ from: devEnsDeployer, nonce: 1n }),
  publicResolver: getContractAddress({ from: devEnsDeployer, nonce: 2n }),
  universalResolver: getContractAddress({ from: devEnsDeployer, nonce: 3n }),
  name: 'porthole-dev.eth',
  /** Dev account 1. */
  owner: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  avatar: `data:image/svg+xml;base64,${btoa(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">' +
      '<rect width="64" height="64" fill="#1e3a8a"/>' +
      '<circle cx="32" cy="32" r="21" fill="#7dd3fc" stroke="#e2e8f0" stroke-width="7"/>' +
      '<circle cx="25" cy="25" r="5" fill="#f8fafc"/></svg>',
  )}`,
} as const

/** The local Solana node's JSON-RPC URL, and its WebSocket's (signature and account subscriptions). */
export const solanaUrl = `http://127.0.0.1:${ports.solana}`
export const solanaWsUrl = `ws://127.0.0.1:${ports.solanaWs}`

/**
 * The local Solana node's genesis hash, fixed: base58 of SHA-256 of the text
 * `porthole solana localnet`. Its first 32 characters are the CAIP-2 reference
 * of `@porthole/chains`' `Solana.localnet` (solanaNode.test.ts checks both).
 */
export const solanaGenesisHash = 'B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD7Aa66zX8vz37'

/**
 * An SPL token on the local Solana node, as PTT is on anvil: its mint is the
 * keypair whose seed is SHA-256 of `porthole solana dev token mint`
 * (solanaKeys.ts), created at start-up with Solana dev account 0 as its mint
 * authority. Every Solana dev account (0–9) holds 1 000 000 of it.
 */
export const devSolanaToken = {
  chainId: `solana:${solanaGenesisHash.slice(0, 32)}`,
  address: 'CaCcsu1dCe8yFmhR8bgwRU1McvfheUzgeY5GYXFBbXbR',
  name: 'Porthole Test Token',
  symbol: 'PTT',
  decimals: 6,
} as const
