import { useEffect, useRef, useState } from 'react'
import { messageOf } from '../lib/walletErrors.js'

/** Seconds left of the 30 s between mails (`read()`), ticking each second; and a re-read. */
export function useMailWait(read: () => number) {
  const [wait, setWait] = useState(read)
  useEffect(() => {
    if (wait <= 0) return
    const timer = setTimeout(() => setWait(read()), 1000)
    return () => clearTimeout(timer)
  }, [wait, read])
  return [wait, () => setWait(read())] as const
}

/**
 * A mailed code's check: `verify` once per distinct code (typed in full or
 * submitted), busy meanwhile, its failure's message as `error`.
 */
export function useCodeCheck(verify: (code: string) => Promise<void>) {
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const submitted = useRef('')
  const check = (code: string) => {
    if (busy || submitted.current === code) return
    submitted.current = code
    setBusy(true)
    setError('')
    verify(code)
      .catch((reason: unknown) => {
        submitted.current = ''
        setError(messageOf(reason))
      })
      .finally(() => setBusy(false))
  }
  return { error, setError, busy, check }
}
