import { NetworkList } from '../components/NetworkList.js'
import { SwitchStatus } from '../components/SwitchStatus.js'
import { useStore } from '../hooks/useStore.js'
import { useSwitchNetwork } from '../hooks/useSwitchNetwork.js'
import { router } from '../lib/state/router.js'
import { caipNetworkIdOf } from '../lib/state/store.js'

/** The project's networks; picking one switches the wallet to it, then back to Account. */
export function SwitchNetwork() {
  const current = useStore((state) => caipNetworkIdOf(state.connection))
  const { status, error, select } = useSwitchNetwork(() => router.back())
  return (
    <section className="flex flex-col gap-3 px-4 pb-4">
      <SwitchStatus status={status} error={error} />
      <NetworkList current={current} disabled={status === 'switching'} onSelect={select} />
    </section>
  )
}
