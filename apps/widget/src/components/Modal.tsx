import {
  type KeyboardEvent,
  type ReactNode,
  useEffect,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
} from 'react'
import { useResolvedTheme } from '../hooks/useResolvedTheme.js'
import { useStore } from '../hooks/useStore.js'
import { router } from '../lib/state/router.js'
import { store } from '../lib/state/store.js'
import { themeStyle } from '../lib/themeVariables.js'
import { Alerts } from './Alerts.js'
import { Header } from './Header.js'
import { SecureFrame } from './SecureFrame.js'
import { Toast } from './Toast.js'

const focusableSelector = [
  'a[href]',
  'button:not([disabled])',
  'input:not([disabled]):not([type="hidden"])',
  'select:not([disabled])',
  'textarea:not([disabled])',
  'iframe',
  '[tabindex]:not([tabindex="-1"])',
].join(',')

function focusables(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(focusableSelector)).filter(
    (element) => !element.closest('[hidden], [inert]') && element.getClientRects().length > 0,
  )
}

/**
 * The modal: the whole iframe is its backdrop, with the card in the middle.
 * Rendered from start-up even while the loader keeps the iframe hidden, so
 * opening only reveals it; inert while closed. Escape, a click on the backdrop and Close all end
 * in `router.close()`.
 */
export function Modal({ children }: { children: ReactNode }) {
  const open = useStore((state) => state.open)
  const theme = useResolvedTheme()
  const themeVariables = useStore((state) => state.themeVariables)
  // A host the check refused (or could not check) gets the default look: it must not
  // style the alert about it.
  const refused = useStore(
    (state) => state.verification !== 'pending' && state.verification !== 'verified',
  )
  const style = useMemo(
    () => (refused ? {} : themeStyle(themeVariables, theme)),
    [refused, themeVariables, theme],
  )
  // A new array on every navigation, even to the view already shown.
  const history = useStore((state) => state.history)
  const titleId = useId()
  const card = useRef<HTMLDivElement>(null)
  const body = useRef<HTMLDivElement>(null)

  // On opening and on each view: focus the view's first control, else the title
  // until the view's content (still loading) brings one. While the view shows,
  // focus that falls out of the card (its control re-rendered away, the frame
  // refocused) comes back the same way; focus the user moved on stays.
  // Until the user acts (a key or a pointer), the view's first control keeps
  // focus even when part of the view arrives later (the email field's chunk).
  useLayoutEffect(() => {
    const element = body.current
    if (!open || history.length === 0 || !element) return
    const title = document.getElementById(titleId)
    let untouched = true
    const touched = () => {
      untouched = false
    }
    const settle = () => {
      const active = document.activeElement
      const first = focusables(element)[0]
      const lost = !active || active === document.body || active === title
      if (!lost && !(untouched && first && active !== first && element.contains(active))) return
      const next = first ?? (active === title ? null : title)
      next?.focus({ preventScroll: true })
    }
    settle()
    const observer = new MutationObserver(settle)
    observer.observe(element, { childList: true, subtree: true })
    document.addEventListener('keydown', touched, true)
    document.addEventListener('pointerdown', touched, true)
    return () => {
      observer.disconnect()
      document.removeEventListener('keydown', touched, true)
      document.removeEventListener('pointerdown', touched, true)
    }
  }, [open, history, titleId])

  // Listeners read the store's current value, not a render's: a key pressed
  // the instant the modal opens must not fall between a state change and the
  // effect that follows it.
  useEffect(() => {
    const onKeyDown = (event: globalThis.KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented || !store.getState().open) return
      event.preventDefault()
      router.close()
    }
    // Focus that lands outside the card (the page itself) goes back in.
    const onFocusIn = (event: FocusEvent) => {
      const element = card.current
      if (!store.getState().open || !element || element.contains(event.target as Node)) return
      ;(focusables(element)[0] ?? document.getElementById(titleId))?.focus()
    }
    // `open` can arrive before the host's focus reaches this frame, and a focus
    // call made in an unfocused cross-origin frame is lost. When the frame gains
    // focus with nothing in the card focused, focus the view's first control.
    const onWindowFocus = () => {
      const element = card.current
      if (!store.getState().open || !element || element.contains(document.activeElement)) return
      const view = body.current
      ;((view && focusables(view)[0]) ?? document.getElementById(titleId))?.focus({
        preventScroll: true,
      })
    }
    document.addEventListener('keydown', onKeyDown)
    document.addEventListener('focusin', onFocusIn)
    window.addEventListener('focus', onWindowFocus)
    return () => {
      window.removeEventListener('focus', onWindowFocus)
      document.removeEventListener('keydown', onKeyDown)
      document.removeEventListener('focusin', onFocusIn)
    }
  }, [titleId])

  // Tab and Shift+Tab cycle inside the card.
  const trapTab = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Tab' || !card.current) return
    const elements = focusables(card.current)
    const first = elements[0]
    const last = elements.at(-1)
    if (!first || !last) return event.preventDefault()
    const active = document.activeElement
    const outside = !(active instanceof Node) || !card.current.contains(active)
    if (event.shiftKey && (active === first || outside)) {
      event.preventDefault()
      last.focus()
    } else if (!event.shiftKey && (active === last || outside)) {
      event.preventDefault()
      first.focus()
    }
  }

  return (
    // The backdrop: a click on it closes, and Escape is its keyboard equivalent.
    // Closed, the loader keeps the frame transparent but rendering (so opening
    // paints at once): inert, the closed modal takes no focus, no click and is
    // out of the accessibility tree.
    <div
      inert={!open}
      className="fixed inset-0 flex items-center-safe justify-center overflow-y-auto bg-black/45 p-2"
      onPointerDown={(event) => {
        if (event.target === event.currentTarget) router.close()
      }}
    >
      <div
        ref={card}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-theme={theme}
        // The site's accent, radius and font as CSS variables (index.css reads them).
        style={style}
        data-open={open}
        onKeyDown={trapTab}
        className="relative flex w-[22.5rem] max-w-full flex-col overflow-hidden rounded-3xl border border-line bg-surface font-sans text-fg shadow-card"
      >
        <Header titleId={titleId} />
        <div ref={body} className="flex min-h-0 flex-col">
          <Alerts />
          {children}
        </div>
        <Toast />
        {/* Inside the card, so the focus trap counts it in when it shows. */}
        <SecureFrame />
      </div>
    </div>
  )
}
