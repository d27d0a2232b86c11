/**
 * The embedded wallet's JSON-RPC method policy (SPEC 6, DESIGN 4). A method
 * on neither list is refused ('Requested RPC call is not allowed'). Safe
 * methods run at once: account and network status here, read-only calls
 * through the API's RPC proxy. A needs-approval method is parsed strictly
 * and normalised by its namespace (wallet/evm/prepare.ts,
 * wallet/solana/prepare.ts: aliases folded once; a transaction's nonce, gas
 * and fees filled), shown in the frame's own approval UI with the
 * browser-verified host origin (SECURITY.md 6, 8 and 20), and only once the
 * user approves is a key rebuilt and that same normalised, frozen object
 * signed. A method the frame cannot sign yet is refused before anything is
 * shown. EIP-5792 batches (`wallet_sendCalls`) are one approval, then
 * consecutive transactions (wallet/evm/calls.ts).
 */
import { getByCaipNetworkId } from '@porthole/chains/Networks'
import { type ApprovalMethod, isSafeMethod, needsApproval } from '@porthole/protocol/EmbeddedRpc'
import { AbortedError, InvalidParamsError } from '@porthole/protocol/Errors'
import type * as Secure from '@porthole/protocol/Secure'
import { z } from '@porthole/protocol/zod'
import { type Hex, hexToBigInt, numberToHex } from 'viem'
import { NotAvailableError, NotLoggedInError, RpcNotAllowedError } from '../lib/errors.js'
import {
  capabilitiesOf,
  GetCallsStatusParams,
  getBundle,
  getCallsStatus,
  inTurn,
} from '../wallet/evm/calls.js'
import { evmChainIdOf, evmMethods, prepareEvm } from '../wallet/evm/prepare.js'
import { type Prepared, parseParams } from '../wallet/prepared.js'
import {
  type ApprovalRequest,
  type Context,
  getChainId,
  requireSession,
} from '../wallet/session.js'
import { prepareSolana, type SolanaMethod, solanaMethods } from '../wallet/solana/prepare.js'
import type { CachedUser } from '../wallet/storage.js'

/** The needs-approval methods this frame signs today; the others answer 'Method not supported yet'. */
export const signedMethods = [
  ...evmMethods,
  ...solanaMethods,
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

async function currentUser(context: Context): Promise<CachedUser | undefined> {
  const [token, user] = await Promise.all([context.storage.getToken(), context.storage.getUser()])
  return token ? user : undefined
}

const GetCapabilitiesParams = z.union([
  z.tuple([]),
  z.tuple([z.string().check(z.maxLength(128))]),
  z.tuple([
    z.string().check(z.maxLength(128)),
    z.array(z.string().check(z.regex(/^0x[0-9a-fA-F]{1,15}$/))).check(z.maxLength(64)),
  ]),
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
 * Checks a request and normalises it, before it is shown: each namespace its
 * own (params strict, aliases folded once; for transactions, nonce, gas and
 * fees filled through the proxy).
 */
async function prepare(
  context: Context,
  request: Secure.RpcRequest & { method: SignedMethod },
  user: CachedUser,
  current: string,
  origin: string,
): Promise<Prepared> {
  const parameters = { context, user, current, origin }
  return isSolanaMethod(request.method)
    ? prepareSolana({ ...parameters, request: { ...request, method: request.method } })
    : prepareEvm({ ...parameters, request: { ...request, method: request.method } })
}

function isSolanaMethod(method: SignedMethod): method is SolanaMethod {
  return (solanaMethods as readonly string[]).includes(method)
}
