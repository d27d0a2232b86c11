/**
 * One approval at a time, first come first shown (SECURITY.md 6). Each
 * approval is bound, when it is shown, to its request's hash; `approve` acts
 * only for the approval showing, only with that hash, and only if the request
 * still hashes to it. So a click meant for request A can never settle request
 * B, and a request changed after it was shown is never approved. Nothing here
 * touches the DOM: the presenter does, and every entry settles on approve,
 * reject, abort or a presenter failure (SECURITY.md 17).
 */
import {
  AbortedError,
  InvalidParamsError,
  type RpcError,
  toRpcError,
  UserRejectedError,
} from '@porthole/protocol/Errors'

/** The approval on screen, as its presenter sees it. */
export type Shown<T> = {
  readonly item: T
  /** The request's hash when it was shown. */
  readonly hash: string
  /**
   * Approves, if this approval is still the one showing, `hash` is the hash it
   * was shown with, and the request still hashes to it; returns whether it did.
   * A request found changed is rejected.
   */
  approve(hash: string): boolean
  /** Rejects with 4001 'User rejected the request.' (no-op once settled). */
  reject(): void
}

/** Shows an approval; returns the function that removes it. */
export type Present<T> = (shown: Shown<T>) => () => void

export type CreateApprovalQueueOptions<T> = {
  /** The request's binding hash; throws when the request cannot be hashed. */
  hash: (item: T) => string
  present: Present<T>
}

export type ApprovalQueue<T> = {
  /** Settles when the user approves (resolves), rejects, or `signal` aborts (rejects). */
  request(item: T, signal?: AbortSignal | undefined): Promise<void>
  /** Approvals waiting behind the one showing. */
  readonly waiting: number
  /** Whether an approval is showing. */
  readonly showing: boolean
}

type Entry<T> = {
  readonly item: T
  readonly signal: AbortSignal | undefined
  readonly resolve: () => void
  readonly reject: (error: RpcError) => void
  readonly onAbort: () => void
  settled: boolean
  teardown: (() => void) | undefined
}

/** The request object changed between being shown and being approved. */
export class ChangedRequestError extends InvalidParamsError {
  override name = 'ChangedRequestError'
  constructor() {
    super('The request changed after it was shown.')
  }
}

export function createApprovalQueue<T>(options: CreateApprovalQueueOptions<T>): ApprovalQueue<T> {
  const { hash, present } = options
  const waiting: Entry<T>[] = []
  let active: Entry<T> | undefined

  const settle = (entry: Entry<T>, error?: RpcError) => {
    if (entry.settled) return
    entry.settled = true
    entry.signal?.removeEventListener('abort', entry.onAbort)
    const index = waiting.indexOf(entry)
    if (index !== -1) waiting.splice(index, 1)
    if (active === entry) {
      active = undefined
      const teardown = entry.teardown
      entry.teardown = undefined
      try {
        teardown?.()
      } catch {
        // The approval is settled either way; a failed removal must not block the next one.
      }
    }
    if (error) entry.reject(error)
    else entry.resolve()
    show()
  }

  const hashOf = (item: T): string | undefined => {
    try {
      return hash(item)
    } catch {
      return
    }
  }

  const show = () => {
    while (active === undefined) {
      const entry = waiting.shift()
      if (!entry) return
      const bound = hashOf(entry.item)
      if (bound === undefined) {
        settle(entry, new InvalidParamsError('The request cannot be shown for approval.'))
        continue
      }
      active = entry
      const shown: Shown<T> = {
        item: entry.item,
        hash: bound,
        approve: (candidate) => {
          if (entry.settled || active !== entry || candidate !== bound) return false
          if (hashOf(entry.item) !== bound) {
            settle(entry, new ChangedRequestError())
            return false
          }
          settle(entry)
          return true
        },
        reject: () => {
          if (!entry.settled) settle(entry, new UserRejectedError())
        },
      }
      let teardown: (() => void) | undefined
      try {
        teardown = present(shown)
      } catch (error) {
        settle(entry, toRpcError(error))
        continue
      }
      // Settled while being presented: remove what was just shown.
      if (entry.settled) teardown()
      else entry.teardown = teardown
    }
  }

  return {
    request(item, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(new AbortedError())
        const entry: Entry<T> = {
          item,
          signal,
          resolve,
          reject,
          onAbort: () => settle(entry, new AbortedError()),
          settled: false,
          teardown: undefined,
        }
        signal?.addEventListener('abort', entry.onAbort, { once: true })
        waiting.push(entry)
        show()
      })
    },
    get waiting() {
      return waiting.length
    },
    get showing() {
      return active !== undefined
    },
  }
}
