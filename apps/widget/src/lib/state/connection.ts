/**
 * What every chain adapter does with its connection the same way: the
 * UnsupportedChain lock, and a host's connect request waiting for the user.
 */
import { UserRejectedError } from '@porthole/protocol/Errors'
import { router } from './router.js'
import { type Connection, type ConnectionNamespace, store } from './store.js'

/**
 * A wallet on a network the project does not offer gets UnsupportedChain,
 * which cannot be closed; back on a supported one, the modal goes home.
 */
export function followSupport(connection: Connection, supported: boolean): void {
  const state = store.getState()
  const view = state.history.at(-1)
  if (connection.status === 'connected' && !supported) {
    if (view !== 'UnsupportedChain') router.open('UnsupportedChain')
  } else if (view === 'UnsupportedChain') {
    // Back on a supported network (or disconnected): the lock is gone.
    router.reset()
    router.close()
  } else if (connection.status === 'disconnected' && !state.open) {
    router.reset()
  }
}

/**
 * Waits for a connection of `namespace`; the address. Rejects with 4001 once
 * the modal closes without one, or the host gives up (`signal`).
 */
export function waitForConnection(
  signal: AbortSignal,
  namespace: ConnectionNamespace,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const { connection, open } = store.getState()
      if (
        connection.status === 'connected' &&
        connection.namespace === namespace &&
        connection.address
      ) {
        done()
        resolve(connection.address)
      } else if (!open) {
        done()
        reject(new UserRejectedError('The user closed the modal without connecting.'))
      }
    }
    const onAbort = () => {
      done()
      reject(new UserRejectedError('The request was cancelled.'))
    }
    const unsubscribe = store.subscribe(check)
    const done = () => {
      unsubscribe()
      signal.removeEventListener('abort', onAbort)
    }
    signal.addEventListener('abort', onAbort)
  })
}
