/**
 * EVM wallets injected into the host page (issue 3): the loader bridges the
 * test wallet (EIP-6963, a viem account on anvil) to the widget, which
 * connects it through wagmi. Connect, Account, reload, disconnect, rejection,
 * network switching, UnsupportedChain, sends and signatures, all against the
 * dev stack's anvil.
 */
import { expect, type FrameLocator, type Page, test } from '@playwright/test'
import { formatBalance } from '@porthole/chains/Format'
import { anvil, workerKey } from '@porthole/dev-stack/anvil'
import { devEns, devToken } from '@porthole/dev-stack/stack'
import { installTestWallet, type TestWallet } from '@porthole/dev-stack/testWallet'
import { type Address, erc20Abi, type Hex, parseEther, verifyMessage } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { expectWidgetAccessible } from './axe.ts'
import { fillSend, hostState, openHost, openModal, widget } from './fixtures.ts'

type ProviderWindow = Window & {
  Wallet: {
    provider: { request(args: { method: string; params?: unknown }): Promise<unknown> }
    disconnect(): Promise<void>
  }
}

const walletName = 'Porthole Test Wallet'

const connectList = (frame: FrameLocator) => frame.getByRole('list', { name: 'Connect a wallet' })

/** A page with the test wallet on the demo host, whose wallet is this worker's dev account. */
async function setup(page: Page): Promise<TestWallet> {
  const wallet = await installTestWallet(page, { privateKey: workerKey(test.info().parallelIndex) })
  await openHost(page)
  return wallet
}

/** Connect → the test wallet → connected; the modal closes. */
async function connect(page: Page, wallet: TestWallet) {
  await openModal(page)
  await connectList(widget(page))
    .getByRole('button', { name: new RegExp(walletName) })
    .click()
  await expect.poll(async () => (await hostState(page)).status).toBe('connected')
  await expect.poll(async () => (await hostState(page)).open).toBe(false)
  expect((await hostState(page)).address?.toLowerCase()).toBe(wallet.address.toLowerCase())
}

const truncated = (address: string) => `${address.slice(0, 4)}…${address.slice(-6)}`

test.describe('the injected test wallet', () => {
  test('is listed first after WalletConnect, tagged Installed, and listed once', async ({
    page,
  }) => {
    await setup(page)
    await openModal(page)
    const entries = connectList(widget(page)).getByRole('button')
    await expect(entries.nth(1)).toHaveText(new RegExp(`${walletName}\\s*Installed`))
    await expect(
      connectList(widget(page)).getByRole('button', { name: new RegExp(walletName) }),
    ).toHaveCount(1)
  })

  test('a registry wallet installed in the browser is listed once, as installed, before the registry', async ({
    page,
  }) => {
    // The registry lists MetaMask among the recommended wallets, with rdns io.metamask.
    await installTestWallet(page, {
      privateKey: workerKey(test.info().parallelIndex),
      info: { name: 'MetaMask', rdns: 'io.metamask' },
    })
    await openHost(page)
    await openModal(page)
    const list = connectList(widget(page))
    await expect(list.getByRole('button', { name: /Rainbow/ })).toBeVisible()
    const metamask = list.getByRole('button', { name: /MetaMask/ })
    await expect(metamask).toHaveCount(1)
    await expect(metamask).toHaveText(/MetaMask\s*Installed/)
    const names = await list.getByRole('button').allInnerTexts()
    expect(names.findIndex((name) => name.includes('MetaMask'))).toBe(1)
  })

  test('connects; Account shows the address (4 + 6) and the balance; a reload reconnects; disconnect clears', async ({
    page,
  }) => {
    const wallet = await setup(page)
    await connect(page, wallet)
    const state = await hostState(page)
    expect(state.caipAddress).toBe(`eip155:31337:${state.address}`)
    expect(state.chainId).toBe('eip155:31337')
    expect(state.connector).toBe(walletName)

    await openModal(page)
    const frame = widget(page)
    await expect(frame.getByRole('dialog', { name: 'Account' })).toBeVisible()
    await expect(frame.getByTestId('account-address')).toHaveText(truncated(wallet.address))
    // The node's balance, to 3 decimals (SPEC 9), e.g. '9,999.998 ETH'.
    const balance = await anvil.getBalance({ address: wallet.address })
    await expect(frame.getByTestId('account-balance')).toHaveText(
      `${formatBalance({ value: balance, decimals: 18 })} ETH`,
    )
    await expectWidgetAccessible(page, 'Account')

    // A reload reconnects with no click (wagmi's reconnect through the bridge).
    await page.reload()
    await page.waitForFunction(
      () => typeof (window as unknown as ProviderWindow).Wallet === 'object',
    )
    await expect.poll(async () => (await hostState(page)).status).toBe('connected')
    expect((await hostState(page)).address?.toLowerCase()).toBe(wallet.address.toLowerCase())

    await openModal(page)
    await widget(page).getByRole('button', { name: 'Disconnect' }).click()
    await expect.poll(async () => (await hostState(page)).status).toBe('disconnected')
    const cleared = await hostState(page)
    expect([cleared.address, cleared.caipAddress, cleared.chainId]).toEqual([null, null, null])
    // And it stays disconnected across a reload.
    await page.reload()
    await page.waitForFunction(
      () => typeof (window as unknown as ProviderWindow).Wallet === 'object',
    )
    await openModal(page)
    await expect(widget(page).getByRole('dialog', { name: 'Connect Wallet' })).toBeVisible()
    expect((await hostState(page)).status).toBe('disconnected')
  })

  test('a rejection offers retry, which connects', async ({ page }) => {
    const wallet = await setup(page)
    wallet.setBehaviour('reject')
    await openModal(page)
    const frame = widget(page)
    await connectList(frame)
      .getByRole('button', { name: new RegExp(walletName) })
      .click()
    await expect(frame.getByRole('alert')).toContainText('Connection declined')
    await expectWidgetAccessible(page, 'ConnectingExternal')
    expect((await hostState(page)).status).toBe('disconnected')
    wallet.setBehaviour('approve')
    await frame.getByRole('button', { name: 'Try again' }).click()
    await expect.poll(async () => (await hostState(page)).status).toBe('connected')
  })

  test('eth_requestAccounts from the host opens the modal and answers once connected', async ({
    page,
  }) => {
    const wallet = await setup(page)
    const accounts = page.evaluate(() =>
      (window as unknown as ProviderWindow).Wallet.provider.request({
        method: 'eth_requestAccounts',
      }),
    )
    await expect.poll(async () => (await hostState(page)).open).toBe(true)
    await connectList(widget(page))
      .getByRole('button', { name: new RegExp(walletName) })
      .click()
    const [address] = (await accounts) as string[]
    expect(address?.toLowerCase()).toBe(wallet.address.toLowerCase())
    const chainId = await page.evaluate(() =>
      (window as unknown as ProviderWindow).Wallet.provider.request({ method: 'eth_chainId' }),
    )
    expect(chainId).toBe('0x7a69')
  })

  test('eth_requestAccounts rejects 4001 when the modal closes without a connection', async ({
    page,
  }) => {
    await setup(page)
    const outcome = page.evaluate(() =>
      (window as unknown as ProviderWindow).Wallet.provider
        .request({ method: 'eth_requestAccounts' })
        .catch((error: { code: number }) => error.code),
    )
    await expect.poll(async () => (await hostState(page)).open).toBe(true)
    // The widget opened itself: Escape reaches it once the frame has focus.
    await expect(widget(page).getByRole('dialog')).toBeVisible()
    await expect(page.locator('iframe[title="Porthole wallet"]')).toBeFocused()
    await expect(widget(page).getByRole('textbox', { name: 'Email' })).toBeFocused()
    await page.keyboard.press('Escape')
    expect(await outcome).toBe(4001)
  })

  test('a message signed through the host provider verifies with viem', async ({ page }) => {
    const wallet = await setup(page)
    await connect(page, wallet)
    const message = `Porthole e2e ${Date.now()}`
    const signature = (await page.evaluate(
      ([message, address]) =>
        (window as unknown as ProviderWindow).Wallet.provider.request({
          method: 'personal_sign',
          params: [
            `0x${[...new TextEncoder().encode(message)].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`,
            address,
          ],
        }),
      [message, wallet.address] as const,
    )) as Hex
    expect(await verifyMessage({ address: wallet.address, message, signature })).toBe(true)
    expect(
      await verifyMessage({ address: wallet.address, message: `${message}!`, signature }),
    ).toBe(false)
  })

  test('signs a message from Account', async ({ page }) => {
    const wallet = await setup(page)
    await connect(page, wallet)
    await openModal(page)
    const frame = widget(page)
    await frame.getByRole('button', { name: 'Sign message' }).click()
    await frame.getByRole('textbox', { name: 'Message' }).fill('hello from Account')
    await frame.getByRole('button', { name: 'Sign', exact: true }).click()
    const signature = (await frame.getByRole('textbox', { name: 'Signature' }).inputValue()) as Hex
    await expectWidgetAccessible(page, 'SignMessage')
    expect(
      await verifyMessage({ address: wallet.address, message: 'hello from Account', signature }),
    ).toBe(true)
  })

  test('switching to a chain the wallet lacks adds it, then switches', async ({ page }) => {
    const wallet = await setup(page)
    await connect(page, wallet)
    await openModal(page)
    const frame = widget(page)
    await frame.getByRole('button', { name: /Network/ }).click()
    await expect(frame.getByRole('button', { name: /Sepolia/ })).toBeVisible()
    await expectWidgetAccessible(page, 'SwitchNetwork')
    await frame.getByRole('button', { name: /Sepolia/ }).click()
    await expect.poll(async () => (await hostState(page)).chainId).toBe('eip155:11155111')
    const methods = wallet.requests.map(({ method }) => method)
    const add = methods.indexOf('wallet_addEthereumChain')
    expect(add).toBeGreaterThan(-1)
    expect(methods.slice(0, add)).toContain('wallet_switchEthereumChain')
    expect(methods.slice(add + 1)).toContain('wallet_switchEthereumChain')
    expect(wallet.chainId).toBe(11155111)
    // The host's provider reports the new chain.
    await expect
      .poll(() =>
        page.evaluate(() =>
          (window as unknown as ProviderWindow).Wallet.provider.request({ method: 'eth_chainId' }),
        ),
      )
      .toBe('0xaa36a7')
  })

  test('a wallet on a network the project lacks gets UnsupportedChain, which cannot be closed', async ({
    page,
  }) => {
    const wallet = await setup(page)
    await connect(page, wallet)
    await wallet.emit('chainChanged', '0x5')
    await expect.poll(async () => (await hostState(page)).view).toBe('UnsupportedChain')
    expect((await hostState(page)).open).toBe(true)
    const frame = widget(page)
    await expect(frame.getByRole('alert')).toContainText('This network is not supported')
    await expect(frame.getByRole('button', { name: 'Close' })).toHaveCount(0)
    await expectWidgetAccessible(page, 'UnsupportedChain')
    await expect(page.locator('iframe[title="Porthole wallet"]')).toBeFocused()
    await page.keyboard.press('Escape')
    await page.mouse.click(5, 5)
    await page.evaluate(() =>
      (window as unknown as { Wallet: { close(): Promise<void> } }).Wallet.close(),
    )
    expect((await hostState(page)).open).toBe(true)
    // Switching to a network the project offers closes it.
    await frame.getByRole('button', { name: /Porthole Local/ }).click()
    await expect.poll(async () => (await hostState(page)).open).toBe(false)
    expect((await hostState(page)).chainId).toBe('eip155:31337')
  })

  test('sends native currency and the dev ERC-20; balances change on anvil', async ({ page }) => {
    const wallet = await setup(page)
    await connect(page, wallet)
    const receiver = privateKeyToAccount(generatePrivateKey()).address
    const frame = widget(page)

    let reviewChecked = false
    const send = async (token: RegExp, amount: string) => {
      await fillSend(page, { token, amount, receiver })
      await expect(frame.getByRole('dialog', { name: 'Review Send' })).toBeVisible()
      if (!reviewChecked) await expectWidgetAccessible(page, 'WalletSendPreview')
      reviewChecked = true
      await frame.getByRole('button', { name: 'Send', exact: true }).click()
      await expect(
        frame.getByRole('status').filter({ hasText: 'Transaction confirmed' }),
      ).toBeVisible({
        timeout: 30_000,
      })
      await expect(frame.getByRole('dialog', { name: 'Account' })).toBeVisible()
    }

    await send(/^ETH/, '0.25')
    expect(await anvil.getBalance({ address: receiver })).toBe(parseEther('0.25'))

    await send(new RegExp(`^${devToken.symbol}`), '12.5')
    const tokenBalance = await anvil.readContract({
      address: devToken.address as Address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [receiver],
    })
    expect(tokenBalance).toBe(12_500_000n)
  })

  test('the send preview names a receiver by its ENS name, with its avatar (the dev name)', async ({
    page,
  }) => {
    const blocked: string[] = []
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) blocked.push(message.text())
    })
    const wallet = await setup(page)
    await connect(page, wallet)
    await fillSend(page, { token: /^ETH/, amount: '0.01', receiver: devEns.owner })
    const review = widget(page).getByRole('dialog', { name: 'Review Send' })
    await expect(review.getByText(devEns.name, { exact: true })).toBeVisible()
    await expect(review).toContainText(truncated(devEns.owner))
    const avatar = review.getByRole('img', { name: `Avatar of ${devEns.name}` })
    await expect(avatar).toHaveAttribute('src', devEns.avatar)
    // Shown, not blocked by the widget's CSP.
    await expect
      .poll(() =>
        avatar.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth),
      )
      .toBeGreaterThan(0)
    expect(blocked).toEqual([])
    await expectWidgetAccessible(page, 'WalletSendPreview')
  })

  test('the send form says what is missing, word for word', async ({ page }) => {
    const wallet = await setup(page)
    await connect(page, wallet)
    await openModal(page)
    const frame = widget(page)
    await frame.getByRole('button', { name: 'Send', exact: true }).click()
    await frame.getByRole('button', { name: 'Preview send' }).click()
    await expect(frame.getByRole('alert')).toHaveText('An amount and receiver address are required')
    await frame.getByRole('textbox', { name: 'Amount' }).fill('1')
    await frame.getByRole('textbox', { name: 'Receiver address' }).fill(wallet.address)
    await frame.getByRole('button', { name: 'Preview send' }).click()
    await expect(frame.getByRole('alert')).toHaveText('A token is required')
    await expectWidgetAccessible(page, 'WalletSend')
  })
})
