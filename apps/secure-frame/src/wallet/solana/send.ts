/**
 * `solana_signAndSendTransaction`: one transaction, checked and shown as
 * `solana_signTransaction`'s is, then signed and sent through the API's RPC
 * proxy for its network (SECURITY.md 20 and 24). Its `sendOptions` are
 * checked before anything is shown: the preflight commitment must be one of
 * SPEC's (the deprecated names folded once into the ones a validator still
 * reads, so what is shown is what is sent). The proxy's node must be the
 * network asked for (its genesis hash), and its answer the transaction's own
 * signature, or the result is refused.
 */
import {
  invalidCommitmentMessage,
  type PreflightCommitment,
  preflightCommitments,
} from '@porthole/protocol/EmbeddedRpc'
import { InvalidParamsError } from '@porthole/protocol/Errors'
import { z } from '@porthole/protocol/zod'
import { base58, base64 } from '@scure/base'
import { readTransaction, signatureBytes } from '../../formats/solanaMessage.js'
import { UnexpectedAnswerError } from '../../lib/errors.js'
import { parseParams } from '../prepared.js'
import { Base64Transaction } from './transaction.js'

/** The deprecated commitments, as the current ones a validator reads (web3.js's own mapping). */
const currentCommitment = {
  processed: 'processed',
  confirmed: 'confirmed',
  finalized: 'finalized',
  recent: 'processed',
  single: 'confirmed',
  singleGossip: 'confirmed',
  root: 'finalized',
  max: 'finalized',
} as const satisfies Record<PreflightCommitment, string>

/** The most send retries a site may ask the node for. */
export const maxSendRetries = 100

const SendOptions = z.strictObject({
  preflightCommitment: z.optional(z.enum(preflightCommitments)),
  skipPreflight: z.optional(z.boolean()),
  maxRetries: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(maxSendRetries))),
  minContextSlot: z.optional(
    z.number().check(z.int(), z.minimum(0), z.maximum(Number.MAX_SAFE_INTEGER)),
  ),
})

export const SignAndSendTransactionParams = z.strictObject({
  transaction: Base64Transaction,
  sendOptions: z.optional(SendOptions),
})
export type SignAndSendTransactionParams = z.output<typeof SignAndSendTransactionParams>

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The params as they are shown and sent: strict (-32602 'Invalid parameters
 * for solana_signAndSendTransaction.'), a commitment outside SPEC's list
 * -32602 with {@link invalidCommitmentMessage}, a deprecated one folded.
 */
export function parseSendParams(params: unknown): SignAndSendTransactionParams {
  const commitment =
    isRecord(params) && isRecord(params.sendOptions)
      ? params.sendOptions.preflightCommitment
      : undefined
  if (
    commitment !== undefined &&
    !(preflightCommitments as readonly unknown[]).includes(commitment)
  )
    throw new InvalidParamsError(invalidCommitmentMessage)
  const { transaction, sendOptions } = parseParams(
    SignAndSendTransactionParams,
    params,
    'solana_signAndSendTransaction',
  )
  if (sendOptions === undefined) return { transaction }
  const { preflightCommitment, ...rest } = sendOptions
  return {
    transaction,
    sendOptions: {
      ...(preflightCommitment === undefined
        ? {}
        : { preflightCommitment: currentCommitment[preflightCommitment] }),
      ...rest,
    },
  }
}

/** One JSON-RPC call through the API's proxy, for one network. */
export type SolanaRpc = (method: string, params: unknown[]) => Promise<unknown>

/**
 * Refuses, before anything is shown, a network the proxy does not serve for
 * this project (its own error) or whose node is another network (its genesis
 * hash does not name `chainId`).
 */
export async function assertNetwork(rpc: SolanaRpc, chainId: string): Promise<void> {
  const genesisHash = await rpc('getGenesisHash', [])
  if (typeof genesisHash !== 'string' || `solana:${genesisHash.slice(0, 32)}` !== chainId)
    throw new UnexpectedAnswerError('genesis hash')
}

/**
 * Sends `signed` (base64) with `sendOptions` as shown; resolves with its
 * signature (base58), which must be the transaction's own first signature.
 */
export async function sendSigned(
  rpc: SolanaRpc,
  signed: string,
  sendOptions: SignAndSendTransactionParams['sendOptions'],
): Promise<{ signature: string }> {
  const bytes = base64.decode(signed)
  const { signaturesOffset } = readTransaction(bytes)
  const expected = base58.encode(
    bytes.subarray(signaturesOffset, signaturesOffset + signatureBytes),
  )
  const answer = await rpc('sendTransaction', [signed, { ...sendOptions, encoding: 'base64' }])
  if (answer !== expected) throw new UnexpectedAnswerError('transaction signature')
  return { signature: expected }
}
