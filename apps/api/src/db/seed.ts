import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import type { Config } from '../config.js'
import { type Features, WalletId } from '../schemas.js'
import type { Db } from './db.js'

/** The public WalletConnect v1 registry shipped in `apps/api/data/wallet-registry/`. */
export const walletRegistryDir = fileURLToPath(
  new URL('../../data/wallet-registry/', import.meta.url),
)

export const devProjectName = 'Porthole dev'

/** The demo host page, on both loopback names. */
export const devProjectOrigins = ['http://127.0.0.1:5170', 'http://localhost:5170']

/** Embedded login features are turned on once they work. */
export const devProjectFeatures: Features = {
  email: false,
  socials: [],
  onramp: false,
  swaps: false,
  history: false,
  analytics: true,
}

const Link = z.string().max(2048)

/** One entry of `wallets.json` (v1 format; fields the API does not use are ignored). */
const RegistryWallet = z.object({
  id: WalletId,
  name: z.string().min(1).max(200),
  homepage: Link,
  chains: z.array(z.string().max(64)),
  app: z.object({ browser: Link }),
  mobile: z.object({ native: Link, universal: Link }),
  desktop: z.object({ native: Link, universal: Link }),
})

const Registry = z.record(WalletId, RegistryWallet)

/** Reads the registry: wallets in the JSON's order (the recommended order). */
export async function readWalletRegistry(dir: string = walletRegistryDir) {
  const registry = Registry.parse(JSON.parse(await readFile(`${dir}/wallets.json`, 'utf8')))
  const orNull = (...values: string[]) => values.find((value) => value !== '') ?? null
  return Object.entries(registry).map(([key, wallet], position) => {
    if (key !== wallet.id) throw new Error(`wallets.json: key ${key} does not match its id`)
    return {
      id: wallet.id,
      position,
      name: wallet.name,
      imageId: wallet.id,
      chains: wallet.chains,
      mobileLink: orNull(wallet.mobile.native, wallet.mobile.universal),
      desktopLink: orNull(wallet.desktop.native, wallet.desktop.universal),
      webappLink: orNull(wallet.app.browser),
      homepage: orNull(wallet.homepage),
    }
  })
}

/**
 * Seeds the development project and the wallet registry. Idempotent: rows are
 * upserted, so running it at every start-up is safe. The dev project is reset
 * to these values each time; create your own project for other settings.
 */
export async function seed(
  db: Db,
  config: Pick<Config, 'devProjectId'>,
  options: { registryDir?: string } = {},
): Promise<void> {
  const registryDir = options.registryDir ?? walletRegistryDir
  const wallets = await readWalletRegistry(registryDir)
  const images = await Promise.all(
    wallets.map(async (wallet) => {
      const bytes = await readFile(`${registryDir}/logo/${wallet.imageId}.jpeg`)
      return {
        id: wallet.imageId,
        bytes,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      }
    }),
  )
  await db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO projects (id, name, allowed_origins, features)
       VALUES ($1, $2, $3::jsonb, $4::jsonb)
       ON CONFLICT (id) DO UPDATE SET
         name = excluded.name,
         allowed_origins = excluded.allowed_origins,
         features = excluded.features,
         updated_at = now()`,
      [
        config.devProjectId,
        devProjectName,
        JSON.stringify(devProjectOrigins),
        JSON.stringify(devProjectFeatures),
      ],
    )
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
         VALUES ($1, $2, $3, $4, NULL, $5::text[], $6, $7, $8, $9, NULL)
         ON CONFLICT (id) DO UPDATE SET
           position = excluded.position, name = excluded.name, image_id = excluded.image_id,
           chains = excluded.chains, mobile_link = excluded.mobile_link,
           desktop_link = excluded.desktop_link, webapp_link = excluded.webapp_link,
           homepage = excluded.homepage`,
        [
          wallet.id,
          wallet.position,
          wallet.name,
          wallet.imageId,
          wallet.chains,
          wallet.mobileLink,
          wallet.desktopLink,
          wallet.webappLink,
          wallet.homepage,
        ],
      )
    }
  })
}
