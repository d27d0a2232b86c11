/**
 * `requestApproval`: shows the approval for an unsafe RPC in the frame and
 * settles when the user decides (SECURITY.md 6, 7, 8, 15 and 17). One at a
 * time, first come first shown; each bound to its request's hash.
 */
import { InvalidParamsError } from '@porthole/protocol/Errors'
import { mountApproval } from './mount.js'
import { type ApprovalPopup, openApprovalPopup } from './openPopup.js'
import { type ApprovalQueue, createApprovalQueue, type Shown } from './queue.js'
import { ApprovalRequest, hashRequest, toSnapshot } from './request.js'

export type RequestApprovalOptions = {
  /** Aborting rejects with 4001 'Request was aborted' and removes the approval. */
  signal?: AbortSignal | undefined
  /** Where the approval is shown; defaults to `#app`, else `body`. */
  root?: HTMLElement | undefined
  /** Defaults to `root`'s document, else the global one. */
  document?: Document | undefined
}

type Item = { readonly request: ApprovalRequest; readonly options: RequestApprovalOptions }

/**
 * Every approval is decided in a top-level window of the secure origin
 * (SECURITY.md 7): the host can restyle, mask, filter or paint over the
 * frame, but not a window of its own. The frame shows the request and
 * 'Open approval window'; a trusted click there opens the window (browsers
 * allow popups only in a click), where Approve arms once the window is
 * shown and focused.
 */
function present(shown: Shown<Item>): () => void {
  const { request, options } = shown.item
  const document = options.document ?? options.root?.ownerDocument ?? globalThis.document
  const root = options.root ?? document.getElementById('app') ?? document.body
  const view = document.defaultView
  const snapshot = toSnapshot(request)
  let popup: ApprovalPopup | undefined
  const theme = document.documentElement.dataset.theme
  const mounted = mountApproval({
    document,
    root,
    request: snapshot,
    hash: shown.hash,
    onReject: () => shown.reject(),
    onOpenWindow: (approvalView) => {
      if (popup) return popup.focus()
      if (!view) return
      popup = openApprovalPopup({
        window: view,
        request: snapshot,
        hash: shown.hash,
        theme: theme === 'light' || theme === 'dark' ? theme : undefined,
        onDecision: (approved, hash) => {
          popup = undefined
          // A decision on anything but the request shown is a rejection, never a hang.
          if (!approved || !shown.approve(hash)) shown.reject()
        },
        // SECURITY.md 17: a closed popup is a rejection.
        onClosed: () => {
          popup = undefined
          shown.reject()
        },
        onFailed: (message) => {
          popup = undefined
          approvalView.setStatus(message)
        },
      })
      if (popup) approvalView.setStatus(waitingStatus)
    },
  })
  return () => {
    popup?.close()
    mounted.remove()
  }
}

/** Shown in the frame while the approval window is open. */
export const waitingStatus = 'Continue in the approval window.'

let queue: ApprovalQueue<Item> | undefined

/**
 * Shows the approval for `request` and resolves when the user approves it with
 * a trusted click on the armed Approve of its approval window. Rejects with 4001 'User rejected the
 * request.' on Reject, Escape or a closed popup; with 4001 'Request was
 * aborted' when `options.signal` aborts; with -32602 when the request can't be
 * shown or changed after it was shown. A call made while another approval
 * shows waits its turn.
 */
export function requestApproval(
  request: ApprovalRequest,
  options: RequestApprovalOptions = {},
): Promise<void> {
  if (!ApprovalRequest.safeParse(request).success)
    return Promise.reject(new InvalidParamsError('The request cannot be shown for approval.'))
  queue ??= createApprovalQueue<Item>({ hash: (item) => hashRequest(item.request), present })
  // The caller's own object: a change to it after it is shown is caught at click time.
  return queue.request({ request, options }, options.signal)
}
