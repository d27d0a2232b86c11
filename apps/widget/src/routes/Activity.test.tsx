import type { HistoryPage, HistoryTransaction } from '@porthole/protocol/History'
import { beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { page } from 'vitest/browser'
import { projectConfig, rpcRoute, serveApi, serverError } from '../../test/api.js'
import { account, connectHostWallet } from '../../test/host.js'
import { renderWidget } from '../../test/view.js'
import { addPending } from '../lib/data/pending.js'
import { queryClient } from '../lib/data/queryClient.js'

const config = () => ({
  ...projectConfig,
  features: { ...projectConfig.features, history: true },
})
const rpc = rpcRoute({ eth_chainId: () => '0x1', eth_getTransactionReceipt: () => null })

const hash = (index: number) => `0x${index.toString(16).padStart(64, '0')}`
const transaction = (
  index: number,
  minedAt: string,
  options: { spam?: boolean; amount?: string; chain?: string } = {},
): HistoryTransaction => ({
  id: hash(index),
  metadata: {
    minedAt,
    chain: options.chain ?? 'eip155:1',
    status: 'confirmed',
    sentFrom: `0x${'c'.repeat(40)}`,
    blockNumber: String(index),
  },
  transfers: [
    options.spam
      ? {
          direction: 'in',
          kind: 'erc721',
          amount: '1',
          token: { address: `0x${'d'.repeat(40)}`, name: 'Claim', symbol: 'CLAIM', decimals: null },
          tokenId: '7',
          counterparty: `0x${'0'.repeat(40)}`,
          nft_info: { flags: { is_spam: true } },
        }
      : {
          direction: 'in',
          kind: 'native',
          amount: options.amount ?? '1000000000000000000',
          token: null,
          tokenId: null,
          counterparty: `0x${'c'.repeat(40)}`,
          nft_info: null,
        },
  ],
})

beforeAll(async () => {
  serveApi({ 'GET /appkit/v1/config': config, 'POST /v1/': rpc })
  await connectHostWallet()
})
beforeEach(() => queryClient.clear())

const historyPath = `/account/${account.address}/history`

describe('Activity', () => {
  test('groups by month, newest first, drops spam and other chains, and loads the next page at the end', async () => {
    const pages: Record<string, HistoryPage> = {
      first: {
        data: [
          transaction(30, '2026-11-20T10:00:00Z', { amount: '1234000000000000000' }),
          transaction(29, '2026-11-02T10:00:00Z', { spam: true }),
          transaction(28, '2026-10-15T10:00:00Z', { chain: 'eip155:8453' }),
          transaction(27, '2026-10-14T10:00:00Z'),
        ],
        next: 'cursor-2',
      },
      second: { data: [transaction(1, '2025-12-31T10:00:00Z')], next: null },
    }
    const { callsTo } = serveApi({
      'GET /appkit/v1/config': config,
      'POST /v1/': rpc,
      [`GET ${historyPath}`]: ({ url }) =>
        url.searchParams.get('cursor') === 'cursor-2' ? pages.second : pages.first,
    })
    await renderWidget({ history: ['Account', 'Activity'] })
    const november = page.getByRole('region', { name: 'November 2026' })
    await expect.element(november.getByTestId('activity-amount')).toHaveTextContent('+1.234 ETH')
    await expect.element(page.getByRole('region', { name: 'October 2026' })).toBeVisible()
    // The spam airdrop and the Base transaction are not shown.
    await expect.element(page.getByText('CLAIM')).not.toBeInTheDocument()
    await expect.poll(() => page.getByTestId('activity-row').all().length).toBe(3)
    // The end of the list is in view: the next page, with its cursor.
    await expect.element(page.getByRole('region', { name: 'December 2025' })).toBeVisible()
    const cursors = callsTo(historyPath).map(({ url }) => url.searchParams.get('cursor'))
    expect(cursors).toEqual([null, 'cursor-2'])
    expect(callsTo(historyPath)[0]?.url.searchParams.get('chainId')).toBe('eip155:1')
  })

  test("an empty history says so; a failure says 'Failed to fetch transactions' and retries", async () => {
    let fail = true
    serveApi({
      'GET /appkit/v1/config': config,
      'POST /v1/': rpc,
      [`GET ${historyPath}`]: () => (fail ? serverError() : { data: [], next: null }),
    })
    await renderWidget({ history: ['Account', 'Activity'] })
    await expect.element(page.getByRole('alert')).toHaveTextContent('Failed to fetch transactions')
    fail = false
    await page.getByRole('button', { name: 'Try again' }).click()
    await expect
      .element(page.getByTestId('activity-empty'))
      .toHaveTextContent('No transactions on this network yet')
  })

  test('a transaction that moved nothing of the account shows as a transaction, with no amount', async () => {
    const bare = { ...transaction(5, '2026-11-03T10:00:00Z'), transfers: [] }
    serveApi({
      'GET /appkit/v1/config': config,
      'POST /v1/': rpc,
      [`GET ${historyPath}`]: () => ({ data: [bare], next: null }),
    })
    await renderWidget({ history: ['Account', 'Activity'] })
    const row = page.getByTestId('activity-row')
    await expect.element(row).toHaveTextContent(/^Transaction/)
    expect(row.getByTestId('activity-amount').element().textContent).toBe('')
  })

  test('a pending send is listed above the mined ones until the history has it', async () => {
    addPending({
      hash: hash(99),
      caipNetworkId: 'eip155:1',
      from: account.address,
      to: `0x${'e'.repeat(40)}`,
      amount: '500000000000000000',
      symbol: 'ETH',
      decimals: 18,
      sentAt: Date.now(),
    })
    serveApi({
      'GET /appkit/v1/config': config,
      'POST /v1/': rpc,
      [`GET ${historyPath}`]: () => ({ data: [], next: null }),
    })
    await renderWidget({ history: ['Account', 'Activity'] })
    const pending = page.getByRole('region', { name: 'Pending' })
    await expect.element(pending.getByTestId('activity-pending')).toHaveTextContent('−0.5 ETH')
  })
})
