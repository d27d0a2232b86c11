/**
 * Solana's needs-approval methods, checked and normalised before they are
 * shown (SECURITY.md 20): a message (never one that parses as a
 * transaction), one transaction or a batch, each signed with the wallet's
 * Ed25519 key from the very text shown; one transaction signed, then sent
 * through the API's RPC proxy (send.ts).
 */
import { ed25519 } from '@noble/curves/ed25519'
import { AbortedError, InvalidParamsError } from '@porthole/protocol/Errors'
import { z } from '@porthole/protocol/zod'
import { base58 } from '@scure/base'
import { toFrozenJson } from '../../approval/request.js'
import { isTransactionBytes } from '../../formats/solanaMessage.js'
import {
  assertAccount,
  maxMessageLength,
  type Prepared,
  type PrepareParameters,
  parseParams,
} from '../prepared.js'
import { namespaceOf, solanaMainnet } from '../session.js'
import { withSolanaKey } from '../signer.js'
import { assertSignInFor } from '../signIn.js'
import { assertNetwork, parseSendParams, type SolanaRpc, sendSigned } from './send.js'
import {
  parseTransactions,
  SignAllTransactionsParams,
  SignTransactionParams,
  signTransaction,
} from './transaction.js'

/** The Solana methods this frame signs. */
export const solanaMethods = [
  'solana_signMessage',
  'solana_signTransaction',
  'solana_signAllTransactions',
  'solana_signAndSendTransaction',
] as const
export type SolanaMethod = (typeof solanaMethods)[number]

const SolanaSignMessageParams = z.strictObject({
  message: z.string().check(z.minLength(1), z.maxLength(maxMessageLength)),
  pubkey: z.string().check(z.maxLength(64)),
})

/**
 * Checks a Solana request against the wallet (its account, a Solana
 * network) and normalises it; nothing is signed until `sign`.
 */
export async function prepareSolana({
  context,
  request,
  user,
  current,
  origin,
}: PrepareParameters<SolanaMethod>): Promise<Prepared> {
  const { method, params } = request
  const chainId = request.chainId ?? (namespaceOf(current) === 'solana' ? current : solanaMainnet)
  if (namespaceOf(chainId) !== 'solana')
    throw new InvalidParamsError(`${method} is not available on ${chainId}`)
  const account = user.addresses.solana
  const rpc: SolanaRpc = (name, args) => context.api.rpc(chainId, name, args)
  /** The request as shown, signed with the wallet's Solana key once approved. */
  const approve = (shown: unknown, sign: (key: Uint8Array) => unknown): Prepared => ({
    chainId,
    account,
    params: shown,
    sign: () => withSolanaKey(context, sign),
  })
  switch (method) {
    case 'solana_signMessage': {
      const { message, pubkey } = parseParams(SolanaSignMessageParams, params, method)
      assertAccount(pubkey === account)
      let bytes: Uint8Array
      try {
        bytes = base58.decode(message)
      } catch {
        throw new InvalidParamsError('The message must be base58.')
      }
      // A signature over a transaction's message is that transaction's signature.
      if (isTransactionBytes(bytes))
        throw new InvalidParamsError(
          'This message is a Solana transaction: it can only be signed as a transaction.',
        )
      assertSignInFor(new TextDecoder().decode(bytes), origin)
      const shown = toFrozenJson({ message, pubkey: account })
      return approve(shown, (key) => ({
        signature: base58.encode(ed25519.sign(base58.decode(shown.message), key)),
      }))
    }
    case 'solana_signTransaction': {
      const shown = toFrozenJson(parseParams(SignTransactionParams, params, method))
      // Checked before it is shown; signed from the shown text.
      parseTransactions([shown.transaction], base58.decode(account))
      return approve(shown, (key) => {
        const [parsed] = parseTransactions([shown.transaction], base58.decode(account))
        if (!parsed) throw new InvalidParamsError(`Invalid parameters for ${method}.`)
        return { transaction: signTransaction(parsed, key) }
      })
    }
    case 'solana_signAndSendTransaction': {
      const shown = toFrozenJson(parseSendParams(params))
      // Checked before it is shown, as solana_signTransaction's; signed from the shown text.
      parseTransactions([shown.transaction], base58.decode(account))
      await assertNetwork(rpc, chainId)
      return {
        chainId,
        account,
        params: shown,
        sign: async (signal) => {
          const signed = await withSolanaKey(context, (key) => {
            const [parsed] = parseTransactions([shown.transaction], base58.decode(account))
            if (!parsed) throw new InvalidParamsError(`Invalid parameters for ${method}.`)
            return signTransaction(parsed, key)
          })
          // Given up on before the send: nothing leaves the frame (SECURITY.md 17).
          if (signal.aborted) throw new AbortedError()
          return sendSigned(rpc, signed, shown.sendOptions)
        },
      }
    }
    case 'solana_signAllTransactions': {
      const shown = toFrozenJson(parseParams(SignAllTransactionsParams, params, method))
      // Every transaction is checked before the one approval for the batch.
      parseTransactions(shown.transactions, base58.decode(account))
      return approve(shown, (key) => ({
        transactions: parseTransactions(shown.transactions, base58.decode(account)).map(
          (transaction) => signTransaction(transaction, key),
        ),
      }))
    }
  }
}
