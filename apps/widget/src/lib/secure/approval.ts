/**
 * The embedded wallet's requests, for every namespace's adapter: each goes to
 * the secure frame as `rpcRequest`. The frame runs safe methods at once; for
 * a method that needs approval the widget first shows ApproveTransaction,
 * which lays the frame over the modal so the user can read the request and
 * click Approve or Reject in the frame's own UI (SECURITY.md 6). Closing the
 * modal or leaving that view cancels the request (4001); nothing is signed
 * without the frame's click.
 */
import { providerRequestTimeout } from '@porthole/protocol/Constants'
import { needsApproval } from '@porthole/protocol/EmbeddedRpc'
import { UserRejectedError } from '@porthole/protocol/Errors'
import { router } from '../state/router.js'
import { currentView, type Store, store, type WidgetState } from '../state/store.js'
import { waitForSecureChannel } from './frame.js'

/** The embedded wallet's connector id, in every namespace. */
export const embeddedConnectorId = 'xyz.porthole.embedded'

/** How long a request waits for the user's decision: the host's own limit (SECURITY.md 17). */
export const approvalTimeout = providerRequestTimeout

/**
 * Approvals waiting in the frame, by the `approvalId` each request carries.
 * The frame's `approved` event names the one the visitor approved (the frame
 * may show them in another order than they were asked: a transaction waits
 * for its fees first). An approved one is being signed and sent: closing the
 * modal no longer cancels it, and the host gets its real result (SECURITY.md 17).
 */
const active = new Map<string, { approved: boolean }>()
/** The frame's visitor approved the request named `approvalId`; an unknown id does nothing. */
export function markApproved({ approvalId }: { approvalId: string }): void {
  const entry = active.get(approvalId)
  if (entry) entry.approved = true
}
/** Channels to a secure frame whose `approved` events are followed. */
const followed = new WeakSet<object>()
function followApprovals(channel: {
  on(name: 'approved', listener: (payload: { approvalId: string }) => void): () => void
}): void {
  if (followed.has(channel)) return
  followed.add(channel)
  channel.on('approved', markApproved)
}

/** Where the modal was before the first waiting approval. */
let waiting = 0
let before: Pick<WidgetState, 'open' | 'history'> | null = null

/**
 * Runs `send` while ApproveTransaction shows. The modal opens on that view (or
 * pushes it when open); once the last waiting request settles the modal goes
 * back to where it was. Closing the modal or navigating away aborts `send`'s
 * signal, which cancels the request in the frame, and answers 4001. So does
 * `cancel` (the host gave up): the approval closes and nothing is signed.
 */
export async function withApproval<result>(
  method: string,
  send: (signal: AbortSignal, approvalId: string) => Promise<result>,
  target: Store<WidgetState> = store,
  cancel?: AbortSignal,
): Promise<result> {
  if (cancel?.aborted) throw new UserRejectedError('The site gave up on the request.')
  const controller = new AbortController()
  const approvalId = crypto.randomUUID()
  const entry = { approved: false }
  active.set(approvalId, entry)
  const onCancel = () => controller.abort()
  cancel?.addEventListener('abort', onCancel, { once: true })
  if (waiting++ === 0) {
    const { open, history } = target.getState()
    before = { open, history }
    if (open) router.navigate('ApproveTransaction')
    else router.open('ApproveTransaction')
  }
  target.setState({ approval: { method } })
  const unsubscribe = target.subscribe(() => {
    const state = target.getState()
    if (entry.approved) return
    if (!state.open || currentView(state) !== 'ApproveTransaction') controller.abort()
  })
  try {
    return await send(controller.signal, approvalId)
  } catch (error) {
    if (controller.signal.aborted)
      throw new UserRejectedError('The user closed the approval without deciding.')
    throw error
  } finally {
    unsubscribe()
    active.delete(approvalId)
    cancel?.removeEventListener('abort', onCancel)
    if (--waiting === 0) {
      target.setState({ approval: null })
      // Back to where the modal was (closed, or on the view that asked),
      // unless the user already went elsewhere.
      if (before && currentView(target.getState()) === 'ApproveTransaction') target.setState(before)
      before = null
    }
  }
}

/**
 * Sends `method` to the embedded wallet on `chainId` (CAIP-2; the frame's
 * network when absent), with ApproveTransaction around a method that needs
 * approval. `signal`: the host gave up on the request.
 */
export async function requestEmbedded(
  request: { method: string; params?: unknown; chainId?: string | undefined },
  signal?: AbortSignal,
): Promise<unknown> {
  const { method, params, chainId } = request
  const channel = await waitForSecureChannel()
  const hostOrigin = store.getState().hostOrigin
  const body = {
    method,
    ...(params === undefined ? {} : { params: params as unknown[] }),
    ...(chainId === undefined ? {} : { chainId }),
    // The host origin the browser gave the widget, for a frame whose browser
    // has no `location.ancestorOrigins` (it prefers its own, SECURITY.md 8).
    ...(hostOrigin ? { origin: hostOrigin } : {}),
  }
  if (!needsApproval(method)) return channel.request('rpcRequest', body, { signal })
  followApprovals(channel)
  return withApproval(
    method,
    (aborted, approvalId) =>
      channel.request(
        'rpcRequest',
        { ...body, approvalId },
        { signal: aborted, timeout: approvalTimeout },
      ),
    store,
    signal,
  )
}
