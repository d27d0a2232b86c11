/**
 * Visibility reports for arming in the approval window (SECURITY.md 7): a
 * top-level window of S, visible while the page is shown and the window has
 * focus. Hiding the page or moving another window in front disarms.
 */

export type Report = (visible: boolean) => void

/** Visible while the page is shown and the window has focus. Returns the function that stops. */
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
