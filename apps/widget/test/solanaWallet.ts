/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true

/**
 * A Solana wallet for the widget's tests: a keypair that signs messages and
 * transactions as a real wallet does (ed25519 over the bytes; the fee payer's
 * signature on a transaction), and sends through a web3.js `Connection`.
 */
import { ed25519 } from '@noble/curves/ed25519'
import { type Connection, type Keypair, Transaction, VersionedTransaction } from '@solana/web3.js'

/** Signs a serialised transaction (legacy or v0) with the keypair; the signed bytes. */
export function signTransaction(keypair: Keypair, bytes: Uint8Array): Uint8Array {
  // A legacy transaction's message starts with its header; a v0 one with 0x80.
  const signatures = bytes[0] ?? 0
  const versioned = ((bytes[1 + signatures * 64] ?? 0) & 0x80) !== 0
  if (versioned) {
    const transaction = VersionedTransaction.deserialize(bytes)
    transaction.sign([keypair])
    return transaction.serialize()
  }
  const transaction = Transaction.from(bytes)
  transaction.partialSign(keypair)
  return transaction.serialize()
}

export const signMessage = (keypair: Keypair, message: Uint8Array): Uint8Array =>
  ed25519.sign(message, keypair.secretKey.slice(0, 32))

export const verifyMessage = (
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
): boolean => ed25519.verify(signature, message, publicKey)

/** Signs and sends; the signature (base58), once the node has it. */
export async function signAndSend(
  keypair: Keypair,
  bytes: Uint8Array,
  connection: Connection,
): Promise<string> {
  return connection.sendRawTransaction(signTransaction(keypair, bytes))
}
