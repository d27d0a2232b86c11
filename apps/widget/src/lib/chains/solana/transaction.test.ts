import { ErrorCode } from '@porthole/protocol/Errors'
import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js'
import { describe, expect, test } from 'vitest'
import { signTransaction } from '../../../../test/solanaWallet.js'
import { fromSignature } from './transaction.js'

const payer = Keypair.generate()
const unsigned = () =>
  new Transaction({
    feePayer: payer.publicKey,
    blockhash: new PublicKey(new Uint8Array(32).fill(9)).toBase58(),
    lastValidBlockHeight: 1,
  })
    .add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1,
      }),
    )
    .serialize({ requireAllSignatures: false, verifySignatures: false })

describe('fromSignature (a wallet that answers only the signature)', () => {
  test("puts the signer's signature in its place: the transaction a full signer makes", () => {
    const bytes = unsigned()
    const signed = signTransaction(payer, bytes)
    const signature = Transaction.from(signed).signature as Uint8Array
    expect(fromSignature(bytes, payer.publicKey.toBase58(), signature)).toEqual(
      new Uint8Array(signed),
    )
  })

  test("refuses a signer that is not one of the transaction's", () => {
    expect(() =>
      fromSignature(unsigned(), Keypair.generate().publicKey.toBase58(), new Uint8Array(64)),
    ).toThrow(expect.objectContaining({ code: ErrorCode.internal }))
  })
})
