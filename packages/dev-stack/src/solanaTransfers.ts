/**
 * SOL transfers for tests that cannot import web3.js themselves (the API's,
 * the secure frame's, e2e): built with web3.js, handed over as base64 wire
 * bytes, and raw JSON-RPC reads of a node or proxy.
 */
import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js'

/**
 * A legacy transaction moving `lamports` from `from` to `to` on `blockhash`,
 * base64: signed by `signer` when given (it must be `from`), else with an
 * empty signature slot for `from` to fill.
 */
export function solanaTransfer({
  from,
  to,
  lamports,
  blockhash,
  signer,
}: {
  from: string
  to: string
  lamports: number | bigint
  blockhash: string
  signer?: Keypair
}): string {
  const transaction = new Transaction({ feePayer: new PublicKey(from), recentBlockhash: blockhash })
  transaction.add(
    SystemProgram.transfer({
      fromPubkey: new PublicKey(from),
      toPubkey: new PublicKey(to),
      lamports: BigInt(lamports),
    }),
  )
  if (signer) transaction.sign(signer)
  return transaction
    .serialize({ requireAllSignatures: false, verifySignatures: false })
    .toString('base64')
}

/** A fresh Solana address nobody holds the key to keep (a receiver whose balance starts at 0). */
export function freshSolanaAddress(): string {
  return Keypair.generate().publicKey.toBase58()
}

/** One JSON-RPC call to `url` (a node, or the API's proxy with its query): the whole answer. */
export async function solanaRpc(
  url: string,
  method: string,
  params: unknown[] = [],
): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } }
}

/** `address`'s balance in lamports on the node at `url`. */
export async function solanaBalance(url: string, address: string): Promise<number> {
  const { result } = await solanaRpc(url, 'getBalance', [address])
  return (result as { value: number }).value
}

/** The node's latest blockhash. */
export async function solanaBlockhash(url: string): Promise<string> {
  const { result } = await solanaRpc(url, 'getLatestBlockhash', [])
  return (result as { value: { blockhash: string } }).value.blockhash
}
