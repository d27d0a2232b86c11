/**
 * The one shape of the frame's handlers: one per request of the protocol's
 * `secure` contract (packages/protocol/src/Secure.ts), typed from its
 * schemas, registered in frame.ts.
 */
import type { Channel, HandlerContext } from '@porthole/protocol/Channel'
import type { SecureMethod, SecureSpec, WidgetSpec } from '@porthole/protocol/Secure'
import type { Context } from '../wallet/session.js'

/** A request's params, as parsed by its schema. */
export type Params<method extends SecureMethod> = SecureSpec['requests'][method]['params']
/** What a request answers, as its schema allows. */
export type Result<method extends SecureMethod> = SecureSpec['requests'][method]['result']

/** The call being answered: its signal and the widget's origin, and the channel's events to the widget. */
export type Call = HandlerContext & {
  emit: Channel<SecureSpec, WidgetSpec>['emit']
}

/**
 * The handler of `method`: its params, the frame's context, the call. A
 * handler declares only the arguments it uses
 * (`(async ({ email }, context) => …) satisfies Handler<'connectEmail'>`).
 */
export type Handler<method extends SecureMethod> = (
  params: Params<method>,
  context: Context,
  call: Call,
) => Result<method> | Promise<Result<method>>
