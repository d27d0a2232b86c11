import { imagePreloadTimeout } from '@porthole/protocol/Constants'
import { type RefObject, useEffect, useState } from 'react'
import { type ImageStatus, imageStatus } from '../lib/data/explorer.js'
import { useInView } from './useInView.js'

export type ImageState = ImageStatus | 'timeout'

/**
 * The state of one image: `loading` (a skeleton), `loaded`, `failed`, or
 * `timeout` when it has not loaded 2 s after it came into view (a fallback
 * shows; the image still replaces it if it arrives). The clock starts when the
 * image comes into view, so a lazy image far down a list is not given up on
 * before it is even requested.
 */
export function useImageStatus(
  url: string | null,
  ref: RefObject<Element | null>,
): [ImageState, (status: ImageStatus) => void] {
  const [status, setStatus] = useState<ImageState>(() =>
    url === null ? 'failed' : (imageStatus.get(url) ?? 'loading'),
  )
  const inView = useInView(ref, { enabled: status === 'loading' })
  useEffect(() => {
    if (status !== 'loading' || !inView) return
    const timer = setTimeout(() => setStatus('timeout'), imagePreloadTimeout)
    return () => clearTimeout(timer)
  }, [status, inView])
  const settle = (next: ImageStatus) => {
    if (url !== null) imageStatus.set(url, next)
    setStatus(next)
  }
  return [status, settle]
}
