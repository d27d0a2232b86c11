/**
 * Prices (issue 16): the e2e stack's API prices anvil's ETH and the dev token
 * from a stand-in of CoinGecko's price API (@porthole/dev-stack/priceApi,
 * `PRICE_API_URL`, no static table), over real HTTP. Account shows the
 * token's value and the account's total in dollars, the send preview the
 * amount's.
 */
import { expect, test } from '@playwright/test'
import { formatFiat, formatUnits } from '@porthole/chains/Format'
import { anvil, workerKey } from '@porthole/dev-stack/anvil'
import { devPrices, devToken } from '@porthole/dev-stack/stack'
import { installTestWallet } from '@porthole/dev-stack/testWallet'
import { type Address, erc20Abi } from 'viem'
import { fillSend, hostState, openHost, openModal, testWalletRow, widget } from './fixtures.ts'

const usd = (value: number) => `$${formatFiat(value)}`

test('a price from the stand-in shows as fiat: per token, in total, and in the send preview', async ({
  page,
}) => {
  const wallet = await installTestWallet(page, { privateKey: workerKey(test.info().parallelIndex) })
  await openHost(page)
  await openModal(page)
  await testWalletRow(page).click()
  await expect.poll(async () => (await hostState(page)).status).toBe('connected')
  await expect.poll(async () => (await hostState(page)).open).toBe(false)

  const address = wallet.address as Address
  const [eth, ptt] = await Promise.all([
    anvil.getBalance({ address }),
    anvil.readContract({
      address: devToken.address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [address],
    }),
  ])
  const tokenValue = Number(formatUnits(ptt, devToken.decimals)) * devPrices.token
  const total = Number(formatUnits(eth, 18)) * devPrices.native + tokenValue

  await openModal(page)
  const frame = widget(page)
  await expect(frame.getByRole('dialog', { name: 'Account' })).toBeVisible()
  const row = frame.getByRole('list', { name: 'Tokens' }).getByRole('listitem')
  await expect(row.filter({ hasText: devToken.symbol }).getByTestId('token-fiat')).toHaveText(
    usd(tokenValue),
  )
  await expect(frame.getByTestId('account-total')).toHaveText(`Total ${usd(total)}`)

  await fillSend(page, {
    token: new RegExp(`^${devToken.symbol}`),
    amount: '4',
    receiver: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  })
  await expect(frame.getByRole('heading', { name: 'Review Send' })).toBeVisible()
  await expect(frame.getByTestId('send-amount-fiat')).toHaveText(` (${usd(4 * devPrices.token)})`)
})
