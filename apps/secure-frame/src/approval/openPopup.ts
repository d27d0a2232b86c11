/**
 * The frame's side of the popup path (SECURITY.md 7 and 15): where the frame
 * can't check that it is visible, the approval moves to a top-level window
 * of the secure origin. `openApprovalPopup` must be called synchronously in a
 * trusted click handler (browsers allow popups only then). Every outcome is
 * reported once: a decision, the popup closed, or a failure; nothing waits
 * forever (SECURITY.md 17).
 */
import {
  acceptMessage,
  createNonce,
  messageType,
  ToFrameMessage,
  type ToPopupMessage,
  toPopupUrl,
} from './popupProtocol.js'
import type { ApprovalRequest } from './request.js'

/** How long the popup has to say it is ready. */
export const popupReadyTimeoutMs = 10_000
/** How often the frame checks whether the popup was closed. */
export const popupClosedPollMs = 250
/**
 * How long a decided popup waits for the frame to close it before closing
 * itself (the frame is gone or stuck). The frame closes it as soon as the
 * decision arrives, so a decision is never lost to the window closing first.
 */
export const popupDecidedCloseMs = 2_000

export type OpenApprovalPopupParameters = {
  window: Window
  /** The snapshot shown in the frame. */
  request: ApprovalRequest
  hash: string
  theme?: 'light' | 'dark' | undefined
  /** The user decided in the popup; `hash` is the one the popup showed. */
  onDecision: (approved: boolean, hash: string) => void
  /** The popup was closed without a decision. */
  onClosed: () => void
  /** The popup was blocked or did not answer; the message is for the user. */
  onFailed: (message: string) => void
  readyTimeoutMs?: number | undefined
}

export type ApprovalPopup = {
  /** Brings the popup to the front. */
  focus(): void
  /** Closes the popup; no callback follows. */
  close(): void
}

export const popupBlockedMessage =
  'The approval window was blocked. Allow pop-ups for this site, then try again.'
export const popupSilentMessage = 'The approval window did not respond. Try again.'

export function openApprovalPopup(
  parameters: OpenApprovalPopupParameters,
): ApprovalPopup | undefined {
  const { window, request, hash, theme, onDecision, onClosed, onFailed } = parameters
  const origin = window.location.origin
  const nonce = createNonce(window.crypto)
  // Not `noopener`: the popup answers through `window.opener`. A fresh name
  // (`_blank`), so no other window can target it by name.
  const popup = window.open(toPopupUrl(origin, nonce), '_blank', 'popup,width=420,height=640')
  if (!popup) {
    onFailed(popupBlockedMessage)
    return
  }
  let phase: 'waiting' | 'sent' | 'done' = 'waiting'
  const finish = () => {
    phase = 'done'
    window.removeEventListener('message', onMessage)
    window.removeEventListener('pagehide', onPageHide)
    clearInterval(poll)
    clearTimeout(readyTimer)
  }
  // This document is going (the host navigated the frame, or its page): the
  // request goes with it, and so does its window (SECURITY.md 17).
  const onPageHide = () => {
    finish()
    popup.close()
  }
  const post = (message: ToPopupMessage) => popup.postMessage(message, origin)
  const onMessage = (event: MessageEvent) => {
    const message = acceptMessage(event, { origin, source: popup, nonce }, ToFrameMessage)
    if (!message) return
    if (message.kind === 'ready' && phase === 'waiting') {
      phase = 'sent'
      clearTimeout(readyTimer)
      post({ type: messageType, kind: 'request', nonce, hash, request, theme })
    } else if (message.kind === 'decision' && phase === 'sent') {
      finish()
      // The popup waits for this: closing it here, not there, means the
      // decision always arrives before the window is seen closed.
      try {
        popup.close()
      } finally {
        onDecision(message.approved, message.hash)
      }
    }
  }
  window.addEventListener('message', onMessage)
  window.addEventListener('pagehide', onPageHide)
  // Closed is final only on the second look: a decision posted just before
  // the window went (its own fallback close) gets one more poll to arrive.
  let seenClosed = false
  const poll = setInterval(() => {
    if (!popup.closed || phase === 'done') return
    if (!seenClosed) {
      seenClosed = true
      return
    }
    finish()
    onClosed()
  }, popupClosedPollMs)
  const readyTimer = setTimeout(() => {
    if (phase !== 'waiting') return
    finish()
    popup.close()
    onFailed(popupSilentMessage)
  }, parameters.readyTimeoutMs ?? popupReadyTimeoutMs)

  return {
    focus() {
      if (!popup.closed) popup.focus()
    },
    close() {
      if (phase === 'done') return
      finish()
      try {
        post({ type: messageType, kind: 'cancel', nonce })
      } catch {
        // Already gone.
      }
      popup.close()
    },
  }
}
