import { beforeAll, describe, expect, test } from 'vitest'
import { page } from 'vitest/browser'
import { projectConfig, rpcRoute, serveApi } from '../../test/api.js'
import { connectHostWallet, moveWallet, wallet } from '../../test/host.js'
import { renderWidget } from '../../test/view.js'
import { store } from '../lib/state/store.js'

/** The project offers Ethereum and Base; Polygon (137) is not one of its networks. */
const serveNetworks = () =>
  serveApi({
    'GET /appkit/v1/config': () => ({ ...projectConfig, networks: ['eip155:1', 'eip155:8453'] }),
    'POST /v1/': rpcRoute({ eth_chainId: () => `0x${wallet.chainId.toString(16)}` }),
  })

beforeAll(async () => {
  serveNetworks()
  await connectHostWallet()
})

const networks = page.getByRole('list', { name: 'Choose Network' })
const view = () => store.getState().history.at(-1)

/** The widget, closed on Account, with the wallet moved by its user from Ethereum to Polygon. */
async function renderOnPolygon() {
  moveWallet(1)
  await expect.poll(() => store.getState().connection.chainId).toBe(1)
  serveNetworks()
  await renderWidget({ open: false, history: ['Account'] })
  moveWallet(137)
  await expect.poll(view).toBe('UnsupportedChain')
}

describe('UnsupportedChain', () => {
  test('opens when the wallet goes to a network the project does not offer, and cannot be closed', async () => {
    await renderOnPolygon()
    expect(store.getState().open).toBe(true)
    await expect.element(page.getByRole('alert')).toHaveTextContent('This network is not supported')
    await expect.element(networks.getByRole('button', { name: 'Ethereum' })).toBeVisible()
    await expect.element(networks.getByRole('button', { name: 'Base' })).toBeVisible()
    await expect.element(page.getByRole('button', { name: 'Close' })).not.toBeInTheDocument()
  })

  test('picking a supported network switches the wallet, and the modal closes by itself', async () => {
    await renderOnPolygon()
    await networks.getByRole('button', { name: 'Base' }).click()
    await expect.poll(() => store.getState().open).toBe(false)
    expect(store.getState().connection.chainId).toBe(8453)
    expect(wallet.chainId).toBe(8453)
  })

  test('Disconnect ends the connection and the lock', async () => {
    await renderOnPolygon()
    await page.getByRole('button', { name: 'Disconnect' }).click()
    await expect.poll(() => store.getState().connection.status).toBe('disconnected')
    await expect.poll(view).not.toBe('UnsupportedChain')
  })
})
