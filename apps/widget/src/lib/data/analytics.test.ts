import { UserRejectedError } from '@porthole/protocol/Errors'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { serveApi } from '../../../test/api.js'
import { initialState, store } from '../state/store.js'
import {
  errorReportLimit,
  redact,
  reportError,
  track,
  trackConnectError,
  trackStore,
  walletLabel,
} from './analytics.js'
import { queryClient } from './queryClient.js'

const address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'

function serveAnalytics(enabled: boolean) {
  return serveApi({
    'GET /getAnalyticsConfig': () => ({ isAnalyticsEnabled: enabled }),
    'POST /e': () => ({}),
  })
}

/** The `props` of each `POST /e` so far. */
const sentProps = (api: ReturnType<typeof serveApi>) =>
  api.callsTo('/e').map(({ body }) => (body as { props: Record<string, unknown> }).props)

beforeEach(() => {
  store.setState({ ...initialState, hostOrigin: 'https://shop.example' })
})
afterEach(() => {
  queryClient.clear()
  vi.unstubAllGlobals()
})

describe('track', () => {
  test('sends the event with the host origin and its properties when analytics are on', async () => {
    const api = serveAnalytics(true)
    await track('SWITCH_NETWORK', { network: 'eip155:8453' })
    const [call] = api.callsTo('/e')
    expect(call?.body).toMatchObject({
      url: 'https://shop.example',
      domain: 'shop.example',
      props: { type: 'track', event: 'SWITCH_NETWORK', properties: { network: 'eip155:8453' } },
    })
  })

  test('a failed connection names the wallet chosen and whether the visitor declined', async () => {
    const api = serveAnalytics(true)
    store.setState({
      connecting: {
        connectorId: null,
        name: 'WalletConnect',
        icon: null,
        imageId: null,
        links: { mobile: null, desktop: null, webapp: null },
      },
    })
    await trackConnectError(new UserRejectedError())
    await trackConnectError(new Error('relay down'))
    expect(sentProps(api).map(({ event, properties }) => [event, properties])).toEqual([
      ['CONNECT_ERROR', { wallet: 'pairing', rejected: true }],
      ['CONNECT_ERROR', { wallet: 'pairing', rejected: false }],
    ])
  })

  test('sends nothing when the project turned analytics off', async () => {
    const api = serveAnalytics(false)
    await track('MODAL_OPEN')
    expect(api.callsTo('/e')).toEqual([])
  })
})

describe('what names a wallet in events', () => {
  test('a reverse-DNS id, our registry name, or a kind: never what a host page announced', () => {
    expect(walletLabel({ connectorId: 'io.metamask' })).toBe('io.metamask')
    expect(walletLabel({ connectorId: 'walletConnect' })).toBe('pairing')
    expect(walletLabel({ connectorId: 'victim@example.com 0xf39F…2266 1.5 ETH' })).toBe('injected')
    expect(walletLabel({ connectorId: null, name: 'Rainbow', imageId: 'rainbow-image' })).toBe(
      'Rainbow',
    )
    expect(walletLabel({ connectorId: null, name: 'victim@example.com', imageId: null })).toBe(
      'pairing',
    )
  })

  test('at most 30 events a minute from one widget (a host looping open/close spends its own)', async () => {
    const api = serveAnalytics(true)
    const start = Date.now() + 3_600_000
    await Promise.all(
      Array.from({ length: 40 }, (_, index) => track('MODAL_OPEN', undefined, start + index)),
    )
    expect(api.callsTo('/e')).toHaveLength(30)
    await track('MODAL_OPEN', undefined, start + 60_000)
    expect(api.callsTo('/e')).toHaveLength(31)
  })
})

describe('trackStore', () => {
  test('open, close, a wallet chosen and a new connection: never the address', async () => {
    const api = serveAnalytics(true)
    const stop = trackStore()
    store.setState({ open: true, history: ['Connect'] })
    store.setState({
      connecting: {
        connectorId: 'io.rabby',
        name: 'Rabby',
        icon: null,
        imageId: null,
        links: { mobile: null, desktop: null, webapp: null },
      },
    })
    store.setState({
      connection: {
        status: 'connecting',
        namespace: 'eip155',
        address: null,
        chainId: null,
        connectorId: null,
        connectorName: null,
      },
    })
    store.setState({
      connection: {
        status: 'connected',
        namespace: 'eip155',
        address,
        chainId: 1,
        connectorId: 'io.rabby',
        connectorName: 'Rabby',
      },
    })
    store.setState({ open: false })
    stop()
    await vi.waitFor(() => expect(api.callsTo('/e')).toHaveLength(4))
    expect(sentProps(api).map(({ event, properties }) => [event, properties])).toEqual([
      ['MODAL_OPEN', { view: 'Connect' }],
      ['SELECT_WALLET', { wallet: 'io.rabby' }],
      ['CONNECT_SUCCESS', { wallet: 'io.rabby', namespace: 'eip155' }],
      ['MODAL_CLOSE', { view: 'Connect' }],
    ])
    expect(JSON.stringify(api.calls).toLowerCase()).not.toContain(address.toLowerCase())
  })

  test('a connection restored at load is not a new one', async () => {
    const api = serveAnalytics(true)
    const connection = {
      namespace: 'eip155' as const,
      address,
      chainId: 1,
      connectorId: 'x',
      connectorName: 'Rabby',
    }
    const stop = trackStore()
    store.setState({ connection: { ...connection, status: 'reconnecting' } })
    store.setState({ connection: { ...connection, status: 'connected' } })
    stop()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(api.callsTo('/e')).toEqual([])
  })
})

describe('reportError', () => {
  test(`at most ${errorReportLimit.limit} in any 60 s, then again once the first is a minute old`, async () => {
    const api = serveAnalytics(true)
    const start = 1_000_000
    const outcomes = Array.from({ length: 7 }, (_, index) =>
      reportError('UNCAUGHT_ERROR', new TypeError(`boom ${index}`), start + index),
    )
    expect(outcomes.map((outcome) => outcome !== false)).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
      false,
    ])
    expect(reportError('UNCAUGHT_ERROR', new Error('later'), start + 59_999)).toBe(false)
    const later = reportError('UNCAUGHT_ERROR', new Error('a minute on'), start + 60_000)
    expect(later).not.toBe(false)
    await Promise.all(outcomes.map((outcome) => (outcome ? outcome.sent : undefined)))
    if (later) await later.sent
    expect(sentProps(api)).toHaveLength(6)
    expect(sentProps(api)[0]).toMatchObject({
      type: 'error',
      event: 'UNCAUGHT_ERROR',
      errorType: 'TypeError',
      errorMessage: 'boom 0',
    })
  })
})

describe('redact', () => {
  test("an error report's text keeps no address, hash, Solana key or email", () => {
    const text =
      'Transfer from 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 (tx 0x' +
      'ab'.repeat(32) +
      ') to 7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV failed for alice@example.com: boom'
    expect(redact(text)).toBe('Transfer from 0x… (tx 0x…) to … failed for …@…: boom')
    expect(redact('Cannot read properties of undefined (reading "chainId")')).toBe(
      'Cannot read properties of undefined (reading "chainId")',
    )
  })
})
