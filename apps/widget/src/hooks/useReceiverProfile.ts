import { useQuery } from '@tanstack/react-query'
import { useEffect } from 'react'
import { receiverProfileQuery } from '../lib/chains/queries.js'
import { store } from '../lib/state/store.js'
import { useStore } from './useStore.js'

/**
 * Resolves `receiver`'s profile on the network and keeps it in the send state
 * (`receiverProfileName`, `receiverProfileImageUrl`) whenever `receiver` is
 * the state's receiver address (the form passes it debounced, so it may lag):
 * nothing while it resolves, nothing when it has none or the lookup failed (a
 * failure never holds up the send).
 */
export function useReceiverProfile(receiver: string, caipNetworkId: string): void {
  const current = useStore((state) => state.send.receiverAddress.trim())
  const { data } = useQuery(receiverProfileQuery(receiver, caipNetworkId))
  const name = data?.name ?? null
  const imageUrl = data?.imageUrl ?? null
  useEffect(() => {
    if (current !== receiver) return
    store.setState(({ send }) =>
      send.receiverProfileName === name && send.receiverProfileImageUrl === imageUrl
        ? {}
        : { send: { ...send, receiverProfileName: name, receiverProfileImageUrl: imageUrl } },
    )
  }, [current, receiver, name, imageUrl])
}
