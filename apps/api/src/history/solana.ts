/**
 * A Solana account's history, address-scoped: nothing is indexed ahead; each
 * page is asked of the network's `RPC_UPSTREAMS` node when the widget asks
 * (`getSignaturesForAddress`, newest first, paged by `before`, then
 * `getTransaction` for each), and read into the same `History.HistoryPage`
 * the EVM indexer serves. What moved is read off the balances the node
 * reports before and after: SOL (the fee left out of the sender's amount),
 * and SPL tokens where the node gives token balances.
 */
import { type HistoryPage, type HistoryTransfer, historyPageSize } from '@porthole/protocol/History'
import { z } from 'zod'
import { HttpError } from '../http/errors.js'
import { readLimited } from '../http/readLimited.js'

/** A base58 transaction signature (64 bytes). */
export const SolanaSignature = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/)
/** A base58 address. */
export const SolanaAddress = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)

/** The most a node's answer may weigh here (a page of 20 transactions). */
const maxAnswerBytes = 4 * 1024 * 1024

const Signatures = z.array(
  z.object({
    signature: SolanaSignature,
    slot: z.number().int().nonnegative(),
    err: z.unknown(),
    blockTime: z.number().int().nullable().optional(),
  }),
)

const TokenBalance = z.object({
  accountIndex: z.number().int(),
  mint: SolanaAddress,
  owner: SolanaAddress.optional(),
  uiTokenAmount: z.object({ amount: z.string().regex(/^\d{1,40}$/), decimals: z.number().int() }),
})

const Meta = z.object({
  err: z.unknown(),
  fee: z.number().int().nonnegative(),
  preBalances: z.array(z.number().int().nonnegative()),
  postBalances: z.array(z.number().int().nonnegative()),
  preTokenBalances: z.array(TokenBalance).nullable().optional(),
  postTokenBalances: z.array(TokenBalance).nullable().optional(),
})

const Transaction = z
  .object({
    slot: z.number().int().nonnegative(),
    blockTime: z.number().int().nullable().optional(),
    transaction: z.object({
      message: z.object({
        accountKeys: z.array(z.union([SolanaAddress, z.object({ pubkey: SolanaAddress })])),
      }),
    }),
    meta: Meta,
  })
  .nullable()

async function rpc(
  url: string,
  calls: { method: string; params: unknown[] }[],
  { fetch: fetchFn, timeoutMs }: { fetch: typeof fetch; timeoutMs: number },
): Promise<unknown[]> {
  let response: Response
  try {
    response = await fetchFn(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: '2.0', id, ...call }))),
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch {
    throw unavailable()
  }
  const body = await readLimited(response, maxAnswerBytes)
  if (!response.ok || body.kind !== 'text') throw unavailable()
  let answers: unknown
  try {
    answers = JSON.parse(body.text)
  } catch {
    throw unavailable()
  }
  if (!Array.isArray(answers)) throw unavailable()
  return calls.map((_, id) => {
    const answer = answers.find((item) => (item as { id?: unknown })?.id === id) as
      | { result?: unknown; error?: unknown }
      | undefined
    if (!answer || answer.error !== undefined) throw unavailable()
    return answer.result
  })
}

const unavailable = () =>
  new HttpError(502, 'history_upstream', "The network's node did not answer the history")

/** One page of `address`'s Solana transactions, from the node at `rpcUrl`. */
export async function readSolanaHistory({
  rpcUrl,
  chainId,
  address,
  before,
  fetch: fetchFn = fetch,
  timeoutMs = 10_000,
}: {
  rpcUrl: string
  chainId: string
  address: string
  /** The last signature of the page before (the cursor). */
  before?: string | undefined
  fetch?: typeof fetch
  timeoutMs?: number
}): Promise<HistoryPage> {
  const options = { fetch: fetchFn, timeoutMs }
  const [listed] = await rpc(
    rpcUrl,
    [
      {
        method: 'getSignaturesForAddress',
        params: [address, { limit: historyPageSize + 1, ...(before ? { before } : {}) }],
      },
    ],
    options,
  )
  const signatures = Signatures.safeParse(listed)
  if (!signatures.success) throw unavailable()
  const page = signatures.data.slice(0, historyPageSize)
  const next = signatures.data.length > historyPageSize ? (page.at(-1)?.signature ?? null) : null
  if (page.length === 0) return { data: [], next: null }
  const transactions = await rpc(
    rpcUrl,
    page.map(({ signature }) => ({
      method: 'getTransaction',
      params: [signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }],
    })),
    options,
  )
  const data = page.flatMap(({ signature, slot, blockTime, err }, index) => {
    const parsed = Transaction.safeParse(transactions[index])
    if (!parsed.success || parsed.data === null) return []
    const { meta, transaction } = parsed.data
    const keys = transaction.message.accountKeys.map((key) =>
      typeof key === 'string' ? key : key.pubkey,
    )
    const time = parsed.data.blockTime ?? blockTime
    return [
      {
        id: signature,
        metadata: {
          minedAt: new Date((time ?? 0) * 1000).toISOString(),
          chain: chainId,
          status: err === null && meta.err === null ? ('confirmed' as const) : ('failed' as const),
          sentFrom: keys[0] ?? address,
          blockNumber: String(parsed.data.slot ?? slot),
        },
        transfers: transfersOf(address, keys, meta),
      },
    ]
  })
  return { data, next }
}

/** What `address` sent or received in one transaction, from the balances before and after. */
function transfersOf(
  address: string,
  keys: readonly string[],
  meta: z.infer<typeof Meta>,
): HistoryTransfer[] {
  const transfers: HistoryTransfer[] = []
  const index = keys.indexOf(address)
  if (index >= 0) {
    // The fee payer's change includes the fee: the amount moved is the rest.
    const change =
      BigInt(meta.postBalances[index] ?? 0) -
      BigInt(meta.preBalances[index] ?? 0) +
      (index === 0 ? BigInt(meta.fee) : 0n)
    if (change !== 0n) {
      const changes = keys.map(
        (_, at) => BigInt(meta.postBalances[at] ?? 0) - BigInt(meta.preBalances[at] ?? 0),
      )
      // The other side: for a send, who gained most; for a receipt, who lost most.
      const other = changes.reduce(
        (best, value, at) =>
          at === index
            ? best
            : (change < 0n ? value > (changes[best] ?? 0n) : value < (changes[best] ?? 0n))
              ? at
              : best,
        index === 0 ? 1 : 0,
      )
      transfers.push({
        direction: change < 0n ? 'out' : 'in',
        kind: 'native',
        amount: (change < 0n ? -change : change).toString(),
        token: null,
        tokenId: null,
        counterparty: keys[other] ?? keys[0] ?? address,
        nft_info: null,
      })
    }
  }
  // SPL tokens: the account's token balances by mint (the owner is the account).
  const byMint = new Map<string, { before: bigint; after: bigint; decimals: number }>()
  for (const [list, side] of [
    [meta.preTokenBalances ?? [], 'before'],
    [meta.postTokenBalances ?? [], 'after'],
  ] as const) {
    for (const balance of list) {
      if (balance.owner !== address) continue
      const entry = byMint.get(balance.mint) ?? {
        before: 0n,
        after: 0n,
        decimals: balance.uiTokenAmount.decimals,
      }
      entry[side] += BigInt(balance.uiTokenAmount.amount)
      byMint.set(balance.mint, entry)
    }
  }
  for (const [mint, { before, after, decimals }] of byMint) {
    if (before === after) continue
    transfers.push({
      direction: after < before ? 'out' : 'in',
      kind: 'spl',
      amount: (after < before ? before - after : after - before).toString(),
      token: {
        address: mint,
        name: null,
        symbol: null,
        decimals: decimals <= 77 ? decimals : null,
      },
      tokenId: null,
      counterparty: keys[0] === address ? (keys[1] ?? address) : (keys[0] ?? address),
      nft_info: null,
    })
  }
  return transfers
}
