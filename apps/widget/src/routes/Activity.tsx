import { truncate } from '@porthole/chains/Address'
import { formatBalance } from '@porthole/chains/Format'
import { getByCaipNetworkId } from '@porthole/chains/Networks'
import type { HistoryTransaction, HistoryTransfer } from '@porthole/protocol/History'
import { useInfiniteQuery } from '@tanstack/react-query'
import { useEffect, useId, useMemo, useRef } from 'react'
import { outlineButton } from '../components/Buttons.js'
import { ErrorText } from '../components/ErrorText.js'
import { Skeleton } from '../components/Skeleton.js'
import { usePendingTransactions } from '../hooks/usePendingTransactions.js'
import { useStore } from '../hooks/useStore.js'
import { track } from '../lib/data/analytics.js'
import { groupByMonth, transactionsQuery, visibleTransactions } from '../lib/data/history.js'
import { awaitingIndex, type PendingTransaction } from '../lib/data/pending.js'
import { t } from '../lib/i18n.js'
import { caipNetworkIdOf } from '../lib/state/store.js'

/**
 * Activity: the account's transactions on the active network, newest first,
 * grouped by month, from the API's indexer; pending sends above them. More
 * load as the end of the list scrolls into view (the cursor's next page).
 */
export function Activity() {
  const connection = useStore((state) => state.connection)
  const caipNetworkId = caipNetworkIdOf(connection)
  if (connection.address === null || caipNetworkId === null) return null
  return <ActivityList address={connection.address} caipNetworkId={caipNetworkId} />
}

function ActivityList({ address, caipNetworkId }: { address: string; caipNetworkId: string }) {
  const query = useInfiniteQuery(transactionsQuery(address, caipNetworkId))
  const pending = usePendingTransactions(address, caipNetworkId)
  const sentinel = useRef<HTMLDivElement>(null)
  const listLabel = useId()
  const native = getByCaipNetworkId(caipNetworkId)?.nativeCurrency ?? { symbol: '', decimals: 18 }

  const transactions = useMemo(
    () => visibleTransactions(query.data?.pages.flatMap((page) => page.data) ?? [], caipNetworkId),
    [query.data, caipNetworkId],
  )
  const groups = useMemo(
    () => groupByMonth(transactions, (transaction) => new Date(transaction.metadata.minedAt)),
    [transactions],
  )
  // A pending hash the indexer has already stored shows once, as mined.
  const shownPending = pending.filter(
    (entry) => !transactions.some((transaction) => transaction.id === entry.hash.toLowerCase()),
  )

  // A send just mined that the indexer has not stored yet: read again, every second, a while.
  // (dataUpdatedAt: each answer, even one that changed nothing, schedules the next.)
  const { refetch, dataUpdatedAt } = query
  useEffect(() => {
    if (dataUpdatedAt === 0) return
    const known = new Set(transactions.map((transaction) => transaction.id))
    if (awaitingIndex(known).length === 0) return
    const timer = setTimeout(() => void refetch(), 1_000)
    return () => clearTimeout(timer)
  }, [transactions, refetch, dataUpdatedAt])

  useEffect(() => {
    if (query.isError) void track('ERROR_FETCH_TRANSACTIONS', { network: caipNetworkId })
  }, [query.isError, caipNetworkId])

  // The next page once the end of the list is in view.
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query
  useEffect(() => {
    const element = sentinel.current
    if (!element || !hasNextPage) return
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting) && !isFetchingNextPage) void fetchNextPage()
    })
    observer.observe(element)
    return () => observer.disconnect()
  }, [hasNextPage, isFetchingNextPage, fetchNextPage])

  if (query.isPending) {
    return (
      <section className="flex flex-col gap-2 px-4 pb-4" aria-busy="true">
        <p className="sr-only" role="status">
          {t('activity.loading')}
        </p>
        {[0, 1, 2].map((row) => (
          <Skeleton key={row} className="h-12 w-full rounded-2xl" />
        ))}
      </section>
    )
  }

  if (query.isError) {
    // The seed's error: the list is empty and says so.
    return (
      <section className="flex flex-col gap-3 px-4 pb-4">
        <ErrorText>{t('activity.error')}</ErrorText>
        <button type="button" className={outlineButton} onClick={() => void query.refetch()}>
          {t('activity.retry')}
        </button>
      </section>
    )
  }

  const empty = groups.length === 0 && shownPending.length === 0
  return (
    <section className="flex flex-col gap-3 px-4 pb-4">
      {empty ? (
        <p className="py-6 text-center text-sm text-muted" data-testid="activity-empty">
          {t('activity.empty')}
        </p>
      ) : (
        <section
          className="flex max-h-96 flex-col gap-3 overflow-y-auto"
          // Scrollable by keyboard: the list takes focus, arrow keys scroll it.
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be focusable
          tabIndex={0}
          aria-labelledby={listLabel}
        >
          <h3 id={listLabel} className="sr-only">
            {t('activity.list')}
          </h3>
          {shownPending.length > 0 ? (
            <Group title={t('activity.pending')}>
              {shownPending.map((entry) => (
                <PendingRow key={entry.hash} entry={entry} />
              ))}
            </Group>
          ) : null}
          {groups.map((group) => (
            <Group key={group.key} title={group.title}>
              {group.items.map((transaction) => (
                <TransactionRow key={transaction.id} transaction={transaction} native={native} />
              ))}
            </Group>
          ))}
          <div ref={sentinel} aria-hidden="true" className="h-px" />
          {isFetchingNextPage ? (
            <p role="status" className="text-center text-xs text-muted">
              {t('activity.loadingMore')}
            </p>
          ) : null}
        </section>
      )}
    </section>
  )
}

function Group({ title, children }: { title: string; children: React.ReactNode }) {
  const id = useId()
  return (
    <section aria-labelledby={id} className="flex flex-col gap-1">
      <h4 id={id} className="text-xs font-semibold text-muted">
        {title}
      </h4>
      <ul className="flex flex-col gap-1">{children}</ul>
    </section>
  )
}

const timeFormat = new Intl.DateTimeFormat(undefined, {
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
})

/** What a transfer moved, as a line: an amount and symbol, or an NFT's collection and id. */
function describeTransfer(transfer: HistoryTransfer, native: NativeCoin): string {
  if (transfer.kind === 'erc721' || transfer.kind === 'erc1155') {
    const collection = transfer.token?.symbol ?? transfer.token?.name ?? t('activity.nft')
    const count = transfer.kind === 'erc1155' ? `${transfer.amount} × ` : ''
    return `${count}${collection} #${transfer.tokenId ?? '?'}`
  }
  const decimals = transfer.kind === 'native' ? native.decimals : transfer.token?.decimals
  // A token without a symbol (an SPL mint the node names no further) shows its address, shortened.
  const symbol =
    transfer.kind === 'native'
      ? native.symbol
      : (transfer.token?.symbol ?? (transfer.token ? truncate(transfer.token.address) : ''))
  if (decimals === null || decimals === undefined) return `${transfer.amount} ${symbol}`.trim()
  return `${formatBalance({ value: BigInt(transfer.amount), decimals })} ${symbol}`.trim()
}

type NativeCoin = { symbol: string; decimals: number }

function TransactionRow({
  transaction,
  native,
}: {
  transaction: HistoryTransaction
  native: NativeCoin
}) {
  const shown = transaction.transfers.filter((transfer) => !transfer.nft_info?.flags.is_spam)
  const first = shown[0] ?? transaction.transfers[0]
  const direction = first?.direction ?? 'out'
  const failed = transaction.metadata.status === 'failed'
  // A transaction that moved nothing of the account's (a contract call, a token the
  // node reports no balances for) is named as such, with no amount.
  const title = failed
    ? t('activity.failed')
    : !first
      ? t('activity.other')
      : direction === 'in'
        ? t('activity.received')
        : direction === 'self'
          ? t('activity.self')
          : t('activity.sent')
  const amounts = shown.map((transfer) => describeTransfer(transfer, native)).join(', ')
  const counterparty = first ? truncate(first.counterparty) : ''
  return (
    <li
      className="flex items-center justify-between gap-3 rounded-2xl bg-surface-2 px-3 py-2 text-sm"
      data-testid="activity-row"
      data-hash={transaction.id}
    >
      <span className="flex min-w-0 flex-col">
        <span className={failed ? 'font-medium text-danger' : 'font-medium'}>{title}</span>
        {first ? (
          <span className="truncate text-xs text-muted">
            {direction === 'in'
              ? t('activity.from', { address: counterparty })
              : t('activity.to', { address: counterparty })}
          </span>
        ) : null}
      </span>
      <span className="flex flex-col items-end">
        <span className="tabular-nums" data-testid="activity-amount">
          {!first ? '' : direction === 'in' ? '+' : direction === 'out' ? '−' : ''}
          {amounts}
        </span>
        <time className="text-xs text-muted" dateTime={transaction.metadata.minedAt}>
          {timeFormat.format(new Date(transaction.metadata.minedAt))}
        </time>
      </span>
    </li>
  )
}

function PendingRow({ entry }: { entry: PendingTransaction }) {
  const amount = `${formatBalance({ value: BigInt(entry.amount), decimals: entry.decimals })} ${entry.symbol}`
  return (
    <li
      className="flex items-center justify-between gap-3 rounded-2xl bg-surface-2 px-3 py-2 text-sm"
      data-testid="activity-pending"
      data-hash={entry.hash}
    >
      <span className="flex min-w-0 flex-col">
        <span className="font-medium">{t('activity.pendingSend')}</span>
        <span className="truncate text-xs text-muted">
          {t('activity.to', { address: truncate(entry.to) })}
        </span>
      </span>
      <span className="tabular-nums">−{amount}</span>
    </li>
  )
}
