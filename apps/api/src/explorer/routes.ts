import { maxWalletEntries, WalletEntry, WalletId, type WalletsPage } from '@porthole/protocol/Api'
import { Hono } from 'hono'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import { type CachedBody, createTtlCache, sendCached, toCachedBody } from '../http/cache.js'
import { HttpError } from '../http/errors.js'
import { commonQuery, integerParam, optionalParam, parseInput } from '../http/request.js'
import { Caip2 } from '../http/schemas.js'
import type { ProjectCache } from '../projects/cache.js'
import { readProjectQuery } from '../projects/projects.js'

/** Page size of the wallet list (SPEC 9: 40 per page) and the most one call may ask for (100, for a search). */
export const defaultEntries = 40
export const maxEntries = maxWalletEntries
export const maxSearchLength = 100

const commaList = (item: z.core.$ZodType<string, string>, maxItems: number, maxLength: number) =>
  z
    .string()
    .max(maxLength)
    .transform((value) =>
      value
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== ''),
    )
    .pipe(z.array(item).max(maxItems))

export const GetWalletsQuery = z.strictObject({
  ...commonQuery,
  /** 1-based page number. */
  page: integerParam('page', 1, 100_000, 1),
  entries: integerParam('entries', 1, maxEntries, defaultEntries),
  /** Case-insensitive substring of the wallet name; any length. */
  search: optionalParam(z.string().max(maxSearchLength)),
  /** `certified` keeps certified wallets only; `none` does not filter. */
  badge_type: optionalParam(z.enum(['none', 'certified'])),
  /** Comma-separated wallet ids: only these. */
  include: optionalParam(commaList(WalletId, 500, 65 * 500)),
  /** Comma-separated wallet ids: all but these. */
  exclude: optionalParam(commaList(WalletId, 500, 65 * 500)),
  /** Comma-separated CAIP-2 chain ids: wallets supporting any of them. */
  chains: optionalParam(commaList(Caip2, 100, 4_000)),
})

const ImageQuery = z.strictObject(commonQuery)

/** Ids of the images with no data yet (assets, currencies, tokens): bounded, URL-safe. */
const OtherImageId = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be a short id')

export const imageCacheControl = 'public, max-age=86400'

/**
 * How long a page of the wallet list is served from memory. The registry
 * changes when the API is deployed (the seed), not while it runs.
 */
export const walletsTtlMs = 60_000
/** Most pages kept (each at most `maxEntries` rows, a few tens of KB). */
export const maxCachedWalletPages = 256
/** `Cache-Control` of a page of the wallet list: the same registry for every project. */
export const walletsCacheControl = 'public, max-age=300, stale-while-revalidate=3600'

/** A search's answer: the visitor's own (its URL carries their client id), so never a shared cache's. */
export const searchCacheControl = 'private, max-age=300'

/** The wallet explorer: `GET /getWallets`, `GET /getWalletImage/:id` and the other image paths. */
export function createExplorerRoutes({
  db,
  projects,
  now,
}: {
  db: Db
  projects: ProjectCache
  /** The clock of the pages kept in memory (ms); `performance.now` by default. */
  now?: (() => number) | undefined
}): Hono {
  const app = new Hono()
  const pages = createTtlCache<CachedBody>({
    ttlMs: walletsTtlMs,
    maxEntries: maxCachedWalletPages,
    now,
  })

  app.get('/getWallets', async (c) => {
    const { cached, query } = await projects.read(c, GetWalletsQuery)
    const { page, entries, search, badge_type, include, exclude, chains } = query
    // Every parameter that shapes the page, the project too (never one project's page for another).
    const key = JSON.stringify([
      cached.project.id,
      page,
      entries,
      search ?? null,
      badge_type ?? null,
      include ?? null,
      exclude ?? null,
      chains ?? null,
    ])
    const body = await pages.get(key, async () => toCachedBody(await findWallets(db, query)))
    if (body === undefined) throw new Error('A wallet page loaded as nothing')
    return sendCached(c, body, search === undefined ? walletsCacheControl : searchCacheControl)
  })

  app.get('/getWalletImage/:id', async (c) => {
    await readProjectQuery(c, db, ImageQuery)
    const id = parseInput(WalletId, c.req.param('id'), 'path')
    const [image] = await db.query<{ content_type: string; bytes: Uint8Array; sha256: string }>(
      'SELECT content_type, bytes, sha256 FROM wallet_images WHERE id = $1',
      [id],
    )
    if (!image) throw new HttpError(404, 'not_found', `No wallet image with id '${id}'`)
    const etag = `"${image.sha256}"`
    c.header('Cache-Control', imageCacheControl)
    c.header('ETag', etag)
    if (c.req.header('if-none-match') === etag) return c.body(null, 304)
    c.header('Content-Type', image.content_type)
    return c.body(new Uint8Array(image.bytes))
  })

  for (const [path, what] of [
    ['/public/getAssetImage/:id', 'asset'],
    ['/public/getCurrencyImage/:id', 'currency'],
    ['/public/getTokenImage/:id', 'token'],
  ] as const) {
    app.get(path, async (c) => {
      await readProjectQuery(c, db, ImageQuery)
      const id = parseInput(OtherImageId, c.req.param('id'), 'path')
      throw new HttpError(
        404,
        'not_found',
        `No ${what} image with id '${id}': this server has no ${what} images yet`,
      )
    })
  }

  return app
}

/** The wallets matching `query`, in recommended order (for a search: exact name, then prefix, then the rest). */
export async function findWallets(
  db: Db,
  query: z.infer<typeof GetWalletsQuery>,
): Promise<WalletsPage> {
  const params: unknown[] = []
  const param = (value: unknown) => {
    params.push(value)
    return `$${params.length}`
  }
  const where: string[] = []
  const search = query.search?.trim() ?? ''
  const escaped = search.replace(/[\\%_]/g, (char) => `\\${char}`)
  if (search !== '') where.push(`name ILIKE ${param(`%${escaped}%`)}`)
  if (query.badge_type === 'certified') where.push(`badge_type = 'certified'`)
  if (query.include && query.include.length > 0) {
    where.push(`id = ANY(${param(query.include)}::text[])`)
  }
  if (query.exclude && query.exclude.length > 0) {
    where.push(`NOT (id = ANY(${param(query.exclude)}::text[]))`)
  }
  if (query.chains && query.chains.length > 0) {
    where.push(`chains && ${param(query.chains)}::text[]`)
  }
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''
  const [total] = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM wallets ${whereSql}`,
    [...params],
  )
  const order: string[] = []
  if (search !== '') {
    order.push(`lower(name) = lower(${param(search)}) DESC`)
    order.push(`name ILIKE ${param(`${escaped}%`)} DESC`)
  }
  order.push('position', 'id')
  const rows = await db.query(
    `SELECT id, name, image_id, rdns, chains, homepage, mobile_link, desktop_link, webapp_link, badge_type
     FROM wallets ${whereSql}
     ORDER BY ${order.join(', ')}
     LIMIT ${param(query.entries)} OFFSET ${param((query.page - 1) * query.entries)}`,
    params,
  )
  return {
    count: Number(total?.count ?? 0),
    // Each row as the widget will parse it: a row it would refuse is an error here (500), not there.
    data: rows.map((row) => WalletEntry.parse(row)),
  }
}
