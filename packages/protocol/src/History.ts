/**
 * An account's transaction history, as `GET /account/:address/history`
 * serves it (shared by the API and the widget's Activity view): the seed's
 * Transaction (id, metadata with minedAt and chain, transfers each with
 * `nft_info.flags.is_spam`) and its page (`data`, cursor `next`).
 */
import { caip2Pattern } from './Caip.js'
import { z } from './zod.js'

/** Transactions in one page. */
export const historyPageSize = 20

/** An EVM address (lower case) or a Solana one (base58). */
const address = z.string().check(z.regex(/^(0x[0-9a-f]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/))
const digits = z.string().check(z.regex(/^\d{1,78}$/))
const shortText = z.nullable(z.string().check(z.maxLength(64)))

export const transferKinds = ['native', 'erc20', 'erc721', 'erc1155', 'spl'] as const

export const HistoryTransfer = z.strictObject({
  /** `out`: the account sent it; `in`: it received it; `self`: both. */
  direction: z.enum(['in', 'out', 'self']),
  kind: z.enum(transferKinds),
  /** In the token's smallest unit (wei for the native coin); 1 for an ERC-721 token. */
  amount: digits,
  /** The contract; null for the network's native coin. */
  token: z.nullable(
    z.strictObject({
      address,
      name: shortText,
      symbol: shortText,
      /** ERC-20 only; null when the contract did not say. */
      decimals: z.nullable(z.number().check(z.int(), z.minimum(0), z.maximum(77))),
    }),
  ),
  /** The NFT's id (ERC-721, ERC-1155). */
  tokenId: z.nullable(digits),
  /** The other side of the transfer. */
  counterparty: address,
  /** Present on NFT transfers (the seed's shape). */
  nft_info: z.nullable(z.strictObject({ flags: z.strictObject({ is_spam: z.boolean() }) })),
})
export type HistoryTransfer = z.infer<typeof HistoryTransfer>

export const HistoryTransaction = z.strictObject({
  /** The transaction hash (EVM), or its signature (Solana, base58). */
  id: z.string().check(z.regex(/^(0x[0-9a-f]{64}|[1-9A-HJ-NP-Za-km-z]{64,88})$/)),
  metadata: z.strictObject({
    /** ISO 8601, the block's time. */
    minedAt: z.string().check(z.maxLength(40)),
    /** CAIP-2. */
    chain: z.string().check(z.regex(caip2Pattern)),
    status: z.enum(['confirmed', 'failed']),
    /** The transaction's sender. */
    sentFrom: address,
    blockNumber: digits,
  }),
  transfers: z.array(HistoryTransfer).check(z.maxLength(1000)),
})
export type HistoryTransaction = z.infer<typeof HistoryTransaction>

export const HistoryPage = z.strictObject({
  data: z.array(HistoryTransaction).check(z.maxLength(historyPageSize)),
  /** The cursor of the next page; null on the last. */
  next: z.nullable(z.string().check(z.maxLength(128))),
})
export type HistoryPage = z.infer<typeof HistoryPage>
