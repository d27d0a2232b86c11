/**
 * The embedded wallet's JSON-RPC (SPEC 6, DESIGN 4). A method on neither
 * list is refused ('Requested RPC call is not allowed'). Safe methods run at
 * once: account and network status here, read-only calls through the API's
 * RPC proxy. A needs-approval method is checked, shown in the frame's own
 * approval UI with the browser-verified host origin (SECURITY.md 6 and 8),
 * and only once the user approves is a key rebuilt and the request signed.
 * A method the frame cannot sign yet is refused before anything is shown.
 * EIP-5792 batches (`wallet_sendCalls`) are one approval, then consecutive
 * transactions (calls.ts).
 */
import { ed25519 } from '@noble/curves/ed25519'
import { type ApprovalMethod, isSafeMethod, needsApproval } from '@porthole/protocol/EmbeddedRpc'
import {
  ErrorCode,
  ErrorMessage,
  InvalidParamsError,
  RpcError,
  UserRejectedError,
} from '@porthole/protocol/Errors'
import type * as Secure from '@porthole/protocol/Secure'
import { z } from '@porthole/protocol/zod'
import { base58 } from '@scure/base'
import { type Hex, hexToBigInt, isHex, numberToHex } from 'viem'
import { NotAvailableError, NotConnectedError, RpcNotAllowedError } from '../errors.js'
import {
  assertBundleIdFree,
  capabilitiesOf,
  createBundleId,
  GetCallsStatusParams,
  getBundle,
  getCallsStatus,
  inTurn,
  parseSendCalls,
  rememberBundle,
  sendInOrder,
} from './calls.js'
import {
  type ApprovalRequest,
  type Context,
  getChainId,
  namespaceOf,
  requireSession,
  solanaMainnet,
} from './session.js'
import { withEvmAccount, withSolanaKey } from './signer.js'
import {
  parseTransactions,
  SignAllTransactionsParams,
  SignTransactionParams,
  signTransaction,
} from './solana.js'
import type { CachedUser } from './storage.js'

/** The needs-approval methods this frame signs today; the others answer 'Method not supported yet'. */
export const signedMethods = [
  'personal_sign',
  'eth_signTypedData_v4',
  'eth_sendTransaction',
  'solana_signMessage',
  'solana_signTransaction',
  'solana_signAllTransactions',
  'wallet_sendCalls',
] as const satisfies readonly ApprovalMethod[]
type SignedMethod = (typeof signedMethods)[number]

export const methodNotSupported = 'Method not supported yet'

export type RpcOptions = {
  /** The request's signal: aborting it rejects the approval and signs nothing. */
  signal: AbortSignal
}

/** 4001 'Request was aborted': withdrawn before the user decided (as the approval UI answers). */
export function createAbortedError(): RpcError {
  return new UserRejectedError(ErrorMessage.requestAborted)
}

function isSignedMethod(method: string): method is SignedMethod {
  return (signedMethods as readonly string[]).includes(method)
}

/** Runs one RPC request of the embedded wallet. */
export async function handleRpc(
  context: Context,
  request: Secure.RpcRequest,
  options: RpcOptions,
): Promise<unknown> {
  const { method } = request
  if (isSafeMethod(method)) return runSafe(context, request)
  if (!needsApproval(method)) throw new RpcNotAllowedError()
  if (!isSignedMethod(method)) throw new NotAvailableError(methodNotSupported)
  return runSigned(context, { ...request, method }, options)
}

// ---------------------------------------------------------------------------
// Safe methods

const evmChainPattern = /^eip155:(\d{1,15})$/

/** The numeric id of an EVM network, or a 4901 error for any other network. */
function evmChainIdOf(chainId: string, method: string): number {
  const match = evmChainPattern.exec(chainId)
  if (!match)
    throw new RpcError(ErrorCode.chainDisconnected, `${method} is not available on ${chainId}`)
  return Number(match[1])
}

async function currentUser(context: Context): Promise<CachedUser | undefined> {
  const [token, user] = await Promise.all([context.storage.getToken(), context.storage.getUser()])
  return token ? user : undefined
}

const GetCapabilitiesParams = z.union([
  z.tuple([]),
  z.tuple([z.string().max(128)]),
  z.tuple([z.string().max(128), z.array(z.string().regex(/^0x[0-9a-fA-F]{1,15}$/)).max(64)]),
])

async function runSafe(context: Context, request: Secure.RpcRequest): Promise<unknown> {
  const { method } = request
  const chainId = request.chainId ?? (await getChainId(context))
  switch (method) {
    case 'eth_accounts': {
      const user = await currentUser(context)
      return user ? [user.addresses.eip155] : []
    }
    case 'eth_requestAccounts': {
      const { user } = await requireSession(context)
      return [user.addresses.eip155]
    }
    case 'eth_chainId':
      return numberToHex(evmChainIdOf(chainId, method))
    case 'net_version':
      return String(evmChainIdOf(chainId, method))
    case 'wallet_getCapabilities': {
      const { user } = await requireSession(context)
      const parsed = GetCapabilitiesParams.safeParse(request.params ?? [])
      if (!parsed.success)
        throw new InvalidParamsError('Invalid parameters for wallet_getCapabilities.')
      const [address, chains] = parsed.data
      if (address !== undefined && address.toLowerCase() !== user.addresses.eip155.toLowerCase())
        throw new NotConnectedError('The address is not this wallet’s account')
      const ids = chains ?? [numberToHex(evmChainIdOf(chainId, method))]
      // Batches are sent as separate transactions: never atomic; no paymasters.
      return Object.fromEntries(
        ids.map((id) => [numberToHex(hexToBigInt(id as Hex)), capabilitiesOf()]),
      )
    }
    case 'wallet_getCallsStatus': {
      const { user } = await requireSession(context)
      const [id] = parseParams(GetCallsStatusParams, request.params, method)
      const bundle = getBundle(context.memory, id, user.addresses.eip155)
      return getCallsStatus(id, bundle, (name, args) => context.api.rpc(bundle.chainId, name, args))
    }
    case 'wallet_getAssets':
    case 'wallet_getPermissions':
      throw new NotAvailableError(methodNotSupported)
    default:
      evmChainIdOf(chainId, method)
      return context.api.rpc(chainId, method, request.params)
  }
}

// ---------------------------------------------------------------------------
// Needs approval

const maxMessageLength = 262_144
const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/)
const HexData = z
  .string()
  .regex(/^0x[0-9a-fA-F]*$/)
  .max(maxMessageLength)
const Quantity = z.string().regex(/^0x[0-9a-fA-F]{1,64}$/)

const PersonalSignParams = z.tuple([z.string().max(maxMessageLength), Address]).rest(z.unknown())

const TypedDataParams = z.tuple([
  Address,
  z.union([z.string().max(maxMessageLength), z.record(z.string(), z.unknown())]),
])
const TypedData = z.object({
  types: z.record(
    z.string(),
    z.array(z.object({ name: z.string().max(256), type: z.string().max(256) })).max(256),
  ),
  primaryType: z.string().max(256),
  domain: z.record(z.string(), z.unknown()).optional(),
  message: z.record(z.string(), z.unknown()),
})

const TransactionParams = z.tuple([
  z.object({
    from: Address.optional(),
    to: Address.nullish(),
    value: Quantity.optional(),
    data: HexData.optional(),
    input: HexData.optional(),
    gas: Quantity.optional(),
    nonce: Quantity.optional(),
    maxFeePerGas: Quantity.optional(),
    maxPriorityFeePerGas: Quantity.optional(),
    chainId: Quantity.optional(),
  }),
])

const SolanaSignMessageParams = z.object({
  message: z.string().min(1).max(maxMessageLength),
  pubkey: z.string().max(64),
})

function parseParams<schema extends z.ZodType>(
  schema: schema,
  params: unknown,
  method: string,
): z.output<schema> {
  const parsed = schema.safeParse(params)
  if (!parsed.success) throw new InvalidParamsError(`Invalid parameters for ${method}.`)
  return parsed.data
}

function sameEvmAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}

function assertAccount(matches: boolean): void {
  if (!matches) throw new NotConnectedError('The address is not this wallet’s account')
}

/** Settles as `promise` does, or rejects with 'Request was aborted' as soon as `signal` aborts. */
function untilAborted<value>(promise: Promise<value>, signal: AbortSignal): Promise<value> {
  return new Promise<value>((resolve, reject) => {
    const onAbort = () => reject(createAbortedError())
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/** The host's origin, from the browser when it says (SECURITY.md 8), else as the widget's handshake saw it. */
function hostOrigin(context: Context, request: Secure.RpcRequest): string {
  const origin = context.ancestorOrigin() ?? request.origin
  if (!origin) throw new NotConnectedError("The site's origin could not be verified")
  return origin
}

function siteOf(context: Context): ApprovalRequest['site'] {
  const metadata = context.memory.dappData?.metadata
  if (!metadata) return undefined
  const [icon] = metadata.icons
  return { name: metadata.name, ...(icon === undefined ? {} : { icon }) }
}

type Prepared = {
  /** What the approval shows: the account and network that will sign. */
  chainId: string
  account: string
  /** Signs, once approved. */
  sign: () => Promise<unknown>
}

async function runSigned(
  context: Context,
  request: Secure.RpcRequest & { method: SignedMethod },
  { signal }: RpcOptions,
): Promise<unknown> {
  const { user } = await requireSession(context)
  const current = await getChainId(context)
  const prepared = prepare(context, request, user, current)
  const origin = hostOrigin(context, request)
  const site = siteOf(context)
  await untilAborted(
    context.requestApproval(
      {
        method: request.method,
        params: request.params,
        chainId: prepared.chainId,
        account: prepared.account,
        origin,
        ...(site === undefined ? {} : { site }),
      },
      { signal },
    ),
    signal,
  )
  if (signal.aborted) throw createAbortedError()
  return prepared.sign()
}

/** Checks a request before it is shown: its params, account and network. */
function prepare(
  context: Context,
  request: Secure.RpcRequest & { method: SignedMethod },
  user: CachedUser,
  current: string,
): Prepared {
  const { method, params } = request
  if (
    method === 'solana_signMessage' ||
    method === 'solana_signTransaction' ||
    method === 'solana_signAllTransactions'
  ) {
    const chainId = request.chainId ?? (namespaceOf(current) === 'solana' ? current : solanaMainnet)
    if (namespaceOf(chainId) !== 'solana')
      throw new InvalidParamsError(`${method} is not available on ${chainId}`)
    const account = user.addresses.solana
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
        return {
          chainId,
          account,
          sign: () =>
            withSolanaKey(context, (key) => ({
              signature: base58.encode(ed25519.sign(bytes, key)),
            })),
        }
      }
      case 'solana_signTransaction': {
        const { transaction } = parseParams(SignTransactionParams, params, method)
        const [parsed] = parseTransactions([transaction], base58.decode(account))
        if (!parsed) throw new InvalidParamsError(`Invalid parameters for ${method}.`)
        return {
          chainId,
          account,
          sign: () =>
            withSolanaKey(context, (key) => ({ transaction: signTransaction(parsed, key) })),
        }
      }
      case 'solana_signAllTransactions': {
        const { transactions } = parseParams(SignAllTransactionsParams, params, method)
        // Every transaction is checked before the one approval for the batch.
        const parsed = parseTransactions(transactions, base58.decode(account))
        return {
          chainId,
          account,
          sign: () =>
            withSolanaKey(context, (key) => ({
              transactions: parsed.map((transaction) => signTransaction(transaction, key)),
            })),
        }
      }
    }
  }

  const chainId = request.chainId ?? current
  const chain = evmChainIdOf(chainId, method)
  const account = user.addresses.eip155
  switch (method) {
    case 'personal_sign': {
      const [message, address] = parseParams(PersonalSignParams, params, method)
      assertAccount(sameEvmAddress(address, account))
      return {
        chainId,
        account,
        sign: () =>
          withEvmAccount(context, (signer) =>
            signer.signMessage({ message: isHex(message) ? { raw: message } : message }),
          ),
      }
    }
    case 'eth_signTypedData_v4': {
      const [address, raw] = parseParams(TypedDataParams, params, method)
      assertAccount(sameEvmAddress(address, account))
      let json: unknown = raw
      if (typeof raw === 'string') {
        try {
          json = JSON.parse(raw)
        } catch {
          throw new InvalidParamsError('The typed data is not valid JSON.')
        }
      }
      const typed = parseParams(TypedData, json, method)
      const domain = { ...typed.domain }
      if (domain.chainId !== undefined) {
        const domainChain = toBigInt(domain.chainId)
        if (domainChain !== BigInt(chain))
          throw new InvalidParamsError(
            `The typed data is for chain ${String(domain.chainId)}, not ${chainId}.`,
          )
        domain.chainId = domainChain
      }
      return {
        chainId,
        account,
        sign: () =>
          withEvmAccount(context, (signer) =>
            signer.signTypedData({
              domain,
              types: typed.types,
              primaryType: typed.primaryType,
              message: typed.message,
            } as never),
          ),
      }
    }
    case 'eth_sendTransaction': {
      const [transaction] = parseParams(TransactionParams, params, method)
      if (transaction.from !== undefined) assertAccount(sameEvmAddress(transaction.from, account))
      if (
        transaction.chainId !== undefined &&
        hexToBigInt(transaction.chainId as Hex) !== BigInt(chain)
      )
        throw new InvalidParamsError(`The transaction is for another chain than ${chainId}.`)
      return {
        chainId,
        account,
        sign: () =>
          inTurn(context.memory, () =>
            sendTransaction(context, { chainId, chain, account }, transaction),
          ),
      }
    }
    case 'wallet_sendCalls': {
      const batch = parseSendCalls(params, { account, chain, chainId })
      assertBundleIdFree(context.memory, batch.id)
      return {
        chainId,
        account,
        sign: () =>
          inTurn(context.memory, async () => {
            assertBundleIdFree(context.memory, batch.id)
            const rpc = (name: string, args: unknown[]) => context.api.rpc(chainId, name, args)
            // One nonce and one fee for the batch: the calls follow each other (n, n+1, …).
            const [nonce, fees] = await Promise.all([
              rpc('eth_getTransactionCount', [account, 'pending']),
              fillFees(rpc, {}),
            ])
            const first = toBigInt(nonce)
            const { hashes, complete } = await sendInOrder(batch.calls, async (call, index) => {
              const hash = await sendTransaction(
                context,
                { chainId, chain, account },
                {
                  to: call.to,
                  ...(call.value === undefined ? {} : { value: call.value }),
                  ...(call.data === undefined ? {} : { data: call.data }),
                  nonce: numberToHex(first + BigInt(index)),
                  maxFeePerGas: numberToHex(fees.maxFeePerGas),
                  maxPriorityFeePerGas: numberToHex(fees.maxPriorityFeePerGas),
                },
              )
              if (!isHex(hash) || hash.length !== 66)
                throw new RpcError(ErrorCode.internal, 'The network answered no transaction hash')
              return hash
            })
            const id = batch.id ?? createBundleId()
            rememberBundle(context.memory, id, { chainId, account, hashes, complete })
            return { id }
          }),
      }
    }
  }
}

type Transaction = z.infer<typeof TransactionParams>[0]

/**
 * Fills what `transaction` leaves out (nonce, gas and fees, through the
 * proxy), signs it as EIP-1559 and sends it; resolves with its hash.
 */
async function sendTransaction(
  context: Context,
  { chainId, chain, account }: { chainId: string; chain: number; account: string },
  transaction: Transaction,
): Promise<Hex> {
  const rpc = (name: string, args: unknown[]) => context.api.rpc(chainId, name, args)
  const data = transaction.data ?? transaction.input
  const call = {
    from: account,
    ...(transaction.to ? { to: transaction.to } : {}),
    ...(transaction.value ? { value: transaction.value } : {}),
    ...(data ? { data } : {}),
  }
  const [nonce, gas, fees] = await Promise.all([
    transaction.nonce ?? rpc('eth_getTransactionCount', [account, 'pending']),
    transaction.gas ?? rpc('eth_estimateGas', [call]),
    fillFees(rpc, transaction),
  ])
  const serialized = await withEvmAccount(context, (signer) =>
    signer.signTransaction({
      type: 'eip1559',
      chainId: chain,
      nonce: Number(toBigInt(nonce)),
      gas: toBigInt(gas),
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      ...(transaction.to ? { to: transaction.to as Hex } : {}),
      ...(transaction.value ? { value: hexToBigInt(transaction.value as Hex) } : {}),
      ...(data ? { data: data as Hex } : {}),
    }),
  )
  return (await rpc('eth_sendRawTransaction', [serialized])) as Hex
}

/** A JSON-RPC quantity (hex) or a decimal number, as a bigint; -32602 for anything else. */
function toBigInt(value: unknown): bigint {
  try {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value)
    if (typeof value === 'bigint') return value
    if (typeof value === 'string' && /^(0x[0-9a-fA-F]{1,64}|\d{1,78})$/.test(value))
      return BigInt(value)
  } catch {}
  throw new InvalidParamsError(`Not a number: ${String(value).slice(0, 80)}`)
}

/** EIP-1559 fees: the request's, else twice the latest base fee plus the node's priority fee. */
async function fillFees(
  rpc: (name: string, args: unknown[]) => Promise<unknown>,
  transaction: { maxFeePerGas?: string | undefined; maxPriorityFeePerGas?: string | undefined },
): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
  const priority =
    transaction.maxPriorityFeePerGas !== undefined
      ? toBigInt(transaction.maxPriorityFeePerGas)
      : toBigInt(await rpc('eth_maxPriorityFeePerGas', []))
  if (transaction.maxFeePerGas !== undefined) {
    const max = toBigInt(transaction.maxFeePerGas)
    // The priority fee never exceeds the maximum fee (bigints: no Math.min).
    if (priority > max) return { maxFeePerGas: max, maxPriorityFeePerGas: max }
    return { maxFeePerGas: max, maxPriorityFeePerGas: priority }
  }
  const block = z
    .object({ baseFeePerGas: Quantity })
    .safeParse(await rpc('eth_getBlockByNumber', ['latest', false]))
  if (!block.success)
    throw new RpcError(ErrorCode.internal, 'This network does not take EIP-1559 transactions')
  const base = toBigInt(block.data.baseFeePerGas)
  return { maxFeePerGas: base * 2n + priority, maxPriorityFeePerGas: priority }
}
