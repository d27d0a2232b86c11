import * as Channel from '@porthole/protocol/Channel'
import * as Contract from '@porthole/protocol/Contract'
import { ErrorCode } from '@porthole/protocol/Errors'
import * as Host from '@porthole/protocol/Host'
import { afterEach, describe, expect, test } from 'vitest'
import { createRouter } from '../state/router.js'
import { createStore, initialState, raiseAlert, type WidgetState } from '../state/store.js'
import {
  connectHost,
  type HostRequests,
  onHostWalletEvent,
  requestHostWallet,
  requestStandardWallet,
  toHostState,
} from './channel.js'

const open: Array<{ destroy(): void }> = []
afterEach(() => {
  for (const channel of open.splice(0)) channel.destroy()
})

/** The widget's channel on one port, and a loader stand-in on the other. */
function setup(patch: Partial<WidgetState> = {}, chain?: Pick<HostRequests, 'request'>) {
  const store = createStore<WidgetState>({ ...initialState, ...patch })
  const router = createRouter(store)
  const { port1, port2 } = new MessageChannel()
  const loader: Channel.Channel<Host.HostSpec, Host.WidgetSpec> = Channel.create({
    port: port1,
    origin: 'http://widget.localhost:5171',
    parsers: Contract.parsers(Host.host, Host.widget),
  })
  const states: Host.State[] = []
  const alerts: Host.Alert[] = []
  loader.on('state', (state) => states.push(state))
  loader.on('alert', (alert) => alerts.push(alert))
  const widget = connectHost({
    port: port2,
    origin: 'http://127.0.0.1:5170',
    store,
    router,
    chain: chain ? async () => chain as HostRequests : undefined,
  })
  open.push(loader, widget)
  return { store, loader, states, alerts }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10))

describe('connectHost', () => {
  test('emits the state at once, then on every change the host can see', async () => {
    const { store, loader, states } = setup()
    await settle()
    expect(states).toEqual([Host.initialState])
    await loader.request('open', undefined)
    await loader.request('open', {})
    store.setState({ theme: 'dark' })
    await loader.request('close', undefined)
    await settle()
    expect(states.map(({ open, view }) => ({ open, view }))).toEqual([
      { open: false, view: 'Connect' },
      { open: true, view: 'Connect' },
      { open: false, view: 'Connect' },
    ])
    expect(store.getState().theme).toBe('dark')
  })

  test('open with an implemented view shows it', async () => {
    const { loader, states } = setup()
    await loader.request('open', { view: 'AllWallets' })
    await settle()
    expect(states.at(-1)).toEqual({ ...Host.initialState, open: true, view: 'AllWallets' })
  })

  test('open with a view this build lacks rejects 4200 and stays closed', async () => {
    const { store, loader } = setup()
    await expect(loader.request('open', { view: 'RegisterAccountName' })).rejects.toMatchObject({
      code: ErrorCode.unsupportedMethod,
      message: expect.stringContaining("'RegisterAccountName'"),
    })
    expect(store.getState().open).toBe(false)
  })

  test('setTheme sets the theme', async () => {
    const { store, loader } = setup()
    await loader.request('setTheme', { theme: 'light' })
    expect(store.getState().theme).toBe('light')
    await expect(loader.request('setTheme', { theme: 'blue' as 'light' })).rejects.toMatchObject({
      code: ErrorCode.invalidParams,
    })
  })

  test('disconnect resolves with no connection', async () => {
    const { loader } = setup({ verification: 'verified' })
    await expect(loader.request('disconnect', undefined)).resolves.toBeUndefined()
  })

  test.each([
    ['verified', ErrorCode.disconnected],
    ['unverified', ErrorCode.unauthorized],
    ['rate_limited', ErrorCode.unauthorized],
    ['server_error', ErrorCode.unauthorized],
    ['missing_project', ErrorCode.unauthorized],
  ] as const)('providerRequest on a %s host rejects %i', async (verification, code) => {
    const { loader } = setup({ verification })
    await expect(
      loader.request('providerRequest', { method: 'eth_requestAccounts' }),
    ).rejects.toMatchObject({ code })
  })

  test('a provider request on a pending host waits for the verification', async () => {
    const { loader, store } = setup({ verification: 'pending' })
    let settled = false
    const request = loader.request('providerRequest', { method: 'eth_accounts' }).finally(() => {
      settled = true
    })
    await settle()
    expect(settled).toBe(false)
    store.setState({ verification: 'unverified' })
    await expect(request).rejects.toMatchObject({ code: ErrorCode.unauthorized })
  })

  test('a verified host gets its provider requests answered by the chain adapter', async () => {
    const received: Array<[Host.ProviderRequest, AbortSignal]> = []
    const chain = {
      request: async (request: Host.ProviderRequest, signal: AbortSignal) => {
        received.push([request, signal])
        return ['0xabc']
      },
    }
    const { loader } = setup({ verification: 'verified' }, chain)
    await expect(
      loader.request('providerRequest', { method: 'eth_accounts', params: [] }),
    ).resolves.toEqual(['0xabc'])
    expect(received.map(([request]) => request)).toEqual([{ method: 'eth_accounts', params: [] }])
  })

  test("keeps the loader's host wallets, and relays their events", async () => {
    const { loader, store } = setup()
    const events: Host.HostWalletEvent[] = []
    const stop = onHostWalletEvent((event) => events.push(event))
    const wallet = { uuid: 'u1', name: 'Test Wallet', icon: '', rdns: 'com.example.test' }
    loader.emit('hostWallets', { wallets: [wallet] })
    loader.emit('hostWalletEvent', { uuid: 'u1', event: 'chainChanged', data: '0x1' })
    await settle()
    stop()
    expect(store.getState().hostWallets).toEqual([wallet])
    expect(events).toEqual([{ uuid: 'u1', event: 'chainChanged', data: '0x1' }])
  })

  test('sends host wallet requests to the loader, which alone answers them', async () => {
    const { loader } = setup()
    loader.handle('hostWalletRequest', async ({ uuid, method }) => `${uuid}:${method}`)
    await expect(requestHostWallet({ uuid: 'u1', method: 'eth_chainId' })).resolves.toBe(
      'u1:eth_chainId',
    )
  })

  test("keeps the loader's Standard wallets, and drops a list the contract refuses", async () => {
    const { loader, store } = setup()
    const wallet: Host.StandardWallet = {
      id: 'standard:0',
      name: 'Test Solana',
      icon: '',
      chains: ['solana:localnet'],
      features: ['standard:connect', 'solana:signMessage'],
      accounts: ['9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM'],
    }
    loader.emit('standardWallets', { wallets: [wallet] })
    await settle()
    expect(store.getState().standardWallets).toEqual([wallet])
    loader.emit('standardWallets', {
      wallets: [{ ...wallet, features: ['wallet:steal'] }],
    } as never)
    await settle()
    expect(store.getState().standardWallets).toEqual([wallet])
  })

  test('sends Standard wallet requests to the loader, which alone answers them', async () => {
    const { loader } = setup()
    loader.handle('standardWalletRequest', async ({ id, feature, input }) => ({
      id,
      feature,
      input,
    }))
    const request = {
      id: 'standard:0',
      feature: 'solana:signMessage',
      input: { account: 'x', message: 'aGk=' },
    } as const
    await expect(requestStandardWallet(request)).resolves.toEqual(request)
  })

  test('tells the host about connection changes in its state', async () => {
    const { store, states } = setup()
    store.setState({
      connection: {
        status: 'connected',
        namespace: 'eip155',
        address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
        chainId: 31337,
        connectorId: 'com.example.test',
        connectorName: 'Test Wallet',
      },
    })
    await settle()
    expect(Host.State.parse(states.at(-1))).toMatchObject({
      status: 'connected',
      caipAddress: 'eip155:31337:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      chainId: 'eip155:31337',
      connector: 'Test Wallet',
    })
  })

  test('emits each alert once, including those raised before the channel', async () => {
    const store = createStore<WidgetState>(initialState)
    raiseAlert({ code: 'UNVERIFIED_DOMAIN', message: 'early' }, store)
    const { port1, port2 } = new MessageChannel()
    const loader: Channel.Channel<Host.HostSpec, Host.WidgetSpec> = Channel.create({
      port: port1,
      origin: 'http://widget.localhost:5171',
      parsers: Contract.parsers(Host.host, Host.widget),
    })
    const alerts: Host.Alert[] = []
    loader.on('alert', (alert) => alerts.push(alert))
    const widget = connectHost({
      port: port2,
      origin: 'http://127.0.0.1:5170',
      store,
      router: createRouter(store),
    })
    open.push(loader, widget)
    raiseAlert({ code: 'IFRAME_LOAD_FAILED', message: 'late' }, store)
    store.setState({ theme: 'dark' })
    await settle()
    expect(alerts).toEqual([
      { code: 'UNVERIFIED_DOMAIN', message: 'early' },
      { code: 'IFRAME_LOAD_FAILED', message: 'late' },
    ])
  })
})

describe('toHostState', () => {
  test('is a valid Host.State', () => {
    const state = toHostState({ ...initialState, open: true, history: ['Connect', 'AllWallets'] })
    expect(Host.State.parse(state)).toEqual({
      ...Host.initialState,
      open: true,
      view: 'AllWallets',
    })
  })

  test("the email change's steps show as Account: the host cannot follow them", () => {
    for (const step of [
      'UpdateEmailWallet',
      'UpdateEmailPrimaryOtp',
      'UpdateEmailSecondaryOtp',
    ] as const)
      expect(toHostState({ ...initialState, open: true, history: ['Account', step] }).view).toBe(
        'Account',
      )
  })
})
