import { beforeAll, describe, expect, test } from 'vitest'
import { page, userEvent } from 'vitest/browser'
import { projectConfig, rpcRoute, serveApi } from '../../test/api.js'
import { connectHostWallet, wallet, walletRequests } from '../../test/host.js'
import { renderWidget } from '../../test/view.js'
import { queryClient } from '../lib/data/queryClient.js'
import { store } from '../lib/state/store.js'

const solanaMainnet = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'

/** The project offers Ethereum, Base and Solana; the node answers for whichever chain is asked. */
const serveNetworks = () =>
  serveApi({
    'GET /appkit/v1/config': () => ({
      ...projectConfig,
      networks: ['eip155:1', 'eip155:8453', solanaMainnet],
    }),
    'POST /v1/': rpcRoute({ eth_chainId: () => `0x${wallet.chainId.toString(16)}` }),
  })

beforeAll(async () => {
  serveNetworks()
  await connectHostWallet()
})

const networks = page.getByRole('list', { name: 'Choose Network' })
const network = (name: string) => networks.getByRole('button', { name })
const renderSwitch = () => {
  serveNetworks()
  return renderWidget({ history: ['Account', 'SwitchNetwork'] })
}

describe('SwitchNetwork', () => {
  test('a network without an RPC upstream says its balances cannot be read; it can still be chosen', async () => {
    // The config the connection in beforeAll read: fetched again with this one's.
    queryClient.clear()
    serveApi({
      'GET /appkit/v1/config': () => ({
        ...projectConfig,
        networks: ['eip155:1', 'eip155:8453'],
        networksWithoutRpc: ['eip155:8453'],
      }),
      'POST /v1/': rpcRoute({ eth_chainId: () => `0x${wallet.chainId.toString(16)}` }),
    })
    await renderWidget({ history: ['Account', 'SwitchNetwork'] })
    await expect
      .element(network('Base'))
      .toHaveTextContent("Balances can't be read on this network")
    await expect.element(network('Base')).toBeEnabled()
    await expect.element(network('Ethereum')).not.toHaveTextContent("can't be read")
  })

  test("lists the project's networks in its order, the current one marked", async () => {
    await renderSwitch()
    await expect.element(network('Ethereum')).toHaveAttribute('aria-current', 'true')
    await expect.element(network('Base')).toHaveAttribute('aria-current', 'false')
    await expect.element(network('Solana')).toBeVisible()
    const names = Array.from(
      networks.element().querySelectorAll('button'),
      (button) => button.textContent,
    )
    expect(names).toEqual([
      expect.stringContaining('Ethereum'),
      expect.stringContaining('Base'),
      expect.stringContaining('Solana'),
    ])
  })

  test('picking the current network goes back without asking the wallet', async () => {
    walletRequests.length = 0
    await renderSwitch()
    await network('Ethereum').click()
    await expect.poll(() => store.getState().history.at(-1)).toBe('Account')
    expect(walletRequests.map(({ method }) => method)).not.toContain('wallet_switchEthereumChain')
  })

  test('a network of another namespace goes to SwitchActiveChain', async () => {
    await renderSwitch()
    await network('Solana').click()
    await expect.poll(() => store.getState().history.at(-1)).toBe('SwitchActiveChain')
    expect(store.getState().switchTarget).toBe(solanaMainnet)
  })

  test('a switch the wallet declines says so and stays, on the same network', async () => {
    wallet.declines = true
    try {
      await renderSwitch()
      await network('Base').click()
      await expect.element(page.getByRole('alert')).toHaveTextContent('Network switch declined')
      expect(store.getState().history.at(-1)).toBe('SwitchNetwork')
      expect(store.getState().connection.chainId).toBe(1)
      await expect.element(network('Base')).toBeEnabled()
    } finally {
      wallet.declines = false
    }
  })

  test('the keyboard picks a network: the wallet switches, then Account shows', async () => {
    walletRequests.length = 0
    await renderSwitch()
    await expect.element(network('Base')).toBeVisible()
    ;(network('Base').element() as HTMLElement).focus()
    await userEvent.keyboard('{Enter}')
    await expect.poll(() => store.getState().connection.chainId).toBe(8453)
    await expect.poll(() => store.getState().history.at(-1)).toBe('Account')
    expect(walletRequests).toContainEqual({
      method: 'wallet_switchEthereumChain',
      params: [{ chainId: '0x2105' }],
    })
  })
})
