/**
 * Token prices in US dollars, behind one interface (`PriceSource`): a static
 * table from `PRICES`, and an adapter for a price API of CoinGecko's public
 * shape (`PRICE_API_URL`). A price either source has not got is absent:
 * an error, a timeout, a malformed or oversized answer is no price (and a
 * warning), never a guess.
 */
import { z } from 'zod'
import { createTtlCache } from '../http/cache.js'
import type { Config, PriceNetworks, PriceTable } from '../http/config.js'
import { readLimited } from '../http/readLimited.js'

/** One network's prices: its native coin's, and its tokens' by address as asked. */
export type ChainPrices = { native?: number; tokens: Record<string, number> }

export type PriceSource = {
  /**
   * The prices of `chainId`'s native coin and of `tokens` (addresses as the
   * caller lists them). What the source has no price for is left out. Never
   * throws.
   */
  prices(chainId: string, tokens: readonly string[]): Promise<ChainPrices>
}

/** EVM addresses compare without case (CoinGecko answers them lower-case); SPL mints with it. */
const keyOf = (chainId: string, address: string) =>
  chainId.startsWith('eip155:') ? address.toLowerCase() : address

/** `tokens`' prices found in `byKey` (keys as `keyOf` makes them), under the caller's spelling. */
function pick(
  chainId: string,
  tokens: readonly string[],
  byKey: ReadonlyMap<string, number>,
): Record<string, number> {
  const found: Record<string, number> = {}
  for (const address of tokens) {
    const price = byKey.get(keyOf(chainId, address))
    if (price !== undefined) found[address] = price
  }
  return found
}

/** The static table of `PRICES`. */
export function createStaticPrices(table: PriceTable): PriceSource {
  return {
    async prices(chainId, tokens) {
      const chain = Object.hasOwn(table, chainId) ? table[chainId] : undefined
      if (!chain) return { tokens: {} }
      const byKey = new Map(
        Object.entries(chain.tokens).map(([address, price]) => [keyOf(chainId, address), price]),
      )
      return {
        ...(chain.native === undefined ? {} : { native: chain.native }),
        tokens: pick(chainId, tokens, byKey),
      }
    },
  }
}

/** Each price from the first source that has it: a later source is asked only for the rest. */
export function firstPrices(sources: readonly PriceSource[]): PriceSource {
  return {
    async prices(chainId, tokens) {
      const result: ChainPrices = { tokens: {} }
      for (const source of sources) {
        const missing = tokens.filter((address) => !Object.hasOwn(result.tokens, address))
        if (result.native !== undefined && missing.length === 0) break
        const found = await source.prices(chainId, missing)
        if (result.native === undefined && found.native !== undefined) result.native = found.native
        for (const address of missing) {
          const price = found.tokens[address]
          if (Object.hasOwn(found.tokens, address) && price !== undefined)
            result.tokens[address] = price
        }
      }
      return result
    },
  }
}

/** How long the API waits for the price API. */
export const priceTimeoutMs = 3_000
/** The largest answer of the price API read (100 tokens' prices take a few KB). */
export const maxPriceAnswerBytes = 64 * 1024
/** How long a network's prices are kept (CoinGecko's public API updates them every 60 s). */
export const pricesTtlMs = 60_000
/** Most networks' prices kept. */
export const maxCachedPrices = 256

/**
 * The answer of `/simple/price` and `/simple/token_price/{platform}`: coin id
 * or contract address → currency → price. Other fields are ignored; `usd`
 * may be absent or null (no price).
 */
const CoinGeckoAnswer = z.record(z.string().max(128), z.object({ usd: z.number().nullish() }))

export type CoinGeckoOptions = {
  /** The API's base, without a trailing slash, e.g. `https://api.coingecko.com/api/v3`. */
  url: string
  /** Sent as `x-cg-pro-api-key` to pro-api.coingecko.com, `x-cg-demo-api-key` elsewhere. */
  key?: string | undefined
  /** Each chain's asset platform and native coin ids; a chain not named is not asked about. */
  networks: PriceNetworks
  /** Where warnings go (an upstream's failure): the server logs them. */
  warn?: ((line: string) => void) | undefined
  fetch?: typeof fetch | undefined
  timeoutMs?: number | undefined
  maxAnswerBytes?: number | undefined
  ttlMs?: number | undefined
  /** The cache's clock (ms); `performance.now` by default. */
  now?: (() => number) | undefined
}

/**
 * A price API of CoinGecko's shape: `GET {url}/simple/token_price/{platform}
 * ?contract_addresses=…&vs_currencies=usd` for tokens, `GET {url}/simple/price
 * ?ids=…&vs_currencies=usd` for the native coin. A network's answer is kept
 * `ttlMs` (a failed one too, so a failing upstream is asked at most twice a
 * TTL per network, not once per visitor).
 */
export function createCoinGeckoPrices({
  url,
  key,
  networks,
  warn = () => {},
  fetch: fetchFn = fetch,
  timeoutMs = priceTimeoutMs,
  maxAnswerBytes = maxPriceAnswerBytes,
  ttlMs = pricesTtlMs,
  now,
}: CoinGeckoOptions): PriceSource {
  const cache = createTtlCache<ChainPrices>({ ttlMs, maxEntries: maxCachedPrices, now })
  const headers: Record<string, string> = { accept: 'application/json' }
  if (key !== undefined)
    headers[
      new URL(url).hostname === 'pro-api.coingecko.com' ? 'x-cg-pro-api-key' : 'x-cg-demo-api-key'
    ] = key

  /** Id or address → USD price, from one GET; undefined when it failed (warned). */
  const ask = async (chainId: string, path: string, query: Record<string, string>) => {
    const target = `${url}${path}?${new URLSearchParams({ ...query, vs_currencies: 'usd' })}`
    const failed = (why: string) => {
      warn(`Prices for ${chainId}: GET ${url}${path} ${why}; no prices shown`)
      return undefined
    }
    try {
      const response = await fetchFn(target, {
        headers,
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      })
      if (!response.ok) {
        await response.body?.cancel().catch(() => {})
        return failed(`answered ${response.status}`)
      }
      const read = await readLimited(response, maxAnswerBytes)
      if (read.kind === 'too-large') return failed(`answered more than ${maxAnswerBytes} bytes`)
      let json: unknown
      try {
        json = JSON.parse(read.text)
      } catch {
        return failed('answered no JSON')
      }
      const parsed = CoinGeckoAnswer.safeParse(json)
      if (!parsed.success) return failed('answered an unexpected shape')
      const prices = new Map<string, number>()
      for (const [id, { usd }] of Object.entries(parsed.data))
        if (typeof usd === 'number' && usd > 0 && Number.isFinite(usd))
          prices.set(keyOf(chainId, id), usd)
      return prices
    } catch (error) {
      const name = (error as { name?: string }).name
      return failed(name === 'TimeoutError' ? `took over ${timeoutMs} ms` : 'failed')
    }
  }

  /** `keys` (as `keyOf` makes them) → their prices, keyed the same. */
  const load = async (chainId: string, keys: readonly string[]): Promise<ChainPrices> => {
    const network = Object.hasOwn(networks, chainId) ? networks[chainId] : undefined
    const { platform, native } = network ?? {}
    const [tokenPrices, nativePrices] = await Promise.all([
      platform !== undefined && keys.length > 0
        ? ask(chainId, `/simple/token_price/${platform}`, { contract_addresses: keys.join(',') })
        : undefined,
      native !== undefined ? ask(chainId, '/simple/price', { ids: native }) : undefined,
    ])
    const nativePrice = native === undefined ? undefined : nativePrices?.get(native)
    return {
      ...(nativePrice === undefined ? {} : { native: nativePrice }),
      tokens: tokenPrices ? pick(chainId, keys, tokenPrices) : {},
    }
  }

  return {
    async prices(chainId, tokens) {
      if (!Object.hasOwn(networks, chainId)) return { tokens: {} }
      const keys = [...new Set(tokens.map((address) => keyOf(chainId, address)))].sort()
      const found = await cache.get(JSON.stringify([chainId, keys]), () => load(chainId, keys))
      return {
        ...(found?.native === undefined ? {} : { native: found.native }),
        tokens: pick(chainId, tokens, new Map(Object.entries(found?.tokens ?? {}))),
      }
    },
  }
}

/** The deployment's prices: `PRICES` first, then the price API when `PRICE_API_URL` is set. */
export function priceSourceOf(
  config: Pick<Config, 'priceTable' | 'priceApi' | 'priceNetworks'>,
  options: Pick<CoinGeckoOptions, 'warn' | 'fetch' | 'now'> = {},
): PriceSource {
  const sources = [createStaticPrices(config.priceTable)]
  if (config.priceApi)
    sources.push(
      createCoinGeckoPrices({
        url: config.priceApi.url,
        key: config.priceApi.key,
        networks: config.priceNetworks,
        ...options,
      }),
    )
  return firstPrices(sources)
}
