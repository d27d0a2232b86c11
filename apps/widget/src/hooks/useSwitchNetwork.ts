import type { Network } from '@porthole/chains/Networks'
import { useState } from 'react'
import { loadChain } from '../lib/chains/index.js'
import { router } from '../lib/state/router.js'
import { store } from '../lib/state/store.js'
import { isUserRejection, messageOf } from '../lib/walletErrors.js'

export type SwitchStatus = 'idle' | 'switching' | 'rejected' | 'error'

/**
 * Switches the connected wallet to a network (`wallet_switchEthereumChain`;
 * on 4902 wagmi adds the chain, then switches). A network of another
 * namespace goes to SwitchActiveChain.
 */
export function useSwitchNetwork(onSwitched: () => void) {
  const [status, setStatus] = useState<SwitchStatus>('idle')
  const [error, setError] = useState('')
  const select = (network: Network) => {
    if (network.chainNamespace !== 'eip155') {
      store.setState({ switchTarget: network.caipNetworkId })
      router.navigate('SwitchActiveChain')
      return
    }
    if (network.id === store.getState().connection.chainId) return onSwitched()
    setStatus('switching')
    loadChain(network.chainNamespace)
      .then((chain) => chain.switchNetwork(network.caipNetworkId))
      .then(
        () => {
          setStatus('idle')
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
