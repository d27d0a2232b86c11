/**
 * A stand-in for CoinGecko's public price API (https://api.coingecko.com/api/v3),
 * speaking the two endpoints of its shape the API's price adapter uses, over
 * a real socket on http://127.0.0.1:<port> (a free port unless told):
 *
 * - `GET /simple/token_price/{platform}?contract_addresses=a,b&vs_currencies=usd`
 *   → `{ "<address>": { "usd": 1.0 } }`: each address it has a price for
 *   (EVM addresses lower-case, as CoinGecko answers them); an unknown
 *   address is left out; an unknown platform is 404 `{ error }`.
 * - `GET /simple/price?ids=a,b&vs_currencies=usd` → `{ "<id>": { "usd": 3000 } }`,
 *   an unknown id left out.
 *
 * Only `usd` is priced (another currency is answered `{}` per coin). A
 * missing parameter is 400 `{ error }`. For the adapter's tests, `misbehave`
 * makes every answer slow (never sent), malformed (not JSON), wrongly shaped,
 * huge, or a 500.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** What the stand-in prices: platform → address → US dollars, and coin id → US dollars. */
export type PriceBook = {
  tokens: Record<string, Record<string, number>>
  coins: Record<string, number>
}

export type Misbehaviour = 'none' | 'slow' | 'not-json' | 'wrong-shape' | 'huge' | 'error'

export type CreatePriceApiOptions = {
  /** Defaults to a free port. */
  port?: number
  prices: PriceBook
}

export type PriceApiStandIn = {
  /** `http://127.0.0.1:<port>`: what `PRICE_API_URL` names. */
  readonly url: string
  readonly port: number
  /** The prices served; change them at will. */
  readonly prices: PriceBook
  /** Every request served: path, query and the API key header it carried, oldest first. */
  readonly requests: readonly { path: string; query: string; apiKey: string | undefined }[]
  misbehave(how: Misbehaviour): void
  close(): Promise<void>
}

/** A huge answer's size: more than any sane bound of a price answer. */
export const hugeAnswerBytes = 1024 * 1024

const listOf = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')

/** Answers' keys as CoinGecko writes them: EVM addresses lower-case, the rest as asked. */
const answerKey = (address: string) => (address.startsWith('0x') ? address.toLowerCase() : address)

export async function createPriceApi(options: CreatePriceApiOptions): Promise<PriceApiStandIn> {
  const { port = 0, prices } = options
  const requests: { path: string; query: string; apiKey: string | undefined }[] = []
  let misbehaviour: Misbehaviour = 'none'

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://prices')
    const key = request.headers['x-cg-demo-api-key'] ?? request.headers['x-cg-pro-api-key']
    requests.push({
      path: url.pathname,
      query: url.search,
      apiKey: typeof key === 'string' ? key : undefined,
    })
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(body))
    }
    if (misbehaviour === 'slow') return // Never answered; closed with the server.
    if (misbehaviour === 'error') return send(500, { error: 'Internal Server Error' })
    if (misbehaviour === 'not-json') {
      response.writeHead(200, { 'content-type': 'text/html' })
      return response.end('<html>rate limited</html>')
    }
    if (misbehaviour === 'wrong-shape') return send(200, { prices: [1, 2, 3] })
    if (misbehaviour === 'huge') {
      response.writeHead(200, { 'content-type': 'application/json' })
      return response.end(`{"padding":"${'x'.repeat(hugeAnswerBytes)}"}`)
    }
    if (request.method !== 'GET') return send(405, { error: 'Method not allowed' })
    const currencies = listOf(url.searchParams.get('vs_currencies'))
    if (currencies.length === 0) return send(400, { error: 'Missing parameter vs_currencies' })
    const priced = (usd: number | undefined) =>
      usd === undefined ? undefined : currencies.includes('usd') ? { usd } : {}

    const platform = /^\/simple\/token_price\/([^/]+)$/.exec(url.pathname)?.[1]
    if (platform !== undefined) {
      const addresses = listOf(url.searchParams.get('contract_addresses'))
      if (addresses.length === 0)
        return send(400, { error: 'Missing parameter contract_addresses' })
      const book = Object.hasOwn(prices.tokens, platform) ? prices.tokens[platform] : undefined
      if (book === undefined) return send(404, { error: 'asset platform not found' })
      const byKey = new Map(Object.entries(book).map(([address, usd]) => [answerKey(address), usd]))
      const answer: Record<string, unknown> = {}
      for (const address of addresses) {
        const price = priced(byKey.get(answerKey(address)))
        if (price !== undefined) answer[answerKey(address)] = price
      }
      return send(200, answer)
    }
    if (url.pathname === '/simple/price') {
      const ids = listOf(url.searchParams.get('ids'))
      if (ids.length === 0) return send(400, { error: 'Missing parameter ids' })
      const answer: Record<string, unknown> = {}
      for (const id of ids) {
        const price = priced(Object.hasOwn(prices.coins, id) ? prices.coins[id] : undefined)
        if (price !== undefined) answer[id] = price
      }
      return send(200, answer)
    }
    return send(404, { error: 'Not found' })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  const { port: bound } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    prices,
    requests,
    misbehave: (how) => {
      misbehaviour = how
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
