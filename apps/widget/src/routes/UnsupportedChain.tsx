import { dangerButton } from '../components/Buttons.js'
import { NetworkList } from '../components/NetworkList.js'
import { Notice } from '../components/Notice.js'
import { SwitchStatus } from '../components/SwitchStatus.js'
import { useSwitchNetwork } from '../hooks/useSwitchNetwork.js'
import { loadChain } from '../lib/chains/index.js'
import { t } from '../lib/i18n.js'

/**
 * The wallet is on a network the project does not offer. The modal cannot be
 * closed here (`router.close` refuses): switch to a supported network or
 * disconnect. Once the wallet is back on one, the modal closes by itself.
 */
export function UnsupportedChain() {
  const { status, error, select } = useSwitchNetwork(() => undefined)
  return (
    <section className="flex flex-col gap-3 px-4 pb-4">
      <Notice role="alert" tone="warning" title={t('unsupportedChain.title')}>
        <p>{t('unsupportedChain.body')}</p>
      </Notice>
      <SwitchStatus status={status} error={error} />
      <NetworkList current={null} disabled={status === 'switching'} onSelect={select} />
      <button
        type="button"
        className={dangerButton}
        onClick={() => void loadChain().then((chain) => chain.disconnect())}
      >
        {t('account.disconnect')}
      </button>
    </section>
  )
}
