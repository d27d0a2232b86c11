/**
 * The wallet explorer: `GET /getWallets` and wallet images, and the TanStack
 * Query options the views share (so start-up can prefetch what Connect shows).
 */
import { WalletsPage } from '@porthole/protocol/Api'
import {
  imagePreloadTimeout,
  recommendedWalletsCount,
  walletsPerPage,
  walletsSearchEntries,
  walletsSearchMinLength,
  walletsSearchMinWait,
} from '@porthole/protocol/Constants'
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query'
import { apiUrl, projectId } from '../env.js'
import { takeArrived, walletsGet } from '../startup.js'
import { withMinimumWait } from '../timing.js'
import { type Api, api as defaultApi } from './api.js'
import { createCache } from './cache.js'

export { sdkType, sdkVersion } from '../startup.js'

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
  const { path, params } = walletsGet(options.projectId ?? projectId, parameters)
  const body = await api.get(path, {
    params,
    signal,
    // A search's answer is the visitor's own; a page's is everyone's.
    shared: parameters.search === undefined,
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

/** The recommended wallets a returning visitor's Connect paints from, while start-up fetches them again. */
export const recommendedWalletsCache = createCache('recommended', projectId, (value) =>
  WalletsPage.parse(value),
)

const kept = recommendedWalletsCache.read()

/**
 * The recommended wallets if the prefetch script has them already (then kept
 * for the next visit), else `undefined`: start-up fetches them.
 */
export function arrivedRecommendedWallets(): WalletsPage | undefined {
  const get = walletsGet(projectId, { page: 1, entries: recommendedWalletsCount })
  const page = takeArrived(apiUrl, get, (body) => WalletsPage.parse(body))
  return page && recommendedWalletsCache.write(page)
}

export const recommendedWalletsQuery = queryOptions({
  queryKey: ['wallets', 'recommended'],
  queryFn: async ({ signal }) =>
    recommendedWalletsCache.write(
      await getWallets({ page: 1, entries: recommendedWalletsCount }, { signal }),
    ),
  initialData: kept?.data,
  initialDataUpdatedAt: kept?.at,
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

/**
 * The search whose results to show, given what the box holds (`input`) and
 * its debounced value: '' (no search) at once when the box asks for none;
 * the box's term once the debounced value asks for that same term; otherwise
 * `undefined`, still debouncing. Results never belong to a term the box does
 * not show (an older debounced value is never used for a newer input).
 */
export function shownSearch(input: string, debounced: string): string | undefined {
  const term = searchTerm(input)
  if (term === '') return ''
  return searchTerm(debounced) === term ? term : undefined
}
