/**
 * ERC-20 details for the approval (SECURITY.md 20): a token's `symbol()` and
 * `decimals()` read from the chain through the API's RPC proxy, so its
 * amounts show in its own units. Bounded: at most `maxTokens` tokens, two
 * `eth_call`s each, all at once, each token given up after `timeoutMs`. A
 * token that does not answer, answers nonsense or answers too late is left
 * out: the approval then shows raw units and says so. It never blocks one.
 */
import { type Hex, hexToString, isHex } from 'viem'
import { maxTokens, Token } from '../approval/request.js'
import { TokenReadTimeoutError } from '../lib/errors.js'

/** How long one token's details are waited for. */
export const tokenReadTimeoutMs = 3_000

type Rpc = (method: string, params: unknown[]) => Promise<unknown>

const symbolSelector = '0x95d89b41'
const decimalsSelector = '0x313ce567'

/** An ABI `string` return value, or a `bytes32` one (older tokens), as text; else `undefined`. */
export function toSymbol(result: unknown): string | undefined {
  if (typeof result !== 'string' || !isHex(result, { strict: true })) return
  const hex = result.slice(2)
  let text: string | undefined
  if (hex.length === 64) {
    // bytes32, right-padded with zeros.
    text = hexToString(`0x${hex}` as Hex).replace(/\0+$/, '')
  } else if (hex.length >= 128 && hex.length % 64 === 0) {
    const offset = Number.parseInt(hex.slice(0, 64), 16)
    const start = offset * 2
    if (offset !== 32 || start + 64 > hex.length) return
    const length = Number.parseInt(hex.slice(start, start + 64), 16)
    const body = hex.slice(start + 64, start + 64 + length * 2)
    if (length > 64 || body.length !== length * 2) return
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(
        Uint8Array.from(body.match(/../g) ?? [], (byte) => Number.parseInt(byte, 16)),
      )
    } catch {
      return
    }
  }
  const symbol = text?.trim()
  return symbol !== undefined && Token.shape.symbol.safeParse(symbol).success ? symbol : undefined
}

/** An ABI `uint8` return value, or `undefined`. */
export function toDecimals(result: unknown): number | undefined {
  if (typeof result !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(result)) return
  const value = BigInt(result)
  return value <= 77n ? Number(value) : undefined
}

function withTimeout<value>(promise: Promise<value>, timeoutMs: number): Promise<value> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TokenReadTimeoutError()), timeoutMs)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

async function readToken(rpc: Rpc, address: string): Promise<Token | undefined> {
  const call = (data: string) => rpc('eth_call', [{ to: address, data }, 'latest'])
  const [symbol, decimals] = await Promise.all([
    call(symbolSelector).then(toSymbol),
    call(decimalsSelector).then(toDecimals),
  ])
  if (symbol === undefined || decimals === undefined) return
  return { address, symbol, decimals }
}

/**
 * The details of each distinct token in `addresses` that answers in time,
 * in their first order; never rejects.
 */
export async function readTokens(
  rpc: Rpc,
  addresses: readonly string[],
  { timeoutMs = tokenReadTimeoutMs }: { timeoutMs?: number } = {},
): Promise<Token[]> {
  const distinct = [...new Map(addresses.map((address) => [address.toLowerCase(), address]))]
    .map(([, address]) => address)
    .slice(0, maxTokens)
  const tokens = await Promise.all(
    distinct.map((address) =>
      withTimeout(readToken(rpc, address), timeoutMs).catch(() => undefined),
    ),
  )
  return tokens.filter((token) => token !== undefined)
}
