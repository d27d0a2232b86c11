import type { Network } from '@porthole/chains/Networks'
import { useState } from 'react'
import { loadChain } from '../lib/chains/index.js'
import { track } from '../lib/data/analytics.js'
import { router } from '../lib/state/router.js'
import { caipNetworkIdOf, store } from '../lib/state/store.js'
import { isUserRejection, messageOf } from '../lib/walletErrors.js'

export type SwitchStatus = 'idle' | 'switching' | 'rejected' | 'error'

/**
 * Switches the connected wallet to a network of its namespace (EVM:
 * `wallet_switchEthereumChain`, on 4902 the chain is added, then switched;
 * Solana: the adapter's network). A network of another namespace goes to
 * SwitchActiveChain.
 */
export function useSwitchNetwork(onSwitched: () => void) {
  const [status, setStatus] = useState<SwitchStatus>('idle')
  const [error, setError] = useState('')
  const select = (network: Network) => {
    const { connection } = store.getState()
    if (network.chainNamespace !== connection.namespace) {
      store.setState({ switchTarget: network.caipNetworkId })
      router.navigate('SwitchActiveChain')
      return
    }
    if (network.caipNetworkId === caipNetworkIdOf(connection)) return onSwitched()
    setStatus('switching')
    loadChain(connection.namespace)
      .then((chain) => chain.switchNetwork(network.caipNetworkId))
      .then(
        () => {
          setStatus('idle')
          void track('SWITCH_NETWORK', { network: network.caipNetworkId })
          onSwitched()
        },
        (reason: unknown) => {
          setStatus(isUserRejection(reason) ? 'rejected' : 'error')
          setError(messageOf(reason))
        },
      )
  }
  return { status, error, select }
}
