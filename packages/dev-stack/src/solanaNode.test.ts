import { Solana } from '@porthole/chains'
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_PROGRAM_ID,
  unpackAccount,
} from '@solana/spl-token'
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SendTransactionError,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { devSolanaKeypair, devSolanaTokenMint } from './solanaKeys.ts'
import { createSolanaNode, type SolanaNode } from './solanaNode.ts'
import { base58 } from './solanaRpcFormat.ts'
import { devSolanaToken, solanaGenesisHash } from './stack.ts'

let node: SolanaNode
let connection: Connection
const mint = new PublicKey(devSolanaToken.address)

beforeAll(async () => {
  node = await createSolanaNode({ port: 0 })
  connection = new Connection(node.url, 'confirmed')
})

afterAll(async () => {
  await node?.close()
})

/** A raw JSON-RPC call: the answer as the node wrote it. */
async function rpc(method: string, params: unknown[]) {
  const response = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await response.json()) as {
    result?: unknown
    error?: { code: number; message: string; data?: { err: unknown; logs: string[] } }
  }
}

/** A signed v0 transaction of `payer`'s, on the node's latest blockhash. */
async function signed(payer: Keypair, instructions: TransactionInstruction[]) {
  const { blockhash } = await connection.getLatestBlockhash()
  const message = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: blockhash,
    instructions,
  }).compileToV0Message()
  const transaction = new VersionedTransaction(message)
  transaction.sign([payer])
  return transaction
}

const transfer = (from: PublicKey, to: PublicKey, lamports: number) =>
  SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports })

describe('devSolanaKeypair', () => {
  test("derives at m/44'/501'/i'/0' from the dev mnemonic, as the embedded wallet does", () => {
    // The embedded wallet's keys.ts gives this address for the dev mnemonic's account 0.
    expect(devSolanaKeypair(0).publicKey.toBase58()).toBe(
      'oeYf6KAJkLYhBuR8CiGc6L4D4Xtfepr85fuDgA9kq96',
    )
    expect(devSolanaKeypair(1).publicKey.equals(devSolanaKeypair(0).publicKey)).toBe(false)
  })

  test("the dev token's mint keypair is at devSolanaToken.address", () => {
    expect(devSolanaTokenMint().publicKey.toBase58()).toBe(devSolanaToken.address)
  })
})

describe('createSolanaNode', () => {
  test('answers getGenesisHash with the fixed hash that names Solana.localnet', async () => {
    const genesisHash = await connection.getGenesisHash()
    expect(genesisHash).toBe(solanaGenesisHash)
    expect(`solana:${genesisHash.slice(0, 32)}`).toBe(Solana.localnet.caipNetworkId)
    expect(devSolanaToken.chainId).toBe(Solana.localnet.caipNetworkId)
    expect(await rpc('getHealth', [])).toMatchObject({ result: 'ok' })
  })

  test.each([0, 9])('funds dev account %i with 1 000 SOL and 1 000 000 PTT', async (index) => {
    const owner = devSolanaKeypair(index).publicKey
    expect(await connection.getBalance(owner)).toBeGreaterThanOrEqual(999 * LAMPORTS_PER_SOL)
    const { value } = await connection.getParsedTokenAccountsByOwner(owner, { mint })
    expect(value).toHaveLength(1)
    expect(value[0]?.pubkey.equals(getAssociatedTokenAddressSync(mint, owner))).toBe(true)
    expect(value[0]?.account.data.parsed).toEqual({
      type: 'account',
      info: {
        isNative: false,
        mint: devSolanaToken.address,
        owner: owner.toBase58(),
        state: 'initialized',
        tokenAmount: {
          amount: '1000000000000',
          decimals: 6,
          uiAmount: 1_000_000,
          uiAmountString: '1000000',
        },
      },
    })
  })

  test('lists token accounts by program in base64, and a mint in jsonParsed', async () => {
    const owner = devSolanaKeypair(2).publicKey
    const { value } = await connection.getTokenAccountsByOwner(owner, {
      programId: TOKEN_PROGRAM_ID,
    })
    expect(value).toHaveLength(1)
    const [entry] = value
    if (!entry) throw new Error('no token account')
    const account = unpackAccount(entry.pubkey, entry.account)
    expect(account.mint.equals(mint)).toBe(true)
    expect(account.amount).toBe(1_000_000_000_000n)
    const parsed = await connection.getParsedAccountInfo(mint)
    expect(parsed.value?.data).toMatchObject({
      program: 'spl-token',
      parsed: {
        type: 'mint',
        info: { decimals: 6, mintAuthority: devSolanaKeypair(0).publicKey.toBase58() },
      },
    })
  })

  test('requestAirdrop funds a new account', async () => {
    const account = Keypair.generate().publicKey
    const signature = await connection.requestAirdrop(account, 2 * LAMPORTS_PER_SOL)
    const latest = await connection.getLatestBlockhash()
    const { value } = await connection.confirmTransaction({ signature, ...latest })
    expect(value.err).toBeNull()
    expect(await connection.getBalance(account)).toBe(2 * LAMPORTS_PER_SOL)
  })

  test('sendAndConfirmTransaction moves SOL by the amount, the sender paying 5000 lamports of fee', async () => {
    const from = devSolanaKeypair(3)
    const to = Keypair.generate().publicKey
    const before = await connection.getBalance(from.publicKey)
    const transaction = new Transaction().add(transfer(from.publicKey, to, LAMPORTS_PER_SOL / 4))
    const signature = await sendAndConfirmTransaction(connection, transaction, [from])
    expect(await connection.getBalance(to)).toBe(LAMPORTS_PER_SOL / 4)
    expect(await connection.getBalance(from.publicKey)).toBe(before - LAMPORTS_PER_SOL / 4 - 5000)
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 })
    expect(landed?.meta).toMatchObject({ err: null, fee: 5000 })
    expect(landed?.meta?.postBalances[1]).toBe(LAMPORTS_PER_SOL / 4)
  })

  test("getSignaturesForAddress lists an address's transactions newest first, paged by before", async () => {
    const from = devSolanaKeypair(5)
    const to = Keypair.generate().publicKey
    const signatures: string[] = []
    for (const lamports of [1_000_000, 2_000_000, 3_000_000])
      signatures.push(
        await sendAndConfirmTransaction(
          connection,
          new Transaction().add(transfer(from.publicKey, to, lamports)),
          [from],
        ),
      )
    const all = await connection.getSignaturesForAddress(to)
    expect(all.map((entry) => entry.signature)).toEqual([...signatures].reverse())
    expect(all[0]).toMatchObject({ err: null, confirmationStatus: 'finalized' })
    expect(all[0]?.blockTime).toBeGreaterThan(0)
    const page = await connection.getSignaturesForAddress(to, {
      limit: 1,
      before: signatures[2],
    })
    expect(page.map((entry) => entry.signature)).toEqual([signatures[1]])
    expect(await connection.getSignaturesForAddress(Keypair.generate().publicKey)).toEqual([])
  })

  test('the WebSocket notifies a signature and an account as the transaction lands', async () => {
    const from = devSolanaKeypair(4)
    const to = Keypair.generate().publicKey
    const transaction = await signed(from, [transfer(from.publicKey, to, 1_000_000)])
    const signature = base58.encode(transaction.signatures[0] ?? new Uint8Array())
    const account = new Promise<number>((resolve) => {
      connection.onAccountChange(to, (info) => resolve(info.lamports), 'confirmed')
    })
    const status = new Promise<unknown>((resolve) => {
      connection.onSignature(signature, (result) => resolve(result.err), 'confirmed')
    })
    // web3.js subscribes once its socket is open: send once the node holds both.
    await vi.waitFor(() => expect(node.subscriptionCount()).toBe(2))
    expect(await connection.sendTransaction(transaction)).toBe(signature)
    expect(await status).toBeNull()
    expect(await account).toBe(1_000_000)
  })

  test("an SPL transfer creates the receiver's associated token account", async () => {
    const from = devSolanaKeypair(5)
    const receiver = Keypair.generate().publicKey
    const source = getAssociatedTokenAddressSync(mint, from.publicKey)
    const destination = getAssociatedTokenAddressSync(mint, receiver)
    const transaction = new Transaction().add(
      createAssociatedTokenAccountIdempotentInstruction(
        from.publicKey,
        destination,
        receiver,
        mint,
      ),
      createTransferCheckedInstruction(source, mint, destination, from.publicKey, 2_500_000n, 6),
    )
    await sendAndConfirmTransaction(connection, transaction, [from])
    expect((await connection.getTokenAccountBalance(destination)).value).toEqual({
      amount: '2500000',
      decimals: 6,
      uiAmount: 2.5,
      uiAmountString: '2.5',
    })
    expect((await connection.getTokenAccountBalance(source)).value.amount).toBe('999997500000')
    const { value } = await connection.getParsedTokenAccountsByOwner(receiver, { mint })
    expect(value.map(({ pubkey }) => pubkey.toBase58())).toEqual([destination.toBase58()])
  })

  test('a transaction that would fail is refused by preflight (-32002) with its logs', async () => {
    const from = devSolanaKeypair(6)
    const tooMuch = 2_000 * LAMPORTS_PER_SOL
    const transaction = await signed(from, [
      transfer(from.publicKey, Keypair.generate().publicKey, tooMuch),
    ])
    const encoded = Buffer.from(transaction.serialize()).toString('base64')
    const { error } = await rpc('sendTransaction', [encoded, { encoding: 'base64' }])
    expect(error).toMatchObject({
      code: -32002,
      message:
        'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
      data: { err: { InstructionError: [0, { Custom: 1 }] } },
    })
    expect(error?.data?.logs).toContainEqual(
      expect.stringMatching(new RegExp(`^Transfer: insufficient lamports \\d+, need ${tooMuch}$`)),
    )
    const refused = connection.sendTransaction(transaction)
    await expect(refused).rejects.toBeInstanceOf(SendTransactionError)
    const simulated = await connection.simulateTransaction(transaction)
    expect(simulated.value.err).toEqual({ InstructionError: [0, { Custom: 1 }] })
    expect(await connection.getBalance(from.publicKey)).toBe(1_000 * LAMPORTS_PER_SOL)
  })

  test('sendTransaction takes base58 when no encoding is named', async () => {
    const from = devSolanaKeypair(7)
    const to = Keypair.generate().publicKey
    const transaction = await signed(from, [transfer(from.publicKey, to, 3_000_000)])
    const { result } = await rpc('sendTransaction', [base58.encode(transaction.serialize())])
    expect(result).toBe(base58.encode(transaction.signatures[0] ?? new Uint8Array()))
    const { value } = await connection.getSignatureStatuses([result as string])
    expect(value[0]).toMatchObject({ err: null, confirmationStatus: 'finalized' })
    // Sent again, it is not run again.
    const again = await rpc('sendTransaction', [
      base58.encode(transaction.serialize()),
      { skipPreflight: true },
    ])
    expect(again.result).toBe(result)
    expect(await connection.getBalance(to)).toBe(3_000_000)
  })

  test('a blockhash the node never issued is refused', async () => {
    const from = devSolanaKeypair(8)
    const message = new TransactionMessage({
      payerKey: from.publicKey,
      recentBlockhash: Keypair.generate().publicKey.toBase58(),
      instructions: [transfer(from.publicKey, Keypair.generate().publicKey, 1)],
    }).compileToV0Message()
    const transaction = new VersionedTransaction(message)
    transaction.sign([from])
    const encoded = Buffer.from(transaction.serialize()).toString('base64')
    const { error } = await rpc('sendTransaction', [encoded, { encoding: 'base64' }])
    expect(error).toMatchObject({
      code: -32002,
      message: 'Transaction simulation failed: Blockhash not found',
      data: { err: 'BlockhashNotFound' },
    })
    expect(await connection.isBlockhashValid(message.recentBlockhash)).toMatchObject({
      value: false,
    })
  })

  test('answers fees, rent and blockhash validity as a validator', async () => {
    const { blockhash } = await connection.getLatestBlockhash()
    const payer = devSolanaKeypair(1).publicKey
    const message = new TransactionMessage({
      payerKey: payer,
      recentBlockhash: blockhash,
      instructions: [transfer(payer, Keypair.generate().publicKey, 1)],
    }).compileToV0Message()
    expect((await connection.getFeeForMessage(message)).value).toBe(5000)
    expect(await connection.getMinimumBalanceForRentExemption(165)).toBe(2_039_280)
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(true)
    expect(await connection.getBlockHeight()).toBe(await connection.getSlot())
    const accounts = await connection.getMultipleAccountsInfo([payer, Keypair.generate().publicKey])
    expect(accounts.map((account) => account?.owner.toBase58() ?? null)).toEqual([
      SystemProgram.programId.toBase58(),
      null,
    ])
  })

  test.each([
    ['getBalance', ['not-a-key'], -32602],
    ['getBalance', [Keypair.generate().publicKey.toBase58().slice(0, 20)], -32602],
    ['getAccountInfo', [devSolanaToken.address, { encoding: 'hex' }], -32602],
    ['sendTransaction', ['AAAA', { encoding: 'base64' }], -32602],
    ['getTokenAccountsByOwner', [devSolanaToken.address, {}], -32602],
    ['getTokenAccountBalance', [devSolanaToken.address], -32602],
    ['eth_chainId', [], -32601],
  ])('%s(%j) is refused with %i', async (method, params, code) => {
    const { error } = await rpc(method, params)
    expect(error?.code).toBe(code)
    expect(error?.message).toMatch(code === -32602 ? /^Invalid param: \S/ : 'Method not found')
  })
})
