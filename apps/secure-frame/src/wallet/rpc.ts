/**
 * The embedded wallet's JSON-RPC (SPEC 6, DESIGN 4). A method on neither
 * list is refused ('Requested RPC call is not allowed'). Safe methods run at
 * once: account and network status here, read-only calls through the API's
 * RPC proxy. A needs-approval method is parsed strictly and normalised
 * (aliases folded once; a transaction's nonce, gas and fees filled), shown in
 * the frame's own approval UI with the browser-verified host origin
 * (SECURITY.md 6, 8 and 20), and only once the user approves is a key rebuilt
 * and that same normalised, frozen object signed. A method the frame cannot
 * sign yet is refused before anything is shown. EIP-5792 batches
 * (`wallet_sendCalls`) are one approval, then consecutive transactions
 * (calls.ts).
 */
import { ed25519 } from '@noble/curves/ed25519'
import { getByCaipNetworkId } from '@porthole/chains/Networks'
import { type ApprovalMethod, isSafeMethod, needsApproval } from '@porthole/protocol/EmbeddedRpc'
import { AbortedError, ErrorCode, InvalidParamsError, RpcError } from '@porthole/protocol/Errors'
import type * as Secure from '@porthole/protocol/Secure'
import { z } from '@porthole/protocol/zod'
import { base58 } from '@scure/base'
import { getAddress, type Hex, hexToBigInt, hexToBytes, isHex, numberToHex } from 'viem'
import { type Token, toFrozenJson } from '../approval/request.js'
import { NotAvailableError, NotLoggedInError, RpcNotAllowedError } from '../errors.js'
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
import { assertSignInFor } from './signIn.js'
import {
  parseTransactions,
  SignAllTransactionsParams,
  SignTransactionParams,
  signTransaction,
} from './solana.js'
import { isTransactionBytes } from './solanaMessage.js'
import type { CachedUser } from './storage.js'
import { readTokens } from './tokens.js'
import {
  type Filled,
  fillFees,
  fillTransaction,
  type Rpc,
  toBigInt,
  toDraft,
  toSerializable,
} from './transaction.js'
import { SignTypedDataParams, toNormalisedTypedData } from './typedData.js'

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
  /**
   * The request's signal: aborting it rejects the approval and signs nothing;
   * after Approve, it still stops any transaction not yet sent.
   */
  signal: AbortSignal
  /** The visitor approved: from now on the result is the real one (the widget stops cancelling). */
  onApproved?: (() => void) | undefined
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
        throw new NotLoggedInError('The address is not this wallet’s account')
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

const PersonalSignParams = z.tuple([
  z.string().max(maxMessageLength),
  z.string().regex(/^0x[0-9a-fA-F]{40}$/),
])

const SolanaSignMessageParams = z.strictObject({
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
  if (!matches) throw new NotLoggedInError('The address is not this wallet’s account')
}

/** Settles as `promise` does, or rejects with 'Request was aborted' as soon as `signal` aborts. */
function untilAborted<value>(promise: Promise<value>, signal: AbortSignal): Promise<value> {
  return new Promise<value>((resolve, reject) => {
    const onAbort = () => reject(new AbortedError())
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
  if (!origin) throw new NotLoggedInError("The site's origin could not be verified")
  return origin
}

function siteOf(context: Context): ApprovalRequest['site'] {
  const metadata = context.memory.dappData?.metadata
  if (!metadata) return undefined
  const [icon] = metadata.icons
  return { name: metadata.name, ...(icon === undefined ? {} : { icon }) }
}

type Prepared = {
  /** The network and account that will sign. */
  chainId: string
  account: string
  /**
   * The normalised params, deep-frozen: what the approval shows and hashes,
   * and what `sign` then signs, read from this very object.
   */
  params: unknown
  /** The ERC-20s the request calls, as read from the chain. */
  tokens?: Token[] | undefined
  /** Signs `params`, once approved; a transaction is not sent once `signal` aborts. */
  sign: (signal: AbortSignal) => Promise<unknown>
}

/** The methods that send transactions: filled, approved and sent one request at a time. */
const sendsTransactions = (method: SignedMethod) =>
  method === 'eth_sendTransaction' || method === 'wallet_sendCalls'

async function runSigned(
  context: Context,
  request: Secure.RpcRequest & { method: SignedMethod },
  { signal, onApproved }: RpcOptions,
): Promise<unknown> {
  const { user } = await requireSession(context)
  const current = await getChainId(context)
  const origin = hostOrigin(context, request)
  const site = siteOf(context)
  const run = async () => {
    if (signal.aborted) throw new AbortedError()
    const prepared = await untilAborted(prepare(context, request, user, current, origin), signal)
    const chainName = getByCaipNetworkId(prepared.chainId)?.name
    await untilAborted(
      context.requestApproval(
        {
          method: request.method,
          params: prepared.params,
          chainId: prepared.chainId,
          account: prepared.account,
          origin,
          ...(chainName === undefined ? {} : { chainName }),
          ...(prepared.tokens?.length ? { tokens: prepared.tokens } : {}),
          ...(site === undefined ? {} : { site }),
        },
        { signal },
      ),
      signal,
    )
    if (signal.aborted) throw new AbortedError()
    onApproved?.()
    return prepared.sign(signal)
  }
  // A transaction's nonce is filled before it is shown: the next one waits until this one is
  // sent or refused, so two shown transactions never carry the same nonce.
  if (!sendsTransactions(request.method)) return run()
  return untilAborted(inTurn(context.memory, run), signal)
}

/**
 * Checks a request and normalises it, before it is shown: its params (strict,
 * aliases folded once), account, network and, for transactions, the nonce,
 * gas and fees filled through the proxy.
 */
async function prepare(
  context: Context,
  request: Secure.RpcRequest & { method: SignedMethod },
  user: CachedUser,
  current: string,
  origin: string,
): Promise<Prepared> {
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
        // A signature over a transaction's message is that transaction's signature.
        if (isTransactionBytes(bytes))
          throw new InvalidParamsError(
            'This message is a Solana transaction: it can only be signed as a transaction.',
          )
        assertSignInFor(new TextDecoder().decode(bytes), origin)
        const shown = toFrozenJson({ message, pubkey: account })
        return {
          chainId,
          account,
          params: shown,
          sign: () =>
            withSolanaKey(context, (key) => ({
              signature: base58.encode(ed25519.sign(base58.decode(shown.message), key)),
            })),
        }
      }
      case 'solana_signTransaction': {
        const shown = toFrozenJson(parseParams(SignTransactionParams, params, method))
        // Checked before it is shown; signed from the shown text.
        parseTransactions([shown.transaction], base58.decode(account))
        return {
          chainId,
          account,
          params: shown,
          sign: () =>
            withSolanaKey(context, (key) => {
              const [parsed] = parseTransactions([shown.transaction], base58.decode(account))
              if (!parsed) throw new InvalidParamsError(`Invalid parameters for ${method}.`)
              return { transaction: signTransaction(parsed, key) }
            }),
        }
      }
      case 'solana_signAllTransactions': {
        const shown = toFrozenJson(parseParams(SignAllTransactionsParams, params, method))
        // Every transaction is checked before the one approval for the batch.
        parseTransactions(shown.transactions, base58.decode(account))
        return {
          chainId,
          account,
          params: shown,
          sign: () =>
            withSolanaKey(context, (key) => ({
              transactions: parseTransactions(shown.transactions, base58.decode(account)).map(
                (transaction) => signTransaction(transaction, key),
              ),
            })),
        }
      }
    }
  }

  const chainId = request.chainId ?? current
  const chain = evmChainIdOf(chainId, method)
  const account = getAddress(user.addresses.eip155)
  const rpc: Rpc = (name, args) => context.api.rpc(chainId, name, args)
  switch (method) {
    case 'personal_sign': {
      const [message, address] = parseParams(PersonalSignParams, params, method)
      assertAccount(sameEvmAddress(address, account))
      // Hex is signed as its bytes: half a byte would be padded, so signed other than shown.
      if (isHex(message) && message.length % 2 !== 0)
        throw new InvalidParamsError('The message is hex of an odd length.')
      assertSignInFor(
        isHex(message) ? new TextDecoder().decode(hexToBytes(message)) : message,
        origin,
      )
      const shown = toFrozenJson([message, account] as const)
      return {
        chainId,
        account,
        params: shown,
        sign: () =>
          withEvmAccount(context, (signer) =>
            signer.signMessage({ message: isHex(shown[0]) ? { raw: shown[0] } : shown[0] }),
          ),
      }
    }
    case 'eth_signTypedData_v4': {
      const [address, raw] = parseParams(SignTypedDataParams, params, method)
      assertAccount(sameEvmAddress(address, account))
      const typed = toNormalisedTypedData(raw)
      if (typed.domain.chainId !== undefined && BigInt(typed.domain.chainId) !== BigInt(chain))
        throw new InvalidParamsError(
          `The typed data is for chain ${String(typed.domain.chainId)}, not ${chainId}.`,
        )
      const shown = toFrozenJson([account, typed] as const)
      return {
        chainId,
        account,
        params: shown,
        sign: () => withEvmAccount(context, (signer) => signer.signTypedData(shown[1] as never)),
      }
    }
    case 'eth_sendTransaction': {
      const draft = toDraft(params, { account, chain })
      const [fees, tokens] = await Promise.all([
        fillFees(rpc, draft.fees),
        readTokens(rpc, tokenCalls([draft])),
      ])
      const shown = toFrozenJson([
        await fillTransaction(rpc, draft, { account, chain, fees }),
      ] as const)
      return {
        chainId,
        account,
        params: shown,
        tokens,
        sign: (signal) => sendFilled(context, rpc, shown[0], signal),
      }
    }
    case 'wallet_sendCalls': {
      const batch = parseSendCalls(params, { account, chain, chainId })
      assertBundleIdFree(context.memory, batch.id)
      // One nonce and one fee for the batch: the calls follow each other (n, n+1, …).
      const [nonce, fees, tokens] = await Promise.all([
        rpc('eth_getTransactionCount', [account, 'pending']).then(toBigInt),
        fillFees(rpc, undefined),
        readTokens(rpc, tokenCalls(batch.calls)),
      ])
      const calls = await Promise.all(
        batch.calls.map((call, index) =>
          fillTransaction(
            rpc,
            {
              to: call.to,
              ...(call.value === undefined ? {} : { value: BigInt(call.value) }),
              ...(call.data === undefined ? {} : { data: call.data.toLowerCase() as Hex }),
            },
            { account, chain, fees, nonce: nonce + BigInt(index) },
          ),
        ),
      )
      const shown = toFrozenJson([{ chainId: numberToHex(chain), from: account, calls }] as const)
      return {
        chainId,
        account,
        params: shown,
        tokens,
        sign: async (signal) => {
          assertBundleIdFree(context.memory, batch.id)
          const { hashes, complete } = await sendInOrder(shown[0].calls, (call) =>
            sendFilled(context, rpc, call, signal),
          )
          const id = batch.id ?? createBundleId()
          rememberBundle(context.memory, id, { chainId, account, hashes, complete })
          return { id }
        },
      }
    }
  }
}

const erc20Selectors = new Set(['0xa9059cbb', '0x095ea7b3', '0x23b872dd'])

/** The contracts `calls` call with an ERC-20 transfer, approve or transferFrom. */
function tokenCalls(calls: readonly { to?: string | undefined; data?: string | undefined }[]) {
  return calls.flatMap(({ to, data }) =>
    to !== undefined && data !== undefined && erc20Selectors.has(data.slice(0, 10).toLowerCase())
      ? [to]
      : [],
  )
}

/**
 * Signs `filled` exactly as shown and sends it; resolves with its hash. A
 * request given up on (`signal`) before the send is not sent (SECURITY.md 17).
 */
async function sendFilled(
  context: Context,
  rpc: Rpc,
  filled: Filled,
  signal: AbortSignal,
): Promise<Hex> {
  const serialized = await withEvmAccount(context, (signer) =>
    signer.signTransaction(toSerializable(filled)),
  )
  if (signal.aborted) throw new AbortedError()
  const hash = await rpc('eth_sendRawTransaction', [serialized])
  if (!isHex(hash) || hash.length !== 66)
    throw new RpcError(ErrorCode.internal, 'The network answered no transaction hash')
  return hash
}
