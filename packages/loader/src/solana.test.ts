import * as Channel from '@porthole/protocol/Channel'
import * as Contract from '@porthole/protocol/Contract'
import { RpcError } from '@porthole/protocol/Errors'
import * as Host from '@porthole/protocol/Host'
import { getWallets } from '@wallet-standard/app'
import type { Wallet } from '@wallet-standard/base'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { usePage } from '../test/page.js'
import { address, createStandardWallet } from '../test/standardWallet.js'
import { parsers } from './createWallet.js'
import { createSolanaBridge, type SolanaBridge } from './solana.js'

usePage()

const widgetOrigin = 'http://widget.localhost:5171'
const open: Array<{ destroy(): void } | SolanaBridge> = []
afterEach(() => {
  for (const item of open.splice(0)) 'connect' in item ? item.stop() : item.destroy()
})

/** The loader's end of the channel (the first script's parsers) and a stand-in widget on the other. */
function createChannels() {
  const { port1, port2 } = new MessageChannel()
  const loader: Channel.Channel<Host.HostSpec, Host.WidgetSpec> = Channel.create({
    port: port1,
    origin: widgetOrigin,
    parsers,
  })
  // What the stand-in widget dropped, by reason.
  const drops: string[] = []
  const widget: Channel.Channel<Host.WidgetSpec, Host.HostSpec> = Channel.create({
    port: port2,
    origin: 'https://host.example',
    parsers: Contract.parsers(Host.widget, Host.host),
    onDrop: (reason) => drops.push(reason),
  })
  const lists: Host.StandardWallet[][] = []
  widget.on('standardWallets', ({ wallets }) => lists.push(wallets))
  open.push(loader, widget)
  return { loader, widget, lists, drops }
}

/** The `Wallet` API as the bridge uses it; these tests do not connect Porthole. */
const porthole = {
  open: vi.fn(async () => {}),
  disconnect: vi.fn(async () => {}),
  getState: () => Host.initialState,
  subscribe: () => () => {},
  provider: { request: vi.fn(async () => null) },
}

function start(
  channel?: Channel.Channel<Host.HostSpec, Host.WidgetSpec>,
  HostRpcError?: typeof RpcError,
) {
  const bridge = createSolanaBridge(porthole, channel, HostRpcError)
  open.push(bridge)
  return bridge
}

/** A wallet's script, as `@wallet-standard/wallet`'s `registerWallet` does it. */
function registerWallet(wallet: unknown) {
  const callback = ({ register }: { register(wallet: unknown): unknown }) => register(wallet)
  dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: callback }))
  addEventListener('wallet-standard:app-ready', (event) =>
    callback((event as CustomEvent<{ register(wallet: unknown): unknown }>).detail),
  )
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10))

describe('createSolanaBridge: the page as an app sees it', () => {
  test('offers the widget the wallets registered before and after it, on connect and on each change', async () => {
    const { loader, lists } = createChannels()
    const early = createStandardWallet('Early')
    registerWallet(early.wallet)
    start(loader)
    registerWallet(createStandardWallet('Late').wallet)
    await settle()
    early.setAccounts([address])
    await settle()
    expect(
      lists.map((list) => list.map(({ name, accounts }) => `${name}:${accounts.length}`)),
    ).toEqual([['Early'].map((name) => `${name}:0`), ['Early:0', 'Late:0'], ['Early:1', 'Late:0']])
  })

  test('sends the list again on a new channel (the widget reloaded)', async () => {
    registerWallet(createStandardWallet().wallet)
    const bridge = start()
    const { loader, lists } = createChannels()
    bridge.connect(loader)
    await settle()
    expect(lists.map((list) => list.map(({ id }) => id))).toEqual([['standard:0']])
  })

  test("relays the widget's requests to the wallet it names", async () => {
    const { loader, widget } = createChannels()
    const fake = createStandardWallet()
    registerWallet(fake.wallet)
    start(loader)
    await expect(
      widget.request('standardWalletRequest', {
        id: 'standard:0',
        feature: 'standard:connect',
        input: {},
      }),
    ).resolves.toEqual({ accounts: [address] })
    await expect(
      widget.request('standardWalletRequest', {
        id: 'standard:0',
        feature: 'solana:signMessage',
        input: { account: address, message: 'aGk=' },
      }),
    ).resolves.toMatchObject({ signedMessage: 'aGk=' })
  })

  test("a wallet's refusal crosses as the first script's RpcError: 4001, not -32603", async () => {
    // loader-solana.js is a bundle of its own, with its own RpcError class; the
    // first script's channel lets only its own class cross. Here the first
    // script's class is told apart by a subclass that counts what it made.
    const made: number[] = []
    class HostRpcError extends RpcError {
      constructor(code: number, message: string, data?: unknown) {
        super(code, message, data)
        made.push(code)
      }
    }
    const { loader, widget } = createChannels()
    const fake = createStandardWallet()
    fake.features['standard:connect'].connect.mockRejectedValueOnce(
      new Error('User rejected the request'),
    )
    registerWallet(fake.wallet)
    start(loader, HostRpcError)
    await expect(
      widget.request('standardWalletRequest', {
        id: 'standard:0',
        feature: 'standard:connect',
        input: {},
      }),
    ).rejects.toMatchObject({ code: 4001, message: 'User rejected the request.' })
    expect(made).toEqual([4001])
  })

  test('inv-18 a malformed standardWalletRequest is refused with -32602, no wallet asked', async () => {
    const { loader, widget } = createChannels()
    const fake = createStandardWallet()
    registerWallet(fake.wallet)
    start(loader)
    for (const params of [
      { id: 'standard:0', feature: 'solana:signIn', input: {} },
      { id: 'standard:0', feature: 'standard:connect' },
      { id: 'standard:0', feature: 'standard:connect', input: [], extra: 1 },
      null,
    ])
      await expect(widget.request('standardWalletRequest', params as never)).rejects.toMatchObject({
        code: -32602,
      })
    expect(fake.features['standard:connect'].connect).not.toHaveBeenCalled()
  })

  test('inv-01 a hostile wallet reaches the widget only as a list the widget accepts, and answers only what it is asked', async () => {
    const { loader, widget, lists, drops } = createChannels()
    const widgetRequests = vi.fn()
    // Everything the loader may ask of the widget: none of it may be asked for the page.
    for (const method of Object.keys(Host.widget.requests))
      widget.handle(method as keyof Host.WidgetSpec['requests'], widgetRequests)
    const before = new Set(Object.keys(globalThis))
    const fake = createStandardWallet('Hostile')
    registerWallet(fake.wallet)
    start(loader)
    // It changes in a storm, with bogus properties, and calls back what it was given.
    for (let index = 0; index < 1_000; index++)
      for (const listener of fake.listeners)
        listener({ accounts: [{ address: `${index}` }], request: { method: 'open' } })
    dispatchEvent(
      new CustomEvent('wallet-standard:register-wallet', {
        detail: (api: { register(...wallets: unknown[]): unknown }) =>
          api.register(...Array.from({ length: 1_000 }, () => ({ name: 'junk' }))),
      }),
    )
    await settle()
    expect(widgetRequests).not.toHaveBeenCalled()
    expect(lists.length).toBeLessThanOrEqual(2)
    for (const list of lists) Host.widget.events.standardWallets.parse({ wallets: list })
    expect(fake.features['standard:connect'].connect).not.toHaveBeenCalled()
    expect([...Object.keys(globalThis)].filter((key) => !before.has(key))).toEqual([])
    // Its answer to a request the widget gave up on is never posted.
    let answer: (value: { accounts: Array<Record<string, unknown>> }) => void = () => {}
    fake.features['standard:connect'].connect.mockImplementationOnce(
      () => new Promise((resolve) => (answer = resolve)),
    )
    await expect(
      widget.request(
        'standardWalletRequest',
        { id: 'standard:0', feature: 'standard:connect', input: {} },
        { timeout: 20 },
      ),
    ).rejects.toMatchObject({ code: -32603 })
    // Once the widget's cancel has crossed.
    await settle()
    answer({ accounts: [] })
    await settle()
    expect(drops).toEqual([])
  })
})

describe('createSolanaBridge: Porthole as a Standard wallet', () => {
  test('registers with a stock app started before it (@wallet-standard/app), and unregisters on stop', () => {
    const app = getWallets()
    const bridge = start()
    const [wallet] = app.get().filter(({ name }) => name === 'Porthole') as Wallet[]
    expect(wallet?.chains).toContain('solana:localnet')
    // The app's own wallets are not Porthole's: it offers the widget none of them.
    bridge.stop()
    expect(app.get().filter(({ name }) => name === 'Porthole')).toEqual([])
  })

  test('registers with an app that starts later, once, and never with itself', () => {
    const bridge = start()
    const registered: unknown[] = []
    const register = (...wallets: unknown[]) => {
      registered.push(...wallets)
      return () => {}
    }
    dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: { register } }))
    dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: { register } }))
    expect(registered).toHaveLength(1)
    expect((registered[0] as Wallet).name).toBe('Porthole')
    const { loader, lists } = createChannels()
    bridge.connect(loader)
    // Handed back to the bridge's own app, Porthole is not offered to the widget.
    registerWallet(registered[0])
    return settle().then(() => expect(lists.flat()).toEqual([]))
  })
})
