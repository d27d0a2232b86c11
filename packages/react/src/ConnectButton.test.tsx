import { initialState, type OpenOptions, type State, type Wallet } from '@porthole/loader'
import { afterEach, describe, expect, test } from 'vitest'
import { page } from 'vitest/browser'
import { cleanup, render } from 'vitest-browser-react'
import { ConnectButton } from './ConnectButton.js'
import { useWallet } from './useWallet.js'

/**
 * A wallet with the `Wallet` API's state half (getState, subscribe) and a
 * recorded `open`: what the components read and call. The loader's own
 * tests and e2e/outside-app.spec.ts cover the real one.
 */
function walletWith(state: State = initialState) {
  let current = state
  const listeners = new Set<(state: State) => void>()
  const opened: (OpenOptions | undefined)[] = []
  const wallet = {
    getState: () => current,
    subscribe(listener: (state: State) => void) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    open: async (options?: OpenOptions) => {
      opened.push(options)
    },
  } as Partial<Wallet> as Wallet
  const emit = (patch: Partial<State>) => {
    current = Object.freeze({ ...current, ...patch })
    for (const listener of listeners) listener(current)
  }
  return { wallet, emit, opened, listeners }
}

const address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const connected = {
  status: 'connected',
  address,
  caipAddress: `eip155:8453:${address}`,
  chainId: 'eip155:8453',
} as const

afterEach(async () => {
  await cleanup()
  delete window.Wallet
})

function Status({ wallet }: { wallet?: Wallet | null }) {
  const { wallet: found, state } = useWallet(wallet)
  return <p>{`${found ? 'wallet' : 'none'} ${state.status}`}</p>
}

describe('ConnectButton', () => {
  test('shows Connect and opens the Connect view', async () => {
    const { wallet, opened } = walletWith()
    await render(<ConnectButton wallet={wallet} />)
    await page.getByRole('button', { name: 'Connect' }).click()
    expect(opened).toEqual([{ view: 'Connect' }])
  })

  test('once connected: the network and the account, each opening its view', async () => {
    const { wallet, emit, opened } = walletWith()
    await render(<ConnectButton wallet={wallet} label="Connect a wallet" />)
    emit(connected)
    const network = page.getByRole('button', { name: 'Network: Base. Switch network' })
    await expect.element(network).toHaveTextContent('Base')
    const account = page.getByRole('button', { name: `Account ${address}` })
    await expect.element(account).toHaveTextContent('0xf3…b92266')
    await expect
      .element(page.getByRole('button', { name: 'Connect a wallet' }))
      .not.toBeInTheDocument()
    await network.click()
    await account.click()
    expect(opened).toEqual([{ view: 'SwitchNetwork' }, { view: 'Account' }])
    emit({ status: 'disconnected', address: null, caipAddress: null, chainId: null })
    await expect.element(page.getByRole('button', { name: 'Connect a wallet' })).toBeVisible()
  })

  test('names a network it does not know by its id, or as networkName says', async () => {
    const { wallet } = walletWith({ ...initialState, ...connected, chainId: 'eip155:424242' })
    const { rerender } = await render(<ConnectButton wallet={wallet} />)
    await expect
      .element(page.getByRole('button', { name: /^Network:/ }))
      .toHaveTextContent('eip155:424242')
    await rerender(
      <ConnectButton wallet={wallet} networkName={(id) => `Chain ${id.split(':')[1]}`} />,
    )
    await expect
      .element(page.getByRole('button', { name: /^Network:/ }))
      .toHaveTextContent('Chain 424242')
  })

  test('is busy while connecting', async () => {
    const { wallet } = walletWith({ ...initialState, status: 'connecting' })
    await render(<ConnectButton wallet={wallet} />)
    await expect
      .element(page.getByRole('button', { name: 'Connect' }))
      .toHaveAttribute('aria-busy', 'true')
  })
})

describe('useWallet', () => {
  test("waits for the script tag's wallet: disabled Connect until porthole:ready", async () => {
    const { wallet, opened } = walletWith()
    await render(<ConnectButton />)
    const connect = page.getByRole('button', { name: 'Connect' })
    await expect.element(connect).toBeDisabled()
    window.Wallet = wallet
    dispatchEvent(new CustomEvent('porthole:ready', { detail: wallet }))
    await expect.element(connect).toBeEnabled()
    await connect.click()
    expect(opened).toEqual([{ view: 'Connect' }])
  })

  test("takes the script tag's wallet at once when it is there, and never the queue stub", async () => {
    window.Wallet = { q: [], open() {} } as unknown as Wallet
    await render(<Status />)
    await expect.element(page.getByText('none disconnected')).toBeVisible()
    const { wallet, emit } = walletWith()
    window.Wallet = wallet
    dispatchEvent(new CustomEvent('porthole:ready', { detail: wallet }))
    await expect.element(page.getByText('wallet disconnected')).toBeVisible()
    emit({ status: 'connecting' })
    await expect.element(page.getByText('wallet connecting')).toBeVisible()
  })

  test('follows every state and stops listening on unmount', async () => {
    const { wallet, emit, listeners } = walletWith()
    const screen = await render(<Status wallet={wallet} />)
    for (const status of ['connecting', 'connected', 'reconnecting'] as const) {
      emit({ status })
      await expect.element(page.getByText(`wallet ${status}`)).toBeVisible()
    }
    expect(listeners.size).toBe(1)
    await screen.unmount()
    expect(listeners.size).toBe(0)
  })

  test('null means no wallet: the initial state, whatever the tag has', async () => {
    window.Wallet = walletWith({ ...initialState, status: 'connected' }).wallet
    await render(<Status wallet={null} />)
    await expect.element(page.getByText('none disconnected')).toBeVisible()
  })
})
