/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true

/**
 * The view tests' Solana node (Node side, a Vitest global setup): the real
 * local node on a free port, its URL provided to the tests (`inject`), which
 * reach it through the `solanaRpc` browser command (the node sends no CORS
 * headers). The view tests' account (`solanaTestSeed`) gets 10 SOL and
 * 1 000 of the dev token PTT from dev account 0.
 */
import { devSolanaKeypair } from '@porthole/dev-stack/solanaKeys'
import { createSolanaNode } from '@porthole/dev-stack/solanaNode'
import { devSolanaToken } from '@porthole/dev-stack/stack'
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token'
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from '@solana/web3.js'
import type { TestProject } from 'vitest/node'
import { solanaTestSeed } from './solanaSeed.js'

declare module 'vitest' {
  export interface ProvidedContext {
    solanaRpcUrl: string
  }
}

export default async function setup(project: TestProject) {
  const node = await createSolanaNode({ port: 0 })
  const connection = new Connection(node.url, 'confirmed')
  const payer = devSolanaKeypair(0)
  const owner = Keypair.fromSeed(solanaTestSeed).publicKey
  const mint = new PublicKey(devSolanaToken.address)
  const destination = getAssociatedTokenAddressSync(mint, owner)
  await sendAndConfirmTransaction(
    connection,
    new Transaction().add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: owner,
        lamports: 10 * LAMPORTS_PER_SOL,
      }),
      createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, destination, owner, mint),
      createTransferCheckedInstruction(
        getAssociatedTokenAddressSync(mint, payer.publicKey),
        mint,
        destination,
        payer.publicKey,
        1_000n * 10n ** BigInt(devSolanaToken.decimals),
        devSolanaToken.decimals,
      ),
    ),
    [payer],
  )
  project.provide('solanaRpcUrl', node.url)
  return () => node.close()
}
