import { getByCaipNetworkId } from '@porthole/chains/Networks'
import { outlineButton, primaryButton } from '../components/Buttons.js'
import { useStore } from '../hooks/useStore.js'
import { isAdapterNamespace, loadChain } from '../lib/chains/index.js'
import { t } from '../lib/i18n.js'
import { router } from '../lib/state/router.js'
import { store } from '../lib/state/store.js'

const namespaceNames: Record<string, string> = {
  solana: 'Solana',
  bip122: 'Bitcoin',
  eip155: 'EVM',
}

/**
 * A network of another namespace (EVM, Solana, Bitcoin) was picked while a
 * wallet of one namespace is connected: it cannot switch there, so offer to
 * disconnect and choose a wallet that can. Connect then lists the wallets of
 * that namespace first, and the new connection starts on the network picked.
 */
export function SwitchActiveChain() {
  const target = useStore((state) => state.switchTarget)
  const current = useStore((state) => state.connection.namespace)
  const network = target ? getByCaipNetworkId(target) : undefined
  if (!network) return null
  const values = {
    name: network.name,
    namespace: namespaceNames[network.chainNamespace] ?? network.chainNamespace,
    current: namespaceNames[current] ?? current,
  }
  return (
    <section className="flex flex-col gap-4 px-6 pb-6 text-center">
      <p className="text-base font-semibold">{t('switchActiveChain.title', values)}</p>
      <p className="text-sm text-muted">{t('switchActiveChain.body', values)}</p>
      <button
        type="button"
        className={primaryButton}
        onClick={() =>
          void loadChain()
            .then((chain) => chain.disconnect())
            .then(() => {
              if (isAdapterNamespace(network.chainNamespace))
                store.setState({ requestedNamespace: network.chainNamespace })
              router.reset('Connect')
            })
        }
      >
        {t('switchActiveChain.confirm')}
      </button>
      <button type="button" className={outlineButton} onClick={() => router.back()}>
        {t('modal.back')}
      </button>
    </section>
  )
}
