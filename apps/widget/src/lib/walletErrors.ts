/**
 * How the views read a wallet's error: a user rejection (4001, or a message
 * matching 'user rejected' or 'connection request reset', as the seed says)
 * or a failure with a message fit to show.
 */
import { ErrorCode, ErrorMessage } from '@porthole/protocol/Errors'
import { t } from './i18n.js'

const rejectionPattern = /user rejected|connection request reset/i

type Layer = { code?: unknown; message?: unknown; cause?: unknown }

/** Whether `test` holds for the error or any of its causes (wrappers nest them, viem's among them). */
function someLayer(error: unknown, test: (layer: Layer) => boolean): boolean {
  let current = error as Layer | undefined
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    if (test(current)) return true
    current = current.cause as Layer | undefined
  }
  return false
}

export function isUserRejection(error: unknown): boolean {
  return someLayer(
    error,
    ({ code, message }) =>
      code === ErrorCode.userRejected ||
      (typeof message === 'string' && rejectionPattern.test(message)),
  )
}

/** zod's error (`issues` listed): an answer of the API this build does not know how to read. */
const isSchemaError = ({ name, issues }: Layer & { name?: unknown; issues?: unknown }) =>
  (name === 'ZodError' || name === '$ZodError') && Array.isArray(issues)

/**
 * A short message for the user: viem's `shortMessage`, else the first line of
 * `message`. A schema error is never shown as it is (its first line is "[", a
 * JSON list of issues): it says the page cannot read the answer.
 */
export function messageOf(error: unknown): string {
  try {
    if (someLayer(error, isSchemaError)) return t('error.unreadableAnswer')
    const { shortMessage, message } = (error ?? {}) as { shortMessage?: unknown; message?: unknown }
    const text =
      typeof shortMessage === 'string' && shortMessage
        ? shortMessage
        : typeof message === 'string'
          ? message
          : ''
    return (text.split('\n')[0] ?? '').slice(0, 200) || ErrorMessage.somethingWentWrong
  } catch {
    // A wallet's error whose getters throw (a Proxy) is still only an error.
    return ErrorMessage.somethingWentWrong
  }
}
