/**
 * Visibility reports for arming (SECURITY.md 7). In the frame:
 * IntersectionObserver v2, whose `isVisible` is true only when the target is
 * not covered, transformed, filtered or made transparent by anything, in this
 * document or any ancestor frame. In the popup (a top-level window of S): the
 * page is visible and has focus. Hiding the page always counts as not visible.
 */
import { isEntryVisible } from './arming.js'

export type Report = (visible: boolean) => void

/** IntersectionObserver v2's options; TypeScript's DOM types don't have them yet. */
type TrackingInit = IntersectionObserverInit & { trackVisibility: boolean; delay: number }

/**
 * Watches `target` with IntersectionObserver v2 (`trackVisibility`, 100 ms
 * delay, threshold 1). The observer is made anew when the page is shown again,
 * so a fresh report arrives even if the observer's own state did not change.
 * Returns the function that stops watching.
 */
export function watchTargetVisibility(target: Element, report: Report): () => void {
  const document = target.ownerDocument
  const view = document.defaultView
  if (!view) {
    report(false)
    return () => {}
  }
  let observer: IntersectionObserver | undefined
  const observe = () => {
    observer?.disconnect()
    const init: TrackingInit = { threshold: [1], trackVisibility: true, delay: 100 }
    observer = new view.IntersectionObserver((entries) => {
      const entry = entries.at(-1)
      if (entry)
        report(isEntryVisible(entry as IntersectionObserverEntry & { isVisible?: boolean }))
    }, init)
    observer.observe(target)
  }
  const onVisibilityChange = () => {
    if (document.visibilityState === 'hidden') report(false)
    else observe()
  }
  document.addEventListener('visibilitychange', onVisibilityChange)
  observe()
  return () => {
    observer?.disconnect()
    document.removeEventListener('visibilitychange', onVisibilityChange)
  }
}

/**
 * For a top-level window without IntersectionObserver v2: visible while the
 * page is shown and the window has focus. Returns the function that stops.
 */
export function watchWindowVisibility(document: Document, report: Report): () => void {
  const view = document.defaultView
  if (!view) {
    report(false)
    return () => {}
  }
  const check = () => report(document.visibilityState === 'visible' && document.hasFocus())
  view.addEventListener('focus', check)
  view.addEventListener('blur', check)
  document.addEventListener('visibilitychange', check)
  check()
  return () => {
    view.removeEventListener('focus', check)
    view.removeEventListener('blur', check)
    document.removeEventListener('visibilitychange', check)
  }
}
