import type { HandlerContext } from '@porthole/protocol/Channel'
import type { SecureSpec } from '@porthole/protocol/Secure'
import { handleRpc } from '../rpc/policy.js'
import type { Context } from '../wallet/session.js'

type Params = SecureSpec['requests']['rpcRequest']['params']

/**
 * `rpcRequest`: one JSON-RPC request of the embedded wallet (see
 * `rpc/policy.ts`): refused unless on the safe or needs-approval list;
 * signed only after the user approves in the frame's approval window;
 * `onApproved` tells the widget that the real result follows.
 */
export function rpcRequest(
  params: Params,
  context: Context,
  { signal }: HandlerContext,
  onApproved?: () => void,
): Promise<unknown> {
  return handleRpc(context, params, { signal, onApproved })
}
