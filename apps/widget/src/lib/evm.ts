/**
 * The EVM layer (wagmi, viem, WalletConnect) lives in a lazy chunk
 * (`lib/evm/index.ts`), so the Connect view paints without it. It is loaded
 * in the background once the host is verified, and at once by anything that
 * needs it; everyone shares the one instance. Views that are lazy chunks
 * themselves may import `lib/evm/*` directly.
 */
import type { Evm } from './evm/index.js'
import { store } from './store.js'

export type { Evm }

let loading: Promise<Evm> | undefined

export function loadEvm(): Promise<Evm> {
  if (loading) return loading
  store.setState({ evm: 'loading' })
  loading = import('./evm/index.js').then(
    ({ evm }) => {
      store.setState({ evm: 'ready' })
      return evm
    },
    (error: unknown) => {
      loading = undefined
      store.setState({ evm: 'failed' })
      throw error
    },
  )
  return loading
}
