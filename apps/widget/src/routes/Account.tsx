import { truncate } from '@porthole/chains/Address'
import { formatBalance } from '@porthole/chains/Format'
import { getByCaipNetworkId } from '@porthole/chains/Networks'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { dangerButton, outlineButton, primaryButton, rowButton } from '../components/Buttons.js'
import { ChevronIcon, CopyIcon } from '../components/Icons.js'
import { Skeleton } from '../components/Skeleton.js'
import { usePendingTransactions } from '../hooks/usePendingTransactions.js'
import { useStore } from '../hooks/useStore.js'
import { useTokenBalances } from '../hooks/useTokenBalances.js'
import { loadChain } from '../lib/chains/index.js'
import { nativeBalanceQuery, tokenBalancesQuery } from '../lib/chains/queries.js'
import { priceOf, pricesQuery } from '../lib/data/prices.js'
import { formatUsd, usdTotal, usdValue } from '../lib/fiat.js'
import { projectConfigQuery } from '../lib/host/projectConfig.js'
import { t } from '../lib/i18n.js'
import { embeddedConnectorId } from '../lib/secure/approval.js'
import { router } from '../lib/state/router.js'
import { initialSendState } from '../lib/state/sendForm.js'
import { caipNetworkIdOf, store } from '../lib/state/store.js'
import { copyAddress, showToast } from '../lib/state/toast.js'
import { messageOf } from '../lib/walletErrors.js'

/** The connected account: address, network, balances, and send, sign, disconnect. */
export function Account() {
  const connection = useStore((state) => state.connection)
  const { address } = connection
  const caipNetworkId = caipNetworkIdOf(connection)
  if (address === null || caipNetworkId === null) return null
  return (
    <ConnectedAccount
      address={address}
      caipNetworkId={caipNetworkId}
      connectorName={connection.connectorName}
      connectorId={connection.connectorId}
    />
  )
}

function ConnectedAccount(props: {
  address: string
  caipNetworkId: string
  connectorName: string | null
  connectorId: string | null
}) {
  const { address, caipNetworkId, connectorName, connectorId } = props
  const network = getByCaipNetworkId(caipNetworkId)
  // A network the API has no RPC upstream for: nothing to ask, one plain line instead.
  // (Connect has it already; a failed read counts as readable: the reads then say what fails.)
  const config = useQuery(projectConfigQuery)
  const readable = !config.data?.networksWithoutRpc?.includes(caipNetworkId)
  const balance = useQuery({
    ...nativeBalanceQuery(address, caipNetworkId),
    enabled: !config.isPending && readable,
  })
  const [disconnecting, setDisconnecting] = useState(false)

  const copy = () => copyAddress(address)

  const disconnect = () => {
    setDisconnecting(true)
    loadChain()
      .then((chain) => chain.disconnect())
      .then(
        () => router.close(),
        (error: unknown) => {
          setDisconnecting(false)
          showToast(messageOf(error), 'error')
        },
      )
  }

  return (
    <section className="flex flex-col gap-4 px-4 pb-4">
      <div className="flex flex-col items-center gap-1 pt-1">
        <div className="flex items-center gap-1">
          <p
            className="font-mono text-lg font-semibold"
            title={address}
            data-testid="account-address"
          >
            {truncate(address)}
          </p>
          <button
            type="button"
            aria-label={t('account.copy')}
            onClick={copy}
            className="inline-flex size-8 items-center justify-center rounded-full text-muted hover:bg-surface-2 focus-visible:outline-2 focus-visible:outline-accent"
          >
            <CopyIcon />
          </button>
        </div>
        <p className="text-sm text-muted" aria-live="polite">
          {!readable ? (
            <span data-testid="account-balance-unreadable">{t('account.balanceNoRpc')}</span>
          ) : balance.isPending ? (
            <Skeleton className="inline-block h-4 w-24 rounded" />
          ) : balance.isError ? (
            t('account.balanceError')
          ) : (
            <span data-testid="account-balance">
              {formatBalance(balance.data)} {balance.data.symbol}
            </span>
          )}
        </p>
        {readable && balance.data ? (
          <Total address={address} caipNetworkId={caipNetworkId} native={balance.data} />
        ) : null}
        {connectorName ? (
          <p className="text-xs text-muted">
            {t('account.connectedWith', { name: connectorName })}
          </p>
        ) : null}
      </div>

      <button type="button" className={rowButton} onClick={() => router.navigate('SwitchNetwork')}>
        <span className="flex flex-1 flex-col">
          <span className="text-xs text-muted">{t('account.network')}</span>
          <span className="text-sm font-medium">{network?.name ?? caipNetworkId}</span>
        </span>
        <ChevronIcon />
      </button>

      {!config.isPending && readable ? (
        <Tokens address={address} caipNetworkId={caipNetworkId} />
      ) : null}

      {config.data?.networksWithHistory?.includes(caipNetworkId) ? (
        <ActivityEntry address={address} caipNetworkId={caipNetworkId} />
      ) : null}

      <div className="grid grid-cols-3 gap-2">
        <button
          type="button"
          className={primaryButton}
          onClick={() => {
            store.setState((state) => ({
              send: { ...initialSendState, lastRetry: state.send.lastRetry },
            }))
            router.navigate('WalletSend')
          }}
        >
          {t('account.send')}
        </button>
        <button type="button" className={outlineButton} onClick={() => router.navigate('Receive')}>
          {t('account.receive')}
        </button>
        <button
          type="button"
          className={outlineButton}
          onClick={() => router.navigate('SignMessage')}
        >
          {t('account.sign')}
        </button>
      </div>
      {connectorId === embeddedConnectorId ? (
        <button
          type="button"
          className={outlineButton}
          onClick={() => router.navigate('UpdateEmailWallet')}
        >
          {t('account.changeEmail')}
        </button>
      ) : null}
      <button type="button" className={dangerButton} disabled={disconnecting} onClick={disconnect}>
        {disconnecting ? t('account.disconnecting') : t('account.disconnect')}
      </button>
    </section>
  )
}

/**
 * The account's value in US dollars: the native coin and every token, shown
 * only when each one held has a price (a total short of some is no total).
 * It reads the token balances `Tokens` fetches, never fetching them itself.
 */
function Total(props: {
  address: string
  caipNetworkId: string
  native: { value: bigint; decimals: number }
}) {
  const { address, caipNetworkId, native } = props
  const prices = useQuery(pricesQuery(caipNetworkId))
  const tokens = useQuery({ ...tokenBalancesQuery(address, caipNetworkId), enabled: false })
  if (!prices.data || !tokens.data) return null
  const total = usdTotal([
    { ...native, price: priceOf(prices.data, null) },
    ...tokens.data.map((token) => ({ ...token, price: priceOf(prices.data, token.address) })),
  ])
  if (total === undefined) return null
  return (
    <p className="text-sm text-muted" data-testid="account-total">
      {t('account.total', { value: formatUsd(total) })}
    </p>
  )
}

/** Activity, with the count of sends still pending (which survive a reload). */
function ActivityEntry({ address, caipNetworkId }: { address: string; caipNetworkId: string }) {
  const pending = usePendingTransactions(address, caipNetworkId)
  return (
    <button type="button" className={rowButton} onClick={() => router.navigate('Activity')}>
      <span className="flex flex-1 flex-col">
        <span className="text-sm font-medium">{t('account.activity')}</span>
        {pending.length > 0 ? (
          <span className="text-xs text-muted" data-testid="account-pending">
            {t('account.pending', { count: String(pending.length) })}
          </span>
        ) : null}
      </span>
      <ChevronIcon />
    </button>
  )
}

function Tokens({ address, caipNetworkId }: { address: string; caipNetworkId: string }) {
  const tokens = useTokenBalances(address, caipNetworkId)
  const prices = useQuery(pricesQuery(caipNetworkId))
  if (tokens.isError || (tokens.fetchStatus === 'idle' && !tokens.data)) return null
  return (
    <div className="flex flex-col gap-2">
      <h3 className="text-xs font-semibold text-muted">{t('account.tokens')}</h3>
      {tokens.isPending ? (
        <Skeleton className="h-10 w-full rounded-2xl" />
      ) : tokens.data.length === 0 ? (
        <p className="text-sm text-muted">{t('account.noTokens')}</p>
      ) : (
        <ul aria-label={t('account.tokens')} className="flex flex-col gap-1">
          {tokens.data.map((token) => {
            // SPEC's token balance carries its price; no price, no fiat value.
            const fiat = usdValue(token, priceOf(prices.data, token.address))
            return (
              <li
                key={token.address}
                className="flex items-center justify-between rounded-2xl bg-surface-2 px-3 py-2 text-sm"
              >
                <span className="font-medium">{token.symbol}</span>
                <span className="flex flex-col items-end">
                  <span className="tabular-nums">
                    {formatBalance({ value: token.value, decimals: token.decimals })}
                  </span>
                  {fiat === undefined ? null : (
                    <span className="text-xs text-muted tabular-nums" data-testid="token-fiat">
                      {formatUsd(fiat)}
                    </span>
                  )}
                </span>
              </li>
            )
          })}
        </ul>
      )}
    </div>
  )
}
