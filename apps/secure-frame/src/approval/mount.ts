/**
 * Puts an approval on screen and wires it: focus, Escape, Reject, and an
 * Approve that acts only on a trusted click while armed (SECURITY.md 6 and 7).
 * Used by the frame and by the popup.
 */
import { BaseError } from '../errors.js'
import * as Arming from './arming.js'
import { toDisplay } from './decode.js'
import { type ApprovalRequest, hashRequest } from './request.js'
import { type ApprovalView, createApprovalView } from './view.js'
import { watchTargetVisibility, watchWindowVisibility } from './visibility.js'

export type MountMode =
  /** In the frame, with IntersectionObserver v2: Approve arms while the approval is visible. */
  | 'frame'
  /** In the frame, without it: no Approve here, only 'Open approval window'. */
  | 'launcher'
  /** In the popup (top-level): Approve arms while the window is shown and focused. */
  | 'popup'

export type MountParameters = {
  document: Document
  /** Where the approval is appended; its other children are made inert meanwhile. */
  root: HTMLElement
  /** A snapshot of the request: what is shown. */
  request: ApprovalRequest
  /** The hash the approval is bound to; must be the snapshot's. */
  hash: string
  mode: MountMode
  armingDelayMs?: number | undefined
  /** Called with the bound hash on a trusted click on an armed Approve, and only then. */
  onApprove: (hash: string) => void
  /** Reject, or Escape. */
  onReject: () => void
  /** A trusted click on 'Open approval window' (mode 'launcher'). */
  onOpenWindow?: ((view: ApprovalView) => void) | undefined
}

export type Mounted = {
  readonly view: ApprovalView
  /** Removes the approval and stops every timer and listener. */
  remove(): void
}

/** The request given to show is not the one the approval is bound to. */
export class ApprovalMismatchError extends BaseError {
  override name = 'ApprovalMismatchError'
  constructor() {
    super('The approval does not match its request.')
  }
}

const notVisibleStatus = 'Approve is available once this approval is fully visible.'
const notFocusedStatus = 'Approve is available while this window is in front.'
const launcherStatus =
  "This browser can't check that the approval is visible here, so it opens in a window of its own."

export function mountApproval(parameters: MountParameters): Mounted {
  const { document, root, request, hash, mode, onApprove, onReject, onOpenWindow } = parameters
  // What is shown must be what is bound: refuse to show anything else.
  if (hashRequest(request) !== hash) throw new ApprovalMismatchError()

  const view = createApprovalView(document, {
    request,
    display: toDisplay(request),
    primary: mode === 'launcher' ? 'openWindow' : 'approve',
  })
  const cleanups: (() => void)[] = []
  const listen = <K extends keyof HTMLElementEventMap>(
    target: HTMLElement,
    type: K,
    listener: (event: HTMLElementEventMap[K]) => void,
  ) => {
    target.addEventListener(type, listener)
    cleanups.push(() => target.removeEventListener(type, listener))
  }

  // Everything else in the root is out of reach while the approval shows.
  const madeInert: HTMLElement[] = []
  for (const child of Array.from(root.children)) {
    if (!('inert' in child) || child.inert) continue
    const sibling = child as HTMLElement
    sibling.inert = true
    madeInert.push(sibling)
  }
  cleanups.push(() => {
    for (const child of madeInert) child.inert = false
  })

  listen(view.reject, 'click', () => onReject())
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return
    event.preventDefault()
    onReject()
  }
  document.addEventListener('keydown', onKeyDown)
  cleanups.push(() => document.removeEventListener('keydown', onKeyDown))

  if (mode === 'launcher') {
    view.setStatus(launcherStatus)
    listen(view.primary, 'click', (event) => {
      if (!event.isTrusted) return
      onOpenWindow?.(view)
    })
  } else {
    let state = Arming.create(parameters.armingDelayMs ?? Arming.defaultArmingDelayMs)
    let timer: ReturnType<typeof setTimeout> | undefined
    let reported = false
    const now = () => performance.now()
    const render = () => {
      const armed = Arming.isArmed(state)
      // A focused button that gets disabled would drop focus to the page: keep it in the approval.
      if (!armed && document.activeElement === view.primary) view.element.focus()
      view.setEnabled(armed)
      const hidden = state.phase === 'hidden' && reported
      view.setStatus(hidden ? (mode === 'popup' ? notFocusedStatus : notVisibleStatus) : '')
    }
    const schedule = () => {
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
      const wait = Arming.remaining(state, now())
      if (wait === undefined) return
      timer = setTimeout(() => {
        timer = undefined
        state = Arming.next(state, { type: 'tick', time: now() })
        schedule()
        render()
      }, wait)
    }
    const report = (visible: boolean) => {
      reported = true
      state = Arming.next(state, { type: 'visible', visible, time: now() })
      schedule()
      render()
    }
    listen(view.primary, 'click', (event) => {
      // SECURITY.md 6: a synthetic click (click(), dispatchEvent) does nothing.
      if (!event.isTrusted) return
      // SECURITY.md 7: nor does a click before arming, or while covered or hidden.
      if (!Arming.isArmed(state)) return
      onApprove(hash)
    })
    cleanups.push(() => {
      if (timer !== undefined) clearTimeout(timer)
    })
    render()
    root.append(view.element)
    cleanups.push(
      mode === 'popup'
        ? watchWindowVisibility(document, report)
        : watchTargetVisibility(view.element, report),
    )
    view.element.focus({ preventScroll: true })
    return { view, remove: () => remove(view, cleanups) }
  }

  root.append(view.element)
  view.element.focus({ preventScroll: true })
  return { view, remove: () => remove(view, cleanups) }
}

function remove(view: ApprovalView, cleanups: (() => void)[]): void {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
  view.element.remove()
}
