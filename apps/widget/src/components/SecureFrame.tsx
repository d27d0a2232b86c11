import { useEffect, useRef } from 'react'
import { useStore } from '../hooks/useStore.js'
import { mountSecureFrame } from '../lib/secure/frame.js'

/**
 * The secure frame, created only once the host is verified: hidden until the
 * ApproveTransaction view lays it over its slot (`showSecureFrame`).
 */
export function SecureFrame() {
  const verified = useStore((state) => state.verification === 'verified')
  const projectId = useStore((state) => state.projectId)
  const status = useStore((state) => state.secureFrame)
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const container = ref.current
    if (!verified || projectId === null || !container) return
    return mountSecureFrame({ container, projectId })
  }, [verified, projectId])
  return <div ref={ref} data-secure-frame={status} />
}
