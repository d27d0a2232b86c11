import { type RefObject, useEffect, useState } from 'react'

/** Whether the element is in view (within `rootMargin` of its scroll container). */
export function useInView(
  ref: RefObject<Element | null>,
  options: { rootMargin?: string; enabled?: boolean } = {},
): boolean {
  const { rootMargin = '0px', enabled = true } = options
  const [inView, setInView] = useState(false)
  useEffect(() => {
    const element = ref.current
    if (!element || !enabled || typeof IntersectionObserver === 'undefined') return
    const observer = new IntersectionObserver(
      (entries) => setInView(entries.some((entry) => entry.isIntersecting)),
      { rootMargin },
    )
    observer.observe(element)
    return () => observer.disconnect()
  }, [ref, rootMargin, enabled])
  return inView
}
