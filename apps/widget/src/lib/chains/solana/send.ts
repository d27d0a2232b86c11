/**
 * Sends of SOL and SPL tokens: the transaction, built with web3.js and
 * spl-token for the connected wallet to sign and send, and the wait for its
 * confirmation (at most the seed's 25 s). A token send creates the
 * receiver's associated token account when it does not exist yet.
 */
import { transactionConfirmationTimeout } from '@porthole/protocol/Constants'
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token'
import { PublicKey, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js'
import { SendTimeoutError } from '../../errors.js'
import type { SendToken } from '../../state/store.js'
import { connectionFor } from './rpc.js'

export type Transfer = {
  from: string
  token: SendToken
  /** In the token's smallest unit. */
  amount: bigint
  receiver: string
  caipNetworkId: string
}

/** The instructions of a token transfer, with the receiver's token account created if missing. */
async function tokenTransfer(
  from: PublicKey,
  to: PublicKey,
  token: { address: string; decimals: number },
  amount: bigint,
  caipNetworkId: string,
): Promise<TransactionInstruction[]> {
  const connection = connectionFor(caipNetworkId)
  const mint = new PublicKey(token.address)
  const mintAccount = await connection.getAccountInfo(mint)
  if (!mintAccount) throw new Error(`The token ${token.address} does not exist on this network.`)
  const programId = mintAccount.owner
  const source = getAssociatedTokenAddressSync(mint, from, false, programId)
  const destination = getAssociatedTokenAddressSync(mint, to, false, programId)
  const exists = (await connection.getAccountInfo(destination)) !== null
  return [
    ...(exists
      ? []
      : [
          createAssociatedTokenAccountIdempotentInstruction(from, destination, to, mint, programId),
        ]),
    createTransferCheckedInstruction(
      source,
      mint,
      destination,
      from,
      amount,
      token.decimals,
      [],
      programId,
    ),
  ]
}

/** The unsigned transfer (a legacy transaction, the sender paying), serialised for the wallet. */
export async function buildTransfer(transfer: Transfer): Promise<Uint8Array> {
  const { token, amount, caipNetworkId } = transfer
  const from = new PublicKey(transfer.from)
  const to = new PublicKey(transfer.receiver.trim())
  const instructions =
    token.kind === 'native'
      ? [SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: amount })]
      : await tokenTransfer(from, to, token, amount, caipNetworkId)
  const { blockhash, lastValidBlockHeight } =
    await connectionFor(caipNetworkId).getLatestBlockhash()
  const transaction = new Transaction({ feePayer: from, blockhash, lastValidBlockHeight })
  transaction.add(...instructions)
  return transaction.serialize({ requireAllSignatures: false, verifySignatures: false })
}

const pollInterval = 500

/** Waits until the transaction is confirmed: 'reverted' when it failed; SendTimeoutError after 25 s. */
export async function waitForSignature(
  signature: string,
  caipNetworkId: string,
  timeout: number = transactionConfirmationTimeout,
): Promise<'success' | 'reverted'> {
  const connection = connectionFor(caipNetworkId)
  const deadline = Date.now() + timeout
  for (;;) {
    const {
      value: [status],
    } = await connection.getSignatureStatuses([signature])
    if (status && status.confirmationStatus !== 'processed')
      return status.err === null ? 'success' : 'reverted'
    if (Date.now() + pollInterval > deadline) throw new SendTimeoutError()
    await new Promise((resolve) => setTimeout(resolve, pollInterval))
  }
}
