/**
 * The embedded wallet's RPC methods, in two lists (SPEC 6, DESIGN 4): safe
 * methods run at once; the needs-approval methods run only after a click in
 * the secure frame's approval UI; anything else is refused with
 * 'Requested RPC call is not allowed'. The widget reads the same lists to know
 * when to show ApproveTransaction, and the secure frame to decide.
 */

/**
 * Node reads that change nothing and need no account: the embedded wallet
 * forwards them to the API's RPC proxy, and the host's provider answers them
 * with no wallet connected (widget `lib/chains/evm/methods.ts`).
 */
export const nodeReadMethods = [
  'eth_blockNumber',
  'eth_call',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getLogs',
  'eth_getProof',
  'eth_getStorageAt',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_syncing',
] as const

/**
 * The reads the host's provider answers with no wallet connected: the node
 * reads plus a few that viem's public actions and wagmi send (widget
 * `lib/chains/evm/methods.ts`).
 */
export const hostReadMethods = [
  ...nodeReadMethods,
  'eth_blobBaseFee',
  'net_listening',
  'web3_clientVersion',
] as const

/**
 * The exact EVM methods the API's RPC proxy forwards (SECURITY.md 24): the
 * reads above, the chain id, and `eth_sendRawTransaction` (signed elsewhere,
 * so it grants nothing). Nothing that signs, sends unsigned, uses the node's
 * accounts or administers the node.
 */
export const evmProxyMethods = [
  ...hostReadMethods,
  'eth_chainId',
  'net_version',
  'eth_sendRawTransaction',
] as const

/**
 * Safe: read-only calls, `eth_sendRawTransaction` (already signed, so it
 * grants nothing), and wallet status and asset queries.
 */
export const safeMethods = [
  // Account and network status (answered by the secure frame itself).
  'eth_accounts',
  'eth_requestAccounts',
  'eth_chainId',
  'net_version',
  'wallet_getCapabilities',
  'wallet_getCallsStatus',
  'wallet_getAssets',
  'wallet_getPermissions',
  // Read-only node calls (through the API's RPC proxy).
  ...nodeReadMethods,
  // Already signed elsewhere.
  'eth_sendRawTransaction',
] as const

/** Needs approval: every signature, transaction and permission grant. */
export const approvalMethods = [
  'personal_sign',
  'eth_signTypedData_v4',
  'eth_sendTransaction',
  'solana_signMessage',
  'solana_signTransaction',
  'solana_signAllTransactions',
  'solana_signAndSendTransaction',
  'wallet_sendCalls',
  'wallet_grantPermissions',
  'wallet_revokePermissions',
  'eth_sendUserOperation',
] as const

export type SafeMethod = (typeof safeMethods)[number]
export type ApprovalMethod = (typeof approvalMethods)[number]

const safe: ReadonlySet<string> = new Set(safeMethods)
const approval: ReadonlySet<string> = new Set(approvalMethods)

/** SPEC 5: a request is safe only if its method is in the safe list. */
export function isSafeMethod(method: string): method is SafeMethod {
  return safe.has(method)
}

export function needsApproval(method: string): method is ApprovalMethod {
  return approval.has(method)
}

/** SPEC 5: a method is accepted only if it is in the safe or the needs-approval list. */
export function isAllowedMethod(method: string): boolean {
  return safe.has(method) || approval.has(method)
}

/** The preflight commitments a site may ask `solana_signAndSendTransaction` for (SPEC section 5), in its order. */
export const preflightCommitments = [
  'processed',
  'confirmed',
  'finalized',
  'recent',
  'single',
  'singleGossip',
  'root',
  'max',
] as const
export type PreflightCommitment = (typeof preflightCommitments)[number]

/** The -32602 message for any other commitment: the widget and the secure frame give the same. */
export const invalidCommitmentMessage = `The preflight commitment must be one of ${preflightCommitments.slice(0, -1).join(', ')} or ${preflightCommitments.at(-1)}.`
