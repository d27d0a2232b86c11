import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Solana } from '@porthole/chains'
import * as Api from '@porthole/protocol/Api'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import { apiRoot, type Config } from '../http/config.js'
import { RegistryError } from '../http/errors.js'
import { defaultFeatures } from '../http/schemas.js'
import { parseNetworks } from './networks.js'

/** The public WalletConnect v1 registry shipped in `apps/api/data/wallet-registry/`. */
export const walletRegistryDir = join(apiRoot, 'data', 'wallet-registry')

export const devProjectName = 'Porthole dev'

/** The dev stack's demo host page, on both loopback names (`seed.test.ts` checks it against `@porthole/dev-stack`). */
export const devProjectOrigins = ['http://127.0.0.1:5170', 'http://localhost:5170']

/**
 * The dev project offers email login and "Google" (under `npm start`, the local
 * OIDC stand-in) and Activity (the local chain is indexed), on top of a new
 * project's defaults.
 */
export const devProjectFeatures = {
  ...defaultFeatures,
  email: true,
  socials: ['google'],
  history: true,
} satisfies typeof defaultFeatures

/**
 * The local anvil chain first (the default), then Ethereum, Sepolia and Base;
 * then Solana, its local node first (Solana Local), then Solana and Solana Devnet.
 */
export const devProjectNetworks = [
  'eip155:31337',
  'eip155:1',
  'eip155:11155111',
  'eip155:8453',
  Solana.localnet.caipNetworkId,
  Solana.mainnet.caipNetworkId,
  Solana.devnet.caipNetworkId,
]

/**
 * The EIP-6963 rdns of registry wallets, keyed by registry id: the v1 registry
 * has none, and without it the widget cannot tell a registry wallet from the
 * same wallet installed in the browser. Only wallets in `wallets.json`; the
 * rest of the registry keeps `rdns: null`.
 */
export const registryRdns: Readonly<Record<string, string>> = {
  // MetaMask
  c57ca95b47569778a828d19178114f4db188b89b763c899ba0be274e97267d96: 'io.metamask',
  // Rainbow
  '1ae92b26df02f0abca6304df07debccd18262fdf5fe82daa81593582dac9a369': 'me.rainbow',
  // Trust Wallet
  '4622a2b2d6af1c9844944291e5e7351a6aa24cd7b23099efac1b2fd875da31a0': 'com.trustwallet.app',
  // Rabby
  fbc8d86ad914ebd733fec4812b4b7af5ca709fdd9e75a930115e5baa02c4ef4c: 'io.rabby',
  // Ledger Live
  '4ab2542c2799c825a8465ba5ab8aa7def52b7904f38b74484af917ed9c0fc4e5': 'com.ledger',
}

/**
 * One entry of `wallets.json` (v1 format; fields the API does not use are
 * ignored). Bounds are checked on the entry it becomes (`Api.WalletEntry`).
 */
const RegistryWallet = z.object({
  id: Api.WalletId,
  name: z.string(),
  homepage: z.string(),
  chains: z.array(z.string()),
  app: z.object({ browser: z.string() }),
  mobile: z.object({ native: z.string(), universal: z.string() }),
  desktop: z.object({ native: z.string(), universal: z.string() }),
})

const Registry = z.record(Api.WalletId, RegistryWallet)

export type RegistryEntry = Api.WalletEntry & {
  /** The logo, `logo/<image_id>.jpeg`: every registry wallet has one. */
  image_id: string
  /** Rank in the registry: the recommended order. */
  position: number
}

/**
 * Reads the registry: wallets in the JSON's order (the recommended order), each
 * as `GET /getWallets` will serve it, with its rdns from `registryRdns`. Every entry must satisfy the widget's
 * schema (`Api.WalletEntry`): a registry update that breaks it (an empty or
 * over-long name, too many chains) fails here, at seed time, naming the wallet.
 */
export async function readWalletRegistry(
  dir: string = walletRegistryDir,
): Promise<RegistryEntry[]> {
  const registry = Registry.parse(JSON.parse(await readFile(`${dir}/wallets.json`, 'utf8')))
  const orNull = (...values: string[]) => values.find((value) => value !== '') ?? null
  return Object.entries(registry).map(([key, wallet], position) => {
    if (key !== wallet.id) throw new RegistryError(`wallets.json: key ${key} does not match its id`)
    const entry = Api.WalletEntry.safeParse({
      id: wallet.id,
      name: wallet.name,
      image_id: wallet.id,
      rdns: registryRdns[wallet.id] ?? null,
      chains: wallet.chains,
      homepage: orNull(wallet.homepage),
      mobile_link: orNull(wallet.mobile.native, wallet.mobile.universal),
      desktop_link: orNull(wallet.desktop.native, wallet.desktop.universal),
      webapp_link: orNull(wallet.app.browser),
      badge_type: null,
    } satisfies Api.WalletEntry)
    if (!entry.success) {
      throw new RegistryError(`wallets.json: wallet ${wallet.id} does not fit Api.WalletEntry`, {
        details: entry.error.issues
          .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
          .join('; '),
      })
    }
    return { ...entry.data, image_id: wallet.id, position }
  })
}

/**
 * Seeds the wallet registry and, unless `seedDevProject` is false, the
 * development project. Idempotent: rows are upserted, so running it at every
 * start-up is safe. The dev project is reset to these values each time; create
 * your own project for other settings. Production turns `seedDevProject` off:
 * the dev project allows the demo's localhost origins.
 */
export async function seed(
  db: Db,
  config: Pick<Config, 'devProjectId' | 'seedDevProject'>,
  options: { registryDir?: string } = {},
): Promise<void> {
  const registryDir = options.registryDir ?? walletRegistryDir
  const wallets = await readWalletRegistry(registryDir)
  const images = await Promise.all(
    wallets.map(async (wallet) => {
      const bytes = await readFile(`${registryDir}/logo/${wallet.image_id}.jpeg`)
      return {
        id: wallet.image_id,
        bytes,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      }
    }),
  )
  await db.transaction(async (tx) => {
    if (config.seedDevProject) {
      await tx.query(
        `INSERT INTO projects (id, name, allowed_origins, features, networks)
         VALUES ($1, $2, $3::jsonb, $4::jsonb, $5::jsonb)
         ON CONFLICT (id) DO UPDATE SET
           name = excluded.name,
           allowed_origins = excluded.allowed_origins,
           features = excluded.features,
           networks = excluded.networks,
           updated_at = now()`,
        [
          config.devProjectId,
          devProjectName,
          JSON.stringify(devProjectOrigins),
          JSON.stringify(devProjectFeatures),
          JSON.stringify(parseNetworks(devProjectNetworks)),
        ],
      )
    }
    // Images: only those missing or changed are written.
    const stored = await tx.query<{ id: string; sha256: string }>(
      'SELECT id, sha256 FROM wallet_images',
    )
    const known = new Map(stored.map((row) => [row.id, row.sha256]))
    for (const image of images) {
      if (known.get(image.id) === image.sha256) continue
      await tx.query(
        `INSERT INTO wallet_images (id, content_type, bytes, sha256)
         VALUES ($1, 'image/jpeg', $2, $3)
         ON CONFLICT (id) DO UPDATE SET
           content_type = excluded.content_type, bytes = excluded.bytes, sha256 = excluded.sha256`,
        [image.id, image.bytes, image.sha256],
      )
    }
    for (const wallet of wallets) {
      await tx.query(
        `INSERT INTO wallets
           (id, position, name, image_id, rdns, chains, mobile_link, desktop_link, webapp_link, homepage, badge_type)
         VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8, $9, $10, $11)
         ON CONFLICT (id) DO UPDATE SET
           position = excluded.position, name = excluded.name, image_id = excluded.image_id,
           rdns = excluded.rdns, chains = excluded.chains, mobile_link = excluded.mobile_link,
           desktop_link = excluded.desktop_link, webapp_link = excluded.webapp_link,
           homepage = excluded.homepage, badge_type = excluded.badge_type`,
        [
          wallet.id,
          wallet.position,
          wallet.name,
          wallet.image_id,
          wallet.rdns,
          wallet.chains,
          wallet.mobile_link,
          wallet.desktop_link,
          wallet.webapp_link,
          wallet.homepage,
          wallet.badge_type,
        ],
      )
    }
  })
}
