/**
 * The approval popup (`approve.html`), a top-level window of the secure
 * origin opened by the frame (SECURITY.md 7 and 15). It takes the nonce from
 * its URL fragment (then removes it), tells its opener it is ready, accepts
 * one request from that opener only (same origin, same window, same nonce,
 * strict schema, hash matching the request), shows it with the frame's view,
 * and posts back the decision for that hash, then waits for the frame to
 * close it (or closes itself after `popupDecidedCloseMs`). Approve arms only while this
 * window is shown and focused, and acts only on a trusted click. When its
 * opener is gone (the host page navigated away, or removed the frame), the
 * request is gone with it: the window closes (SECURITY.md 17).
 */
import { mountApproval } from './mount.js'
import { popupClosedPollMs, popupDecidedCloseMs } from './openPopup.js'
import {
  acceptMessage,
  messageType,
  type ToFrameMessage,
  ToPopupMessage,
  toNonce,
} from './popupProtocol.js'
import { hashRequest, toSnapshot } from './request.js'

export const notOpenedMessage = 'This window works only when opened from an approval in Porthole.'

function showError(document: Document, root: HTMLElement, text: string): void {
  const message = document.createElement('p')
  message.className = 'approval-popup__error'
  message.setAttribute('role', 'alert')
  message.textContent = text
  root.replaceChildren(message)
}

/** Starts the popup in `window` (its document, location, history and opener). */
export function startApprovalPopup(window: Window): void {
  const { document, location, history } = window
  const root = document.getElementById('app') ?? document.body
  const nonce = toNonce(location.hash)
  // The nonce is single-use: gone from the URL (and history) at once.
  history.replaceState(null, '', `${location.pathname}${location.search}`)
  const opener: Window | null = window.opener
  if (!nonce || !opener) {
    showError(document, root, notOpenedMessage)
    return
  }

  const origin = location.origin
  const post = (message: ToFrameMessage) => opener.postMessage(message, origin)
  // The frame that opened this window is its only reason to exist.
  const watch = setInterval(() => {
    if (!opener.closed) return
    clearInterval(watch)
    window.close()
  }, popupClosedPollMs)
  let received = false
  const onMessage = (event: MessageEvent) => {
    const message = acceptMessage(event, { origin, source: opener, nonce }, ToPopupMessage)
    if (!message) return
    if (message.kind === 'cancel') return window.close()
    // One request per nonce.
    if (received) return
    received = true
    let hash: string
    try {
      hash = hashRequest(message.request)
    } catch {
      return showError(document, root, notOpenedMessage)
    }
    if (hash !== message.hash) return showError(document, root, notOpenedMessage)
    if (message.theme) document.documentElement.dataset.theme = message.theme
    let decided = false
    const decide = (approved: boolean) => {
      if (decided) return
      decided = true
      post({ type: messageType, kind: 'decision', nonce, hash, approved })
      // The frame closes this window once the decision is in; closing here
      // first could let the frame see the window gone before the decision.
      setTimeout(() => window.close(), popupDecidedCloseMs)
    }
    mountApproval({
      document,
      root,
      request: toSnapshot(message.request),
      hash,
      mode: 'popup',
      onApprove: () => decide(true),
      onReject: () => decide(false),
    })
  }
  window.addEventListener('message', onMessage)
  post({ type: messageType, kind: 'ready', nonce })
}
