import { handleRpc } from '../rpc/policy.js'
import type { Handler } from './handler.js'

/**
 * `rpcRequest`: one JSON-RPC request of the embedded wallet (see
 * `rpc/policy.ts`): refused unless on the safe or needs-approval list;
 * signed only after the user approves in the frame's approval window; once
 * approved, the widget is told (`approved`, for a request with an
 * `approvalId`) that the real result follows.
 */
export const rpcRequest = ((params, context, { signal, emit }) =>
  handleRpc(context, params, {
    signal,
    onApproved: () => {
      const { approvalId } = params
      if (approvalId !== undefined) emit('approved', { approvalId })
    },
  })) satisfies Handler<'rpcRequest'>
