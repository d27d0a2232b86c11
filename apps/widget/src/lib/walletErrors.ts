/**
 * How the views read a wallet's error: a user rejection (4001, or a message
 * matching 'user rejected' or 'connection request reset', as the seed says)
 * or a failure with a message fit to show.
 */
import { ErrorCode } from '@porthole/protocol/Errors'

const rejectionPattern = /user rejected|connection request reset/i

function codeOf(error: unknown): unknown {
  let current = error as { code?: unknown; cause?: unknown } | undefined
  for (let depth = 0; current && depth < 5; depth++) {
    if (current.code !== undefined) return current.code
    current = current.cause as typeof current
  }
  return undefined
}

export function isUserRejection(error: unknown): boolean {
  if (codeOf(error) === ErrorCode.userRejected) return true
  let current = error as { message?: unknown; cause?: unknown } | undefined
  for (let depth = 0; current && depth < 5; depth++) {
    if (typeof current.message === 'string' && rejectionPattern.test(current.message)) return true
    current = current.cause as typeof current
  }
  return false
}

/** A short message for the user: viem's `shortMessage`, else the first line of `message`. */
export function messageOf(error: unknown): string {
  const { shortMessage, message } = (error ?? {}) as { shortMessage?: unknown; message?: unknown }
  const text =
    typeof shortMessage === 'string' ? shortMessage : typeof message === 'string' ? message : ''
  return (text.split('\n')[0] ?? '').slice(0, 200) || 'Something went wrong'
}
