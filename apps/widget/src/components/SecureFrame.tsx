import { useEffect, useRef } from 'react'
import { useStore } from '../hooks/useStore.js'
import { store } from '../lib/state/store.js'

/**
 * The secure frame, created only once the host is verified and an embedded
 * wallet is in play (`requestSecureFrame`): hidden until the
 * ApproveTransaction view lays it over its slot (`showSecureFrame`).
 */
export function SecureFrame() {
  const verified = useStore((state) => state.verification === 'verified')
  const wanted = useStore((state) => state.secureFrameWanted)
  const projectId = useStore((state) => state.projectId)
  const status = useStore((state) => state.secureFrame)
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const container = ref.current
    if (!verified || !wanted || projectId === null || !container) return
    // The frame's code (its channel and schemas) loads only now, not at start-up.
    let unmount: (() => void) | null = null
    let live = true
    import('../lib/secure/frame.js').then(
      ({ mountSecureFrame }) => {
        if (live) unmount = mountSecureFrame({ container, projectId })
      },
      () => {
        if (live) store.setState({ secureFrame: 'failed' })
      },
    )
    return () => {
      live = false
      unmount?.()
    }
  }, [verified, wanted, projectId])
  return <div ref={ref} data-secure-frame={status} />
}
