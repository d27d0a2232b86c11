import { UserRejectedError } from '@porthole/protocol/Errors'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { serveApi } from '../../../test/api.js'
import { initialState, store } from '../state/store.js'
import { errorReportLimit, reportError, track, trackConnectError, trackStore } from './analytics.js'
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
      ['CONNECT_ERROR', { wallet: 'WalletConnect', rejected: true }],
      ['CONNECT_ERROR', { wallet: 'WalletConnect', rejected: false }],
    ])
  })

  test('sends nothing when the project turned analytics off', async () => {
    const api = serveAnalytics(false)
    await track('MODAL_OPEN')
    expect(api.callsTo('/e')).toEqual([])
  })
})

describe('trackStore', () => {
  test('open, close, a wallet chosen and a new connection: never the address', async () => {
    const api = serveAnalytics(true)
    const stop = trackStore()
    store.setState({ open: true, history: ['Connect'] })
    store.setState({
      connecting: {
        connectorId: 'x',
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
        connectorId: 'x',
        connectorName: 'Rabby',
      },
    })
    store.setState({ open: false })
    stop()
    await vi.waitFor(() => expect(api.callsTo('/e')).toHaveLength(4))
    expect(sentProps(api).map(({ event, properties }) => [event, properties])).toEqual([
      ['MODAL_OPEN', { view: 'Connect' }],
      ['SELECT_WALLET', { wallet: 'Rabby' }],
      ['CONNECT_SUCCESS', { wallet: 'Rabby', namespace: 'eip155' }],
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
