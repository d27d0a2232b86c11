/**
 * The wallet explorer: `GET /getWallets` and wallet images, and the TanStack
 * Query options the views share (so start-up can prefetch what Connect shows).
 */
import {
  imagePreloadTimeout,
  recommendedWalletsCount,
  walletsPerPage,
  walletsSearchEntries,
  walletsSearchMinLength,
  walletsSearchMinWait,
} from '@porthole/protocol/Constants'
import { z } from '@porthole/protocol/zod'
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query'
import { type Api, api as defaultApi } from './api.js'
import { projectId } from './env.js'
import { withMinimumWait } from './timing.js'

const text = z.string().max(2048)

export const WalletEntry = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{64}$/),
  name: z.string().min(1).max(200),
  image_id: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,128}$/)
    .nullable(),
  rdns: text.nullable(),
  chains: z.array(z.string().max(64)).max(200),
  homepage: text.nullable(),
  mobile_link: text.nullable(),
  desktop_link: text.nullable(),
  webapp_link: text.nullable(),
  badge_type: z.string().max(64).nullable(),
})
export type WalletEntry = z.infer<typeof WalletEntry>

export const WalletsPage = z.strictObject({
  count: z.number().int().min(0),
  data: z.array(WalletEntry).max(walletsSearchEntries),
})
export type WalletsPage = z.infer<typeof WalletsPage>

export type GetWalletsParameters = {
  page: number
  entries: number
  search?: string | undefined
}

export type ExplorerOptions = {
  api?: Api | undefined
  projectId?: string | null | undefined
  signal?: AbortSignal | undefined
}

export async function getWallets(
  parameters: GetWalletsParameters,
  options: ExplorerOptions = {},
): Promise<WalletsPage> {
  const { api = defaultApi, signal } = options
  const body = await api.get('/getWallets', {
    params: { projectId: options.projectId ?? projectId, ...parameters },
    signal,
  })
  return WalletsPage.parse(body)
}

/** A search: up to 100 results, shown no sooner than 300 ms after it starts. */
export function searchWallets(search: string, options: ExplorerOptions = {}): Promise<WalletsPage> {
  return withMinimumWait(
    getWallets({ page: 1, entries: walletsSearchEntries, search }, options),
    walletsSearchMinWait,
  )
}

export function walletImageUrl(imageId: string, api: Api = defaultApi): string {
  return api.url(`/getWalletImage/${encodeURIComponent(imageId)}`, { projectId })
}

/** The number of wallets loaded so far, and whether another page exists. */
export function nextPage(pages: readonly WalletsPage[]): number | undefined {
  const last = pages.at(-1)
  if (!last || last.data.length === 0) return undefined
  const loaded = pages.reduce((total, page) => total + page.data.length, 0)
  return loaded < last.count ? pages.length + 1 : undefined
}

export const recommendedWalletsQuery = queryOptions({
  queryKey: ['wallets', 'recommended'],
  queryFn: ({ signal }) => getWallets({ page: 1, entries: recommendedWalletsCount }, { signal }),
})

export const allWalletsQuery = infiniteQueryOptions({
  queryKey: ['wallets', 'all'],
  queryFn: ({ pageParam, signal }) =>
    getWallets({ page: pageParam, entries: walletsPerPage }, { signal }),
  initialPageParam: 1,
  getNextPageParam: (_last, pages) => nextPage(pages),
})

export const walletSearchQuery = (search: string) =>
  queryOptions({
    queryKey: ['wallets', 'search', search],
    queryFn: ({ signal }) => searchWallets(search, { signal }),
  })

export type ImageStatus = 'loading' | 'loaded' | 'failed'

/** What each image URL came to, so a view rendered later shows it at once. */
export const imageStatus = new Map<string, ImageStatus>()

/**
 * Loads an image ahead of its view, giving up after the 2 s preload timeout
 * (the view then shows the fallback until the image arrives).
 */
export function preloadImage(url: string): Promise<ImageStatus> {
  const known = imageStatus.get(url)
  if (known === 'loaded' || known === 'failed') return Promise.resolve(known)
  imageStatus.set(url, 'loading')
  return new Promise((resolve) => {
    const image = new Image()
    const timer = setTimeout(() => resolve('loading'), imagePreloadTimeout)
    const settle = (status: ImageStatus) => () => {
      clearTimeout(timer)
      imageStatus.set(url, status)
      resolve(status)
    }
    image.onload = settle('loaded')
    image.onerror = settle('failed')
    image.src = url
  })
}

/** The search an input asks for: its trimmed text from 2 characters, else '' (no search). */
export function searchTerm(input: string): string {
  const term = input.trim()
  return term.length >= walletsSearchMinLength ? term : ''
}
