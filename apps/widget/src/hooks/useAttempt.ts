import { useCallback, useEffect, useRef, useState } from 'react'
import { messageOf } from '../lib/walletErrors.js'

/**
 * Runs `run` when the view opens and again on each `retry`: a new attempt
 * aborts the one before, and leaving the view aborts the last. The error is
 * the current attempt's message ('' while it has none); an aborted attempt's
 * failure is not shown.
 */
export function useAttempt(run: (signal: AbortSignal) => Promise<void>): {
  error: string
  retry: () => void
} {
  const [error, setError] = useState('')
  const attempt = useRef<AbortController | null>(null)
  const latest = useRef(run)
  latest.current = run

  const retry = useCallback(() => {
    attempt.current?.abort()
    const controller = new AbortController()
    attempt.current = controller
    setError('')
    latest.current(controller.signal).catch((reason: unknown) => {
      if (!controller.signal.aborted) setError(messageOf(reason))
    })
  }, [])

  useEffect(() => {
    retry()
    return () => attempt.current?.abort()
  }, [retry])

  return { error, retry }
}
