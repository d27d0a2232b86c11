/**
 * The local Solana node: a validator's JSON-RPC over litesvm (the real SVM,
 * with the System, SPL Token, Token-2022 and Associated Token Account
 * programs), for `npm start` (port 8899) and the tests (`port: 0`, a free
 * one). Its WebSocket, on the next port as solana-test-validator's, serves
 * `signatureSubscribe` and `accountSubscribe`, so web3.js's
 * `sendAndConfirmTransaction` and kit's confirmations work.
 *
 * Each transaction (an airdrop included) is a block of its own: the slot and
 * block height go up by one and a new blockhash is issued, valid for 150
 * blocks as a validator's. Every commitment is met at once. A transaction that
 * fails is recorded with its error (a real cluster drops those that cannot pay
 * the fee). The genesis hash is fixed (`solanaGenesisHash`). At start-up the
 * node funds the dev accounts (`devSolanaKeypair(0…9)`, 1 000 SOL each) and
 * creates the dev token (`devSolanaToken`), 1 000 000 of it to each, unless
 * `devAccounts: false`.
 *
 * Not served: token balances in transaction metadata, inner instructions, `base64+zstd`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  unpackAccount,
  unpackMint,
} from '@solana/spl-token'
import {
  type AccountInfo,
  type Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  type TransactionInstruction,
  TransactionMessage,
  VersionedMessage,
  VersionedTransaction,
} from '@solana/web3.js'
import { FailedTransactionMetadata, LiteSVM } from 'litesvm'
import { type WebSocket, WebSocketServer } from 'ws'
import { devAccountCount, devSolanaKeypair, devSolanaTokenMint } from './solanaKeys.ts'
import {
  type AccountConfig,
  base58,
  blockhashNotFound,
  describeTransactionError,
  encodeAccount,
  invalidParams,
  SolanaRpcError,
  type TransactionError,
  toAccountConfig,
  toPublicKey,
  toTokenAmount,
  toTransactionError,
} from './solanaRpcFormat.ts'
import { devSolanaToken, solanaGenesisHash } from './stack.ts'

export type SolanaNodeOptions = {
  /** The JSON-RPC port (the WebSocket takes the next one); 0 or unset: a free pair. */
  port?: number
  host?: string
  /** Fund the dev accounts and create the dev token at start-up; defaults to true. */
  devAccounts?: boolean
}

export type SolanaNode = {
  /** The JSON-RPC URL; web3.js's `Connection` finds the WebSocket on the next port by itself. */
  readonly url: string
  readonly wsUrl: string
  readonly port: number
  /** The SVM itself, for a test that sets an account directly. */
  readonly svm: LiteSVM
  /** How many WebSocket subscriptions are open (a test waits for its own). */
  subscriptionCount(): number
  close(): Promise<void>
}

/** A validator keeps a blockhash valid for 150 blocks. */
const blockhashLifetime = 150
const lamportsPerSignature = 5_000
const devLamports = 1_000n * BigInt(LAMPORTS_PER_SOL)
const tokenPrograms = [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID]
const devTokenAmount = 1_000_000n * 10n ** BigInt(devSolanaToken.decimals)

/** A transaction the node has run: what `getSignatureStatuses` and `getTransaction` tell. */
type Landed = {
  slot: number
  blockTime: number
  err: TransactionError | null
  logs: string[]
  unitsConsumed: number
  fee: number
  preBalances: number[]
  postBalances: number[]
  transaction?: VersionedTransaction
}

type Handler = (params: unknown[]) => unknown
type SocketHandler = (params: unknown[], notify: Notify) => unknown

export async function createSolanaNode(options: SolanaNodeOptions = {}): Promise<SolanaNode> {
  const { host = '127.0.0.1', devAccounts = true } = options
  const svm = new LiteSVM().withBlockhashCheck(false)
  const { getAccount, getBalance } = readerOf(svm)
  let slot = 0
  /** Blockhash → the block that issued it. */
  const blockhashes = new Map<string, number>([[svm.latestBlockhash(), 0]])
  let latestBlockhash = svm.latestBlockhash()
  const landed = new Map<string, Landed>()
  const subscriptions = createSubscriptions()

  const context = () => ({ slot, apiVersion: '2.2.0' })
  const withContext = (value: unknown) => ({ context: context(), value })
  const isRecent = (blockhash: string) => {
    const issued = blockhashes.get(blockhash)
    return issued !== undefined && slot - issued <= blockhashLifetime
  }
  const mintDecimals = (mint: PublicKey) => {
    const account = getAccount(mint)
    if (!account) return 0
    try {
      return unpackMint(mint, { ...account, data: Buffer.from(account.data) }, account.owner)
        .decimals
    } catch {
      return 0
    }
  }
  const encode = (address: PublicKey, config: AccountConfig) => {
    const account = getAccount(address)
    return account ? encodeAccount(address, account, config, mintDecimals) : null
  }

  /** Closes the block of one transaction: the next slot, a new blockhash, the subscribers told. */
  const closeBlock = (signature: string, result: Omit<Landed, 'slot' | 'blockTime'>) => {
    slot += 1
    svm.warpToSlot(BigInt(slot))
    svm.expireBlockhash()
    latestBlockhash = svm.latestBlockhash()
    blockhashes.set(latestBlockhash, slot)
    for (const [hash, issued] of blockhashes)
      if (slot - issued > blockhashLifetime) blockhashes.delete(hash)
    landed.set(signature, { ...result, slot, blockTime: Math.floor(Date.now() / 1000) })
    subscriptions.signature(signature, withContext({ err: result.err }))
    subscriptions.accounts((address, config) => withContext(encode(new PublicKey(address), config)))
    return signature
  }

  const simulate = (transaction: VersionedTransaction, sigVerify: boolean) => {
    if (!isRecent(transaction.message.recentBlockhash))
      return { err: blockhashNotFound, logs: [], unitsConsumed: 0, returnData: null }
    svm.withSigverify(sigVerify)
    try {
      const result = svm.simulateTransaction(toKitTransaction(transaction))
      const meta = result.meta()
      return {
        err: result instanceof FailedTransactionMetadata ? toTransactionError(result) : null,
        logs: meta.logs(),
        unitsConsumed: Number(meta.computeUnitsConsumed()),
        returnData: null,
      }
    } finally {
      svm.withSigverify(true)
    }
  }

  const execute = (transaction: VersionedTransaction): string => {
    const keys = transaction.message.staticAccountKeys
    const balances = () => keys.map(getBalance)
    const signature = base58.encode(transaction.signatures[0] ?? new Uint8Array(64))
    // A cluster runs a transaction once: sent again, it answers the same signature.
    if (landed.has(signature)) return signature
    const preBalances = balances()
    const fee = lamportsPerSignature * transaction.message.header.numRequiredSignatures
    if (!isRecent(transaction.message.recentBlockhash)) {
      const rest = { logs: [], unitsConsumed: 0, fee: 0, postBalances: preBalances }
      return closeBlock(signature, { err: blockhashNotFound, preBalances, transaction, ...rest })
    }
    const result = svm.sendTransaction(toKitTransaction(transaction))
    const failed = result instanceof FailedTransactionMetadata
    const meta = failed ? result.meta() : result
    return closeBlock(signature, {
      err: failed ? toTransactionError(result) : null,
      logs: meta.logs(),
      unitsConsumed: Number(meta.computeUnitsConsumed()),
      fee,
      preBalances,
      postBalances: balances(),
      transaction,
    })
  }

  const airdrop = (to: PublicKey, lamports: bigint): string => {
    const before = getBalance(to)
    const result = svm.airdrop(toAddress(to), lamports as Lamports)
    if (!result || result instanceof FailedTransactionMetadata)
      throw new SolanaRpcError(-32603, 'Internal error: the airdrop failed')
    return closeBlock(base58.encode(result.signature()), {
      err: null,
      logs: result.logs(),
      unitsConsumed: 0,
      fee: lamportsPerSignature,
      preBalances: [before],
      postBalances: [getBalance(to)],
    })
  }

  /** The WebSocket's methods: each subscription answers its id, and notifies through `notify`. */
  const socketMethods: Record<string, SocketHandler> = {
    signatureSubscribe: ([signature], notify) => {
      const id = subscriptions.addSignature(String(signature), notify)
      const done = landed.get(String(signature))
      if (done)
        setImmediate(() =>
          subscriptions.signature(String(signature), withContext({ err: done.err })),
        )
      return id
    },
    accountSubscribe: ([address, config], notify) => {
      const key = toPublicKey(address)
      const encoding = toAccountConfig(config)
      return subscriptions.addAccount(key.toBase58(), encoding, encode(key, encoding), notify)
    },
    signatureUnsubscribe: ([id]) => subscriptions.remove(Number(id)),
    accountUnsubscribe: ([id]) => subscriptions.remove(Number(id)),
  }

  const methods: Record<string, Handler> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': '2.2.0', 'feature-set': 0 }),
    getGenesisHash: () => solanaGenesisHash,
    getSlot: () => slot,
    getBlockHeight: () => slot,
    getEpochInfo: () => ({
      absoluteSlot: slot,
      blockHeight: slot,
      epoch: 0,
      slotIndex: slot,
      slotsInEpoch: 432_000,
      transactionCount: landed.size,
    }),
    getRecentPrioritizationFees: () => [],
    getLatestBlockhash: () =>
      withContext({
        blockhash: latestBlockhash,
        lastValidBlockHeight: slot + blockhashLifetime,
      }),
    isBlockhashValid: ([blockhash]) => withContext(isRecent(String(blockhash))),
    getBalance: ([address]) => withContext(getBalance(toPublicKey(address))),
    getAccountInfo: ([address, config]) =>
      withContext(encode(toPublicKey(address), toAccountConfig(config))),
    getMultipleAccounts: ([addresses, config]) => {
      if (!Array.isArray(addresses) || addresses.length > 100)
        throw invalidParams('expected an array of at most 100 public keys')
      const encoding = toAccountConfig(config)
      return withContext(addresses.map((address) => encode(toPublicKey(address), encoding)))
    },
    getMinimumBalanceForRentExemption: ([space]) => {
      if (!Number.isSafeInteger(space) || (space as number) < 0)
        throw invalidParams('expected a data length')
      return Number(svm.minimumBalanceForRentExemption(BigInt(space as number)))
    },
    getFeeForMessage: ([message]) => {
      const parsed = toMessage(message)
      return withContext(
        isRecent(parsed.recentBlockhash)
          ? lamportsPerSignature * parsed.header.numRequiredSignatures
          : null,
      )
    },
    getTokenAccountsByOwner: ([owner, filter, config]) => {
      const ownerKey = toPublicKey(owner)
      const { mint, programId } = (filter ?? {}) as { mint?: unknown; programId?: unknown }
      if ((mint === undefined) === (programId === undefined))
        throw invalidParams('expected a filter with one of mint or programId')
      const mintKey = mint === undefined ? undefined : toPublicKey(mint)
      const programKey = programId === undefined ? undefined : toPublicKey(programId)
      const encoding = toAccountConfig(config)
      const programs = programKey ? [programKey] : tokenPrograms
      const all = programs.flatMap((program) => svm.getProgramAccounts(toAddress(program)))
      const accounts = all.flatMap(({ address }) => {
        const key = new PublicKey(address)
        const account = getAccount(key)
        if (!account) return []
        try {
          const token = unpackAccount(
            key,
            { ...account, data: Buffer.from(account.data) },
            account.owner,
          )
          if (!token.owner.equals(ownerKey) || (mintKey && !token.mint.equals(mintKey))) return []
        } catch {
          return []
        }
        return [{ pubkey: address, account: encode(key, encoding) }]
      })
      return withContext(accounts)
    },
    getTokenAccountBalance: ([address]) => {
      const key = toPublicKey(address)
      const account = getAccount(key)
      try {
        if (!account) throw new Error('no account')
        const token = unpackAccount(
          key,
          { ...account, data: Buffer.from(account.data) },
          account.owner,
        )
        return withContext(toTokenAmount(token.amount, mintDecimals(token.mint)))
      } catch {
        throw invalidParams('not a Token account')
      }
    },
    getTokenSupply: ([address]) => {
      const key = toPublicKey(address)
      const account = getAccount(key)
      try {
        if (!account) throw new Error('no account')
        const mint = unpackMint(key, { ...account, data: Buffer.from(account.data) }, account.owner)
        return withContext(toTokenAmount(mint.supply, mint.decimals))
      } catch {
        throw invalidParams('not a Token mint')
      }
    },
    requestAirdrop: ([address, lamports]) => {
      if (!Number.isSafeInteger(lamports) || (lamports as number) <= 0)
        throw invalidParams('expected a number of lamports')
      return airdrop(toPublicKey(address), BigInt(lamports as number))
    },
    simulateTransaction: ([encoded, config]) => {
      const settings = (config ?? {}) as {
        encoding?: unknown
        sigVerify?: boolean
        replaceRecentBlockhash?: boolean
      }
      let transaction = toTransaction(encoded, settings.encoding ?? 'base58')
      if (settings.sigVerify && settings.replaceRecentBlockhash)
        throw invalidParams('sigVerify may not be used with replaceRecentBlockhash')
      if (settings.replaceRecentBlockhash) {
        transaction.message.recentBlockhash = latestBlockhash
        transaction = new VersionedTransaction(transaction.message, transaction.signatures)
      }
      const result = simulate(transaction, settings.sigVerify === true)
      return withContext({
        ...result,
        accounts: null,
        innerInstructions: null,
        replacementBlockhash: settings.replaceRecentBlockhash
          ? { blockhash: latestBlockhash, lastValidBlockHeight: slot + blockhashLifetime }
          : null,
      })
    },
    sendTransaction: ([encoded, config]) => {
      const settings = (config ?? {}) as { encoding?: unknown; skipPreflight?: boolean }
      const transaction = toTransaction(encoded, settings.encoding ?? 'base58')
      if (!transaction.message.staticAccountKeys.length || !transaction.signatures.length)
        throw invalidParams('invalid transaction: Transaction failed to sanitize')
      if (!settings.skipPreflight) {
        const result = simulate(transaction, true)
        if (result.err === 'SignatureFailure')
          throw new SolanaRpcError(-32003, 'Transaction signature verification failure')
        if (result.err !== null)
          throw new SolanaRpcError(
            -32002,
            `Transaction simulation failed: ${describeTransactionError(result.err)}`,
            { ...result, accounts: null, innerInstructions: null, replacementBlockhash: null },
          )
      }
      return execute(transaction)
    },
    getSignatureStatuses: ([signatures]) => {
      if (!Array.isArray(signatures) || signatures.length > 256)
        throw invalidParams('expected an array of at most 256 signatures')
      return withContext(
        signatures.map((signature) => {
          const result = landed.get(String(signature))
          if (!result) return null
          return {
            slot: result.slot,
            confirmations: null,
            err: result.err,
            status: result.err === null ? { Ok: null } : { Err: result.err },
            confirmationStatus: 'finalized',
          }
        }),
      )
    },
    // The validator's: the signatures of transactions naming the address, newest first,
    // before `before` (exclusive), back to `until` (exclusive), at most `limit` (1 to 1000).
    getSignaturesForAddress: ([address, config]) => {
      const key = toPublicKey(address).toBase58()
      const {
        limit = 1000,
        before,
        until,
      } = (config ?? {}) as {
        limit?: number
        before?: string
        until?: string
      }
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw invalidParams('limit must be 1 to 1000')
      const newestFirst = [...landed.entries()].reverse()
      const start =
        before === undefined ? 0 : newestFirst.findIndex(([signature]) => signature === before) + 1
      const found: unknown[] = []
      for (const [signature, result] of newestFirst.slice(start)) {
        if (signature === until || found.length === limit) break
        const keys = result.transaction?.message.staticAccountKeys ?? []
        if (!keys.some((account) => account.toBase58() === key)) continue
        found.push({
          signature,
          slot: result.slot,
          err: result.err,
          memo: null,
          blockTime: result.blockTime,
          confirmationStatus: 'finalized',
        })
      }
      return found
    },
    getTransaction: ([signature, config]) => {
      const result = landed.get(String(signature))
      if (!result?.transaction) return null
      const settings = (config ?? {}) as {
        encoding?: unknown
        maxSupportedTransactionVersion?: number
      }
      const { transaction } = result
      const version = transaction.version
      if (version === 0 && settings.maxSupportedTransactionVersion === undefined)
        throw new SolanaRpcError(
          -32015,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        )
      return {
        slot: result.slot,
        blockTime: result.blockTime,
        version,
        transaction: encodeTransaction(transaction, settings.encoding ?? 'json'),
        meta: {
          err: result.err,
          status: result.err === null ? { Ok: null } : { Err: result.err },
          fee: result.fee,
          preBalances: result.preBalances,
          postBalances: result.postBalances,
          innerInstructions: [],
          logMessages: result.logs,
          preTokenBalances: [],
          postTokenBalances: [],
          rewards: [],
          loadedAddresses: { writable: [], readonly: [] },
          computeUnitsConsumed: result.unitsConsumed,
        },
      }
    },
  }

  if (devAccounts)
    seedDevAccounts({
      svm,
      airdrop,
      execute,
      failure: (signature) => landed.get(signature)?.err ?? null,
    })

  return listen({ host, port: options.port ?? 0, methods, socketMethods, subscriptions, svm })
}

/** The dev accounts' SOL, and the dev token with 1 000 000 of it in each one's associated token account. */
function seedDevAccounts(node: {
  svm: LiteSVM
  airdrop: (to: PublicKey, lamports: bigint) => string
  execute: (transaction: VersionedTransaction) => string
  failure: (signature: string) => TransactionError | null
}) {
  const { svm } = node
  const authority = devSolanaKeypair(0)
  const mint = devSolanaTokenMint()
  if (mint.publicKey.toBase58() !== devSolanaToken.address)
    throw new Error(
      `The dev token's mint is ${mint.publicKey.toBase58()}, not ${devSolanaToken.address}.`,
    )
  const owners = Array.from(
    { length: devAccountCount },
    (_, index) => devSolanaKeypair(index).publicKey,
  )
  for (const owner of owners) node.airdrop(owner, devLamports)
  const send = (instructions: TransactionInstruction[], signers: Keypair[] = []) => {
    const message = new TransactionMessage({
      payerKey: authority.publicKey,
      recentBlockhash: svm.latestBlockhash(),
      instructions,
    }).compileToV0Message()
    const transaction = new VersionedTransaction(message)
    transaction.sign([authority, ...signers])
    const error = node.failure(node.execute(transaction))
    if (error) throw new Error(`The dev token was not created: ${JSON.stringify(error)}`)
  }
  send(
    [
      SystemProgram.createAccount({
        fromPubkey: authority.publicKey,
        newAccountPubkey: mint.publicKey,
        space: MINT_SIZE,
        lamports: Number(svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE))),
        programId: TOKEN_PROGRAM_ID,
      }),
      createInitializeMint2Instruction(
        mint.publicKey,
        devSolanaToken.decimals,
        authority.publicKey,
        null,
      ),
    ],
    [mint],
  )
  for (const owner of owners) {
    const account = getAssociatedTokenAddressSync(mint.publicKey, owner)
    send([
      createAssociatedTokenAccountIdempotentInstruction(
        authority.publicKey,
        account,
        owner,
        mint.publicKey,
      ),
      createMintToInstruction(mint.publicKey, account, authority.publicKey, devTokenAmount),
    ])
  }
}

type Address = Parameters<LiteSVM['getBalance']>[0]
type Lamports = Parameters<LiteSVM['airdrop']>[1]
type KitTransaction = Parameters<LiteSVM['sendTransaction']>[0]

const toAddress = (key: PublicKey) => key.toBase58() as Address

/** litesvm (1.x speaks @solana/kit) read with web3.js 1.x types. */
function readerOf(svm: LiteSVM) {
  return {
    getAccount(key: PublicKey): AccountInfo<Uint8Array> | null {
      const account = svm.getAccount(toAddress(key))
      if (!account.exists) return null
      const { lamports, programAddress, data, executable } = account
      return { lamports: Number(lamports), owner: new PublicKey(programAddress), data, executable }
    },
    getBalance: (key: PublicKey) => Number(svm.getBalance(toAddress(key)) ?? 0n),
  }
}

/** A web3.js transaction as litesvm takes it: the message's bytes and the signatures by signer. */
function toKitTransaction(transaction: VersionedTransaction): KitTransaction {
  const { message, signatures } = transaction
  const signers = message.staticAccountKeys.slice(0, message.header.numRequiredSignatures)
  return {
    messageBytes: message.serialize(),
    signatures: Object.fromEntries(
      signers.map((key, index) => [key.toBase58(), signatures[index]]),
    ),
  } as unknown as KitTransaction
}

/** A wire transaction among the params (`base58` or `base64`), or -32602. */
function toTransaction(encoded: unknown, encoding: unknown): VersionedTransaction {
  try {
    return VersionedTransaction.deserialize(toBytes(encoded, encoding))
  } catch (error) {
    if (error instanceof SolanaRpcError) throw error
    throw invalidParams('failed to deserialize the transaction')
  }
}

/** A base64 message (`getFeeForMessage`), or -32602. */
function toMessage(encoded: unknown): VersionedMessage {
  try {
    return VersionedMessage.deserialize(toBytes(encoded, 'base64'))
  } catch (error) {
    if (error instanceof SolanaRpcError) throw error
    throw invalidParams('failed to deserialize the message')
  }
}

function toBytes(encoded: unknown, encoding: unknown): Uint8Array {
  if (typeof encoded !== 'string') throw invalidParams('expected an encoded transaction')
  if (encoding === 'base58') return base58.decode(encoded)
  if (encoding === 'base64') return Buffer.from(encoded, 'base64')
  throw invalidParams(
    `unsupported encoding: ${JSON.stringify(encoding)}. Supported encodings: base58, base64`,
  )
}

/** A transaction as `getTransaction` gives it: `json` (and `jsonParsed`, unparsed), or `base58` / `base64`. */
function encodeTransaction(transaction: VersionedTransaction, encoding: unknown) {
  const bytes = transaction.serialize()
  if (encoding === 'base64') return [Buffer.from(bytes).toString('base64'), 'base64']
  if (encoding === 'base58') return [base58.encode(bytes), 'base58']
  if (encoding !== 'json' && encoding !== 'jsonParsed')
    throw invalidParams(`unsupported encoding: ${JSON.stringify(encoding)}`)
  const { message } = transaction
  const accountKeys = message.staticAccountKeys.map((key) => key.toBase58())
  const instructions = message.compiledInstructions.map((instruction) => ({
    programIdIndex: instruction.programIdIndex,
    accounts: instruction.accountKeyIndexes,
    data: base58.encode(instruction.data),
    stackHeight: null,
  }))
  const signatures = transaction.signatures.map((signature) => base58.encode(signature))
  if (encoding === 'jsonParsed')
    return {
      signatures,
      message: {
        accountKeys: accountKeys.map((pubkey, index) => ({
          pubkey,
          signer: message.isAccountSigner(index),
          writable: message.isAccountWritable(index),
          source: 'transaction',
        })),
        recentBlockhash: message.recentBlockhash,
        instructions: instructions.map(({ programIdIndex, accounts, data }) => ({
          programId: accountKeys[programIdIndex],
          accounts: accounts.map((index) => accountKeys[index]),
          data,
          stackHeight: null,
        })),
      },
    }
  return {
    signatures,
    message: {
      accountKeys,
      header: message.header,
      recentBlockhash: message.recentBlockhash,
      instructions,
      ...(transaction.version === 0
        ? {
            addressTableLookups: message.addressTableLookups.map((lookup) => ({
              accountKey: lookup.accountKey.toBase58(),
              writableIndexes: lookup.writableIndexes,
              readonlyIndexes: lookup.readonlyIndexes,
            })),
          }
        : {}),
    },
  }
}

type Notify = (method: string, subscription: number, result: unknown) => void

/** The WebSocket's subscriptions: signatures (one notification each) and accounts (each change). */
function createSubscriptions() {
  let next = 0
  const signatures = new Map<number, { signature: string; notify: Notify }>()
  const accounts = new Map<
    number,
    { address: string; config: AccountConfig; last: string; notify: Notify }
  >()
  return {
    addSignature(signature: string, notify: Notify) {
      next += 1
      signatures.set(next, { signature, notify })
      return next
    },
    addAccount(address: string, config: AccountConfig, current: unknown, notify: Notify) {
      next += 1
      accounts.set(next, { address, config, last: JSON.stringify(current), notify })
      return next
    },
    count: () => signatures.size + accounts.size,
    remove(id: number) {
      return signatures.delete(id) || accounts.delete(id)
    },
    /** Drops the subscriptions of a closed socket. */
    removeAll(notify: Notify) {
      for (const [id, entry] of [...signatures, ...accounts])
        if (entry.notify === notify) this.remove(id)
    },
    signature(signature: string, result: unknown) {
      for (const [id, entry] of signatures) {
        if (entry.signature !== signature) continue
        signatures.delete(id)
        entry.notify('signatureNotification', id, result)
      }
    },
    accounts(read: (address: string, config: AccountConfig) => { value: unknown }) {
      for (const [id, entry] of accounts) {
        const result = read(entry.address, entry.config)
        const value = JSON.stringify(result.value)
        if (value === entry.last) continue
        entry.last = value
        entry.notify('accountNotification', id, result)
      }
    },
  }
}

type Subscriptions = ReturnType<typeof createSubscriptions>

/** Serves the HTTP JSON-RPC on `port` and the WebSocket on the next port; with port 0, a free pair. */
async function listen(node: {
  host: string
  port: number
  methods: Record<string, Handler>
  socketMethods: Record<string, SocketHandler>
  subscriptions: Subscriptions
  svm: LiteSVM
}): Promise<SolanaNode> {
  const { host, methods, socketMethods, subscriptions, svm } = node
  for (let attempt = 1; ; attempt += 1) {
    const server = createServer((request, response) => {
      serveHttp(request, response, methods).catch((error: Error) => {
        response.writeHead(500).end(error.message)
      })
    })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(node.port, host, () => resolve())
    })
    const { port } = server.address() as AddressInfo
    const sockets = new WebSocketServer({ host, port: port + 1 })
    try {
      await new Promise<void>((resolve, reject) => {
        sockets.once('error', reject)
        sockets.once('listening', () => resolve())
      })
    } catch (error) {
      await new Promise((resolve) => server.close(resolve))
      if (node.port !== 0 || attempt >= 20) throw error
      continue
    }
    sockets.on('connection', (socket) => serveSocket(socket, socketMethods, subscriptions))
    return {
      url: `http://${host}:${port}`,
      wsUrl: `ws://${host}:${port + 1}`,
      port,
      svm,
      subscriptionCount: subscriptions.count,
      close: async () => {
        for (const client of sockets.clients) client.terminate()
        await new Promise((resolve) => sockets.close(resolve))
        server.closeAllConnections()
        await new Promise((resolve) => server.close(resolve))
      },
    }
  }
}

type JsonRpcRequest = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown }

const cors = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, GET, OPTIONS',
  'access-control-allow-headers': 'content-type, solana-client',
}

async function serveHttp(
  request: IncomingMessage,
  response: ServerResponse,
  methods: Record<string, Handler>,
) {
  if (request.method === 'OPTIONS') return void response.writeHead(204, cors).end()
  if (request.method === 'GET' && request.url === '/health')
    return void response.writeHead(200, { ...cors, 'content-type': 'text/plain' }).end('ok')
  if (request.method !== 'POST') return void response.writeHead(405, cors).end()
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  let body: unknown
  try {
    body = JSON.parse(Buffer.concat(chunks).toString())
  } catch {
    body = undefined
  }
  const answer =
    body === undefined
      ? failure(null, new SolanaRpcError(-32700, 'Parse error'))
      : Array.isArray(body)
        ? body.map((entry) => call(entry as JsonRpcRequest, methods))
        : call(body as JsonRpcRequest, methods)
  response
    .writeHead(200, { ...cors, 'content-type': 'application/json' })
    .end(JSON.stringify(answer))
}

function failure(id: unknown, error: SolanaRpcError) {
  const { code, message, data } = error
  return {
    jsonrpc: '2.0',
    error: data === undefined ? { code, message } : { code, message, data },
    id,
  }
}

/** One JSON-RPC call, answered as a validator does (errors included). */
function call(request: JsonRpcRequest, methods: Record<string, Handler>) {
  const id = request?.id ?? null
  if (request?.jsonrpc !== '2.0' || typeof request.method !== 'string')
    return failure(id, new SolanaRpcError(-32600, 'Invalid request'))
  const handler = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined
  if (!handler) return failure(id, new SolanaRpcError(-32601, 'Method not found'))
  const params = request.params ?? []
  if (!Array.isArray(params)) return failure(id, new SolanaRpcError(-32602, 'Invalid params'))
  try {
    return { jsonrpc: '2.0', result: handler(params), id }
  } catch (error) {
    if (error instanceof SolanaRpcError) return failure(id, error)
    return failure(id, new SolanaRpcError(-32603, `Internal error: ${(error as Error).message}`))
  }
}

function serveSocket(
  socket: WebSocket,
  methods: Record<string, SocketHandler>,
  subscriptions: Subscriptions,
) {
  const notify: Notify = (method, subscription, result) => {
    if (socket.readyState === socket.OPEN)
      socket.send(JSON.stringify({ jsonrpc: '2.0', method, params: { result, subscription } }))
  }
  const bound: Record<string, Handler> = Object.fromEntries(
    Object.entries(methods).map(([name, handler]) => [name, (params) => handler(params, notify)]),
  )
  socket.on('message', (data) => {
    let request: JsonRpcRequest
    try {
      request = JSON.parse(data.toString()) as JsonRpcRequest
    } catch {
      socket.send(JSON.stringify(failure(null, new SolanaRpcError(-32700, 'Parse error'))))
      return
    }
    socket.send(JSON.stringify(call(request, bound)))
  })
  socket.on('close', () => subscriptions.removeAll(notify))
}
