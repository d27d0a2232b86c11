import type { WalletEntry } from '@porthole/protocol/Api'
import { walletsSearchEntries } from '@porthole/protocol/Constants'
import { useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { useEffect, useId, useRef, useState } from 'react'
import { HostGate } from '../components/HostGate.js'
import { SearchIcon } from '../components/Icons.js'
import { secondaryButton } from '../components/Notice.js'
import { WalletGridSkeleton } from '../components/Skeleton.js'
import { WalletError } from '../components/WalletError.js'
import { WalletLogo } from '../components/WalletLogo.js'
import { useInView } from '../hooks/useInView.js'
import { useSearchTerm } from '../hooks/useSearchTerm.js'
import { allWalletsQuery, walletSearchQuery } from '../lib/data/explorer.js'
import { t } from '../lib/i18n.js'

/** Every wallet, 40 per page with infinite scroll, and a search. */
export function AllWallets() {
  return (
    <section className="flex min-h-0 flex-col px-4 pb-4">
      <HostGate loading={<WalletGridSkeleton tiles={16} />}>
        <WalletBrowser />
      </HostGate>
    </section>
  )
}

function WalletBrowser() {
  const [input, setInput] = useState('')
  const search = useSearchTerm(input)
  const inputId = useId()
  return (
    <>
      <div className="relative mb-3">
        <label htmlFor={inputId} className="sr-only">
          {t('allWallets.search')}
        </label>
        <span className="pointer-events-none absolute inset-y-0 left-3 flex items-center text-muted">
          <SearchIcon />
        </span>
        <input
          id={inputId}
          type="search"
          value={input}
          onChange={(event) => setInput(event.target.value)}
          placeholder={t('allWallets.search')}
          autoComplete="off"
          spellCheck={false}
          maxLength={100}
          className="h-10 w-full rounded-xl border border-line bg-surface-2 pr-3 pl-9 text-sm text-fg placeholder:text-muted focus:border-accent focus:outline-none focus-visible:ring-2 focus-visible:ring-accent-soft"
        />
      </div>
      <div className="-mx-4 h-[420px] max-h-[calc(100vh-10rem)] overflow-y-auto overscroll-contain px-4">
        {search === undefined ? (
          <WalletGridSkeleton tiles={8} />
        ) : search === '' ? (
          <AllWalletsList />
        ) : (
          <SearchResults search={search} />
        )}
      </div>
    </>
  )
}

function WalletGrid({ wallets, label }: { wallets: readonly WalletEntry[]; label: string }) {
  return (
    <ul aria-label={label} className="grid grid-cols-4 gap-x-2 gap-y-3">
      {wallets.map((wallet) => (
        <li
          key={wallet.id}
          className="flex min-w-0 flex-col items-center gap-1.5 rounded-2xl p-1.5"
        >
          <WalletLogo wallet={wallet} className="size-14 rounded-2xl" />
          <span className="w-full truncate text-center text-xs text-fg">{wallet.name}</span>
        </li>
      ))}
    </ul>
  )
}

function AllWalletsList() {
  const query = useInfiniteQuery(allWalletsQuery)
  const { data, isPending, isError, hasNextPage, isFetchingNextPage, isFetchNextPageError } = query
  const { fetchNextPage, refetch } = query
  const sentinel = useRef<HTMLDivElement>(null)
  const nearEnd = useInView(sentinel, { rootMargin: '240px', enabled: hasNextPage })

  useEffect(() => {
    if (nearEnd && hasNextPage && !isFetchingNextPage && !isFetchNextPageError) void fetchNextPage()
  }, [nearEnd, hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage])

  if (isPending) return <WalletGridSkeleton tiles={16} />
  if (isError && !data) return <WalletError onRetry={() => void refetch()} />
  const wallets = data.pages.flatMap((page) => page.data)
  const count = data.pages.at(-1)?.count ?? wallets.length
  return (
    <div className="flex flex-col gap-3 pb-2">
      <WalletGrid wallets={wallets} label={t('allWallets.list')} />
      {isFetchingNextPage ? <WalletGridSkeleton tiles={8} /> : null}
      {isFetchNextPageError ? <WalletError onRetry={() => void fetchNextPage()} /> : null}
      <div ref={sentinel} className="flex justify-center">
        {hasNextPage && !isFetchNextPageError ? (
          // Infinite scroll loads on its own; the button is for keyboards and when observers do not fire.
          <button
            type="button"
            className={secondaryButton}
            disabled={isFetchingNextPage}
            onClick={() => void fetchNextPage()}
          >
            {isFetchingNextPage ? t('allWallets.loadingMore') : t('allWallets.loadMore')}
          </button>
        ) : !hasNextPage ? (
          <p className="text-xs text-muted">{t('allWallets.allLoaded', { count })}</p>
        ) : null}
      </div>
    </div>
  )
}

function SearchResults({ search }: { search: string }) {
  const { data, isPending, isError, refetch } = useQuery(walletSearchQuery(search))
  if (isPending) return <WalletGridSkeleton tiles={8} />
  if (isError) return <WalletError onRetry={() => void refetch()} />
  if (data.data.length === 0)
    return (
      <div role="status" className="flex flex-col items-center gap-1 py-10 text-center">
        <p className="text-sm font-medium text-fg">
          {t('allWallets.emptyQuery', { query: search })}
        </p>
        <p className="text-xs text-muted">{t('allWallets.emptyHint')}</p>
      </div>
    )
  return (
    <WalletGrid
      wallets={data.data.slice(0, walletsSearchEntries)}
      label={t('allWallets.results', { query: search })}
    />
  )
}
