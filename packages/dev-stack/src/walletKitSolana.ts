/**
 * The Solana half of the WalletConnect test wallet (walletKit.ts): it answers
 * WalletConnect's Solana RPC with a dev key (`devSolanaKeypair(0)` unless told
 * otherwise), signing with real ed25519 and sending to the local node.
 *
 * - `solana_signMessage` `{ message: base58, pubkey }` → `{ signature: base58 }`
 * - `solana_signTransaction` `{ transaction: base64 }` → `{ signature: base58, transaction: base64 }`
 *   (WalletConnect's reference answers the signature; newer wallets add the signed transaction)
 * - `solana_signAndSendTransaction` `{ transaction: base64, sendOptions? }` → `{ signature: base58 }`
 *
 * Params are checked before the user is asked, as walletRequests.ts does for EVM.
 */
import { createPrivateKey, sign } from 'node:crypto'
import { ErrorCode, RpcError } from '@porthole/protocol/Errors'
import { Connection, type Keypair, type SendOptions, VersionedTransaction } from '@solana/web3.js'
import { base58 } from './solanaRpcFormat.ts'
import { invalidParams } from './walletRequests.ts'

export type SolanaAnswerer = {
  readonly address: string
  /** Answers one Solana request for `chainId` (CAIP-2); `approve` throws when the user says no. */
  answer(method: string, params: unknown, chainId: string, approve: () => void): Promise<unknown>
}

/** The PKCS #8 prefix of an ed25519 private key: Node signs with the 32-byte seed behind it. */
const pkcs8Ed25519 = Buffer.from('302e020100300506032b657004220420', 'hex')

/** An ed25519 signature of `message` by `keypair` (RFC 8032, as wallets sign messages). */
export function signEd25519(keypair: Keypair, message: Uint8Array): Uint8Array {
  const key = createPrivateKey({
    key: Buffer.concat([pkcs8Ed25519, keypair.secretKey.subarray(0, 32)]),
    format: 'der',
    type: 'pkcs8',
  })
  return new Uint8Array(sign(null, message, key))
}

const objectParams = (params: unknown): Record<string, unknown> => {
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    throw invalidParams('params must be an object')
  return params as Record<string, unknown>
}

function decodeBase58(value: unknown, what: string): Uint8Array {
  if (typeof value !== 'string' || value === '') throw invalidParams(`${what} must be base58`)
  try {
    return base58.decode(value)
  } catch {
    throw invalidParams(`${what} must be base58`)
  }
}

function decodeTransaction(value: unknown): VersionedTransaction {
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(value))
    throw invalidParams('transaction must be base64')
  try {
    return VersionedTransaction.deserialize(Buffer.from(value, 'base64'))
  } catch {
    throw invalidParams('transaction is not a Solana transaction')
  }
}

/** `sendOptions` as web3.js's `sendRawTransaction` takes them; unknown fields are dropped. */
function toSendOptions(value: unknown): SendOptions {
  if (value === undefined) return {}
  const { preflightCommitment, skipPreflight, maxRetries, minContextSlot } = objectParams(value)
  return {
    ...(typeof preflightCommitment === 'string'
      ? { preflightCommitment: preflightCommitment as SendOptions['preflightCommitment'] }
      : {}),
    ...(typeof skipPreflight === 'boolean' ? { skipPreflight } : {}),
    ...(typeof maxRetries === 'number' ? { maxRetries } : {}),
    ...(typeof minContextSlot === 'number' ? { minContextSlot } : {}),
  }
}

export function createSolanaAnswerer(options: {
  keypair: Keypair
  /** The local node transactions are sent to. */
  rpcUrl: string
  /** The node's network (CAIP-2): the only one the wallet sends on. */
  nodeChainId: string
}): SolanaAnswerer {
  const { keypair, rpcUrl, nodeChainId } = options
  const address = keypair.publicKey.toBase58()
  const connection = new Connection(rpcUrl, 'confirmed')

  /** Signs as the wallet's key; a transaction that does not ask for that signature is refused. */
  const signTransaction = (transaction: VersionedTransaction) => {
    const signers = transaction.message.staticAccountKeys.slice(
      0,
      transaction.message.header.numRequiredSignatures,
    )
    if (!signers.some((key) => key.equals(keypair.publicKey)))
      throw new RpcError(
        ErrorCode.unauthorized,
        `The transaction needs no signature of ${address}.`,
      )
    transaction.sign([keypair])
    const index = signers.findIndex((key) => key.equals(keypair.publicKey))
    return base58.encode(transaction.signatures[index] as Uint8Array)
  }

  return {
    address,
    async answer(method, params, chainId, approve) {
      switch (method) {
        case 'solana_signMessage': {
          const { message, pubkey } = objectParams(params)
          const bytes = decodeBase58(message, 'message')
          if (pubkey !== address)
            throw new RpcError(ErrorCode.unauthorized, `Unknown account ${String(pubkey)}.`)
          approve()
          return { signature: base58.encode(signEd25519(keypair, bytes)) }
        }

        case 'solana_signTransaction': {
          const transaction = decodeTransaction(objectParams(params).transaction)
          approve()
          const signature = signTransaction(transaction)
          return { signature, transaction: Buffer.from(transaction.serialize()).toString('base64') }
        }

        case 'solana_signAndSendTransaction': {
          const { transaction: encoded, sendOptions } = objectParams(params)
          const transaction = decodeTransaction(encoded)
          const send = toSendOptions(sendOptions)
          approve()
          if (chainId !== nodeChainId)
            throw new RpcError(
              ErrorCode.chainDisconnected,
              `The test wallet sends only on ${nodeChainId}.`,
            )
          signTransaction(transaction)
          return { signature: await connection.sendRawTransaction(transaction.serialize(), send) }
        }

        default:
          throw new RpcError(
            ErrorCode.unsupportedMethod,
            `The test wallet does not support ${method}.`,
          )
      }
    },
  }
}
