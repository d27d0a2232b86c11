/**
 * An EVM history page's cursor, for indexed and address-scoped networks
 * alike: `block:txIndex` in base64url, where the next page starts (exclusive).
 */
import { z } from 'zod'

export const encodeCursor = (block: bigint | string, txIndex: number) =>
  Buffer.from(`${block}:${txIndex}`).toString('base64url')

/** A cursor `encodeCursor` made, read back; anything else is refused (a 400). */
export const EvmCursor = z
  .string()
  .max(128)
  .transform((value, context) => {
    const match = /^(\d{1,19}):(\d{1,9})$/.exec(Buffer.from(value, 'base64url').toString())
    // A block past PostgreSQL's bigint is no cursor of ours (a 400, not the database's 500).
    if (!match || BigInt(match[1] as string) > 2n ** 63n - 1n) {
      context.addIssue({ code: 'custom', message: 'must be a cursor this endpoint returned' })
      return z.NEVER
    }
    return { block: BigInt(match[1] as string), txIndex: Number(match[2]) }
  })
