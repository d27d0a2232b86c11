import { svgPixels } from '@porthole/dev-stack/qrPixels'
import jsQR from 'jsqr'
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest'
import { page, userEvent } from 'vitest/browser'
import { projectConfig, rpcRoute, serveApi } from '../../test/api.js'
import { account, connectHostWallet } from '../../test/host.js'
import { renderWidget } from '../../test/view.js'
import { queryClient } from '../lib/data/queryClient.js'
import { store } from '../lib/state/store.js'

const serveProject = () =>
  serveApi({
    'GET /appkit/v1/config': () => ({
      ...projectConfig,
      networks: ['eip155:1', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 'eip155:8453'],
    }),
    'POST /v1/': rpcRoute({ eth_chainId: () => '0x1' }),
  })

beforeAll(async () => {
  serveProject()
  await connectHostWallet()
})
afterEach(() => {
  vi.restoreAllMocks()
})

/** What a phone's scanner reads: the SVG drawn on a canvas, decoded by jsQR. */
async function decodeQr(svg: SVGSVGElement): Promise<string | undefined> {
  const size = 400
  return jsQR(Uint8ClampedArray.from(await svgPixels(svg, size)), size, size)?.data
}

describe('Receive', () => {
  test('the QR code decodes to the address; the text is the address; the networks are its namespace’s', async () => {
    queryClient.clear()
    serveProject()
    await renderWidget({ history: ['Account', 'Receive'] })
    await expect.element(page.getByRole('heading', { name: 'Receive' })).toBeVisible()
    const qr = page.getByRole('img', { name: `QR code of your address ${account.address}` })
    await expect.element(qr).toBeVisible()
    expect(await decodeQr(qr.element() as unknown as SVGSVGElement)).toBe(account.address)
    await expect.element(page.getByTestId('receive-address')).toHaveTextContent(account.address)
    const networks = page.getByRole('list', { name: 'Send to this address only on:' })
    await expect.element(networks).toHaveTextContent('EthereumBase')
    await expect.element(networks).not.toHaveTextContent('Solana')
  })

  test('Copy address copies it and says so', async () => {
    serveProject()
    const copied: string[] = []
    vi.spyOn(navigator.clipboard, 'writeText').mockImplementation(async (text) => {
      copied.push(text)
    })
    await renderWidget({ history: ['Account', 'Receive'] })
    await userEvent.click(page.getByRole('button', { name: 'Copy address' }))
    await expect.poll(() => copied).toEqual([account.address])
    await expect.element(page.getByText('Address copied')).toBeVisible()
  })

  test('Account opens it; Back returns', async () => {
    serveProject()
    await renderWidget({ history: ['Account'] })
    await userEvent.click(page.getByRole('button', { name: 'Receive' }))
    expect(store.getState().history.at(-1)).toBe('Receive')
    await userEvent.click(page.getByRole('button', { name: 'Back' }))
    expect(store.getState().history.at(-1)).toBe('Account')
  })
})
