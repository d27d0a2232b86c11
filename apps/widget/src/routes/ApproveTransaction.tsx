import { useLayoutEffect, useRef } from 'react'
import { useStore } from '../hooks/useStore.js'
import { t } from '../lib/i18n.js'
import { showSecureFrame } from '../lib/secure/frame.js'

/**
 * A request of the embedded wallet that needs approval. The widget shows no
 * Approve button of its own: it lays the secure frame over this view's slot,
 * and the frame renders the decoded request, the browser-verified origin,
 * Reject and 'Open approval window'; Approve lives only in that window, a
 * top-level window of the secure origin that the host cannot paint over
 * (SECURITY.md 6-8). Close (or Escape) cancels: 4001.
 */
export function ApproveTransaction() {
  const ready = useStore((state) => state.secureFrame === 'ready')
  const method = useStore((state) => state.approval?.method ?? '')
  const slot = useRef<HTMLDivElement>(null)

  useLayoutEffect(() => {
    const element = slot.current
    if (!ready || !element) return
    const place = () => {
      const { top, left, width, height } = element.getBoundingClientRect()
      showSecureFrame({ top, left, width, height })
    }
    place()
    const observer = new ResizeObserver(place)
    observer.observe(element)
    window.addEventListener('resize', place)
    return () => {
      observer.disconnect()
      window.removeEventListener('resize', place)
      showSecureFrame(null)
    }
  }, [ready])

  return (
    <section className="px-2 pb-2">
      <p className="sr-only" role="status">
        {t('approve.instructions', { method })}
      </p>
      <div ref={slot} data-testid="approval-slot" className="h-[460px] w-full">
        {ready ? null : (
          <p role="status" className="pt-8 text-center text-sm text-muted">
            {t('approve.loading')}
          </p>
        )}
      </div>
    </section>
  )
}
