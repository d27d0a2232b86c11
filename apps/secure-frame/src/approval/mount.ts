/**
 * Puts an approval on screen and wires it: focus, Escape, Reject, and the
 * primary button (SECURITY.md 6 and 7). In the frame ('launcher') the request
 * is shown and the primary button opens the approval window; in that window
 * ('popup') it is Approve, which acts only on a trusted click while armed:
 * the window shown and focused for the whole arming delay.
 */
import { BaseError } from '../lib/errors.js'
import * as Arming from './arming.js'
import { toDisplay } from './decode.js'
import { type ApprovalRequest, hashRequest } from './request.js'
import { type ApprovalView, createApprovalView } from './view.js'
import { watchWindowVisibility } from './visibility.js'

export type MountParameters = {
  document: Document
  /** Where the approval is appended; its other children are made inert meanwhile. */
  root: HTMLElement
  /** A snapshot of the request: what is shown. */
  request: ApprovalRequest
  /** The hash the approval is bound to; must be the snapshot's. */
  hash: string
  /** Reject, or Escape. */
  onReject: () => void
} & (
  | {
      /** In the frame: the primary button opens the approval window. */
      mode?: 'launcher' | undefined
      /** A trusted click on 'Open approval window'. */
      onOpenWindow: (view: ApprovalView) => void
    }
  | {
      /** In the approval window (top-level): Approve. */
      mode: 'popup'
      armingDelayMs?: number | undefined
      /** Called with the bound hash on a trusted click on an armed Approve, and only then. */
      onApprove: (hash: string) => void
    }
)

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

export const notFocusedStatus = 'Approve is available while this window is in front.'
export const launcherStatus =
  'You approve or reject this request in a window of its own, where no site can cover it.'

export function mountApproval(parameters: MountParameters): Mounted {
  const { document, root, request, hash, onReject } = parameters
  // What is shown must be what is bound: refuse to show anything else.
  if (hashRequest(request) !== hash) throw new ApprovalMismatchError()

  const view = createApprovalView(document, {
    request,
    display: toDisplay(request),
    primary: parameters.mode === 'popup' ? 'approve' : 'openWindow',
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
    if (event.key === 'Tab') return keepTabInside(event, document, view.element)
    if (event.key !== 'Escape') return
    event.preventDefault()
    onReject()
  }
  document.addEventListener('keydown', onKeyDown)
  cleanups.push(() => document.removeEventListener('keydown', onKeyDown))

  if (parameters.mode === 'popup') {
    const { onApprove } = parameters
    let state = Arming.create(parameters.armingDelayMs ?? Arming.defaultArmingDelayMs)
    let timer: ReturnType<typeof setTimeout> | undefined
    let reported = false
    const now = () => performance.now()
    const render = () => {
      const armed = Arming.isArmed(state)
      // A focused button that gets disabled would drop focus to the page: keep it in the approval.
      if (!armed && document.activeElement === view.primary) view.element.focus()
      view.setEnabled(armed)
      view.setStatus(state.phase === 'hidden' && reported ? notFocusedStatus : '')
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
      // SECURITY.md 7: nor does a click before arming, or while the window is behind another.
      if (!Arming.isArmed(state)) return
      onApprove(hash)
    })
    // SECURITY.md 7: input before arming restarts the delay (a click trap never arms it).
    const onInput = () => {
      if (Arming.isArmed(state)) return
      state = Arming.next(state, { type: 'input', time: now() })
      schedule()
    }
    document.addEventListener('pointerdown', onInput, true)
    document.addEventListener('keydown', onInput, true)
    cleanups.push(() => {
      if (timer !== undefined) clearTimeout(timer)
      document.removeEventListener('pointerdown', onInput, true)
      document.removeEventListener('keydown', onInput, true)
    })
    render()
    root.append(view.element)
    cleanups.push(watchWindowVisibility(document, report))
  } else {
    const { onOpenWindow } = parameters
    view.setStatus(launcherStatus)
    listen(view.primary, 'click', (event) => {
      if (!event.isTrusted) return
      onOpenWindow(view)
    })
    root.append(view.element)
  }
  view.element.focus({ preventScroll: true })
  return { view, remove: () => remove(view, cleanups) }
}

/** What Tab stops at in the approval. */
const tabbable = 'button:not([disabled]), summary, [tabindex="0"]'

/**
 * Tab from the approval's last control wraps to its first, Shift+Tab from
 * the first (or the dialog itself) to the last: the approval is modal, and
 * focus never leaves it for the widget or the page behind.
 */
function keepTabInside(event: KeyboardEvent, document: Document, dialog: HTMLElement): void {
  const elements = Array.from(dialog.querySelectorAll<HTMLElement>(tabbable))
  const first = elements[0]
  const last = elements.at(-1)
  if (!first || !last) return
  const active = document.activeElement
  const leaving = event.shiftKey ? active === first || active === dialog : active === last
  if (!leaving) return
  event.preventDefault()
  ;(event.shiftKey ? last : first).focus()
}

function remove(view: ApprovalView, cleanups: (() => void)[]): void {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
  view.element.remove()
}
