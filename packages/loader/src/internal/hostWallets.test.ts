import type { RpcError } from '@porthole/protocol/Errors'
import { HostWallet } from '@porthole/protocol/Host'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { discoverHostWallets, legacyUuid } from './hostWallets.js'

// The loader runs on a page: give Node a window-like global event target.
const scope = globalThis as unknown as Record<string, unknown>
let target: EventTarget

beforeEach(() => {
  target = new EventTarget()
  scope.addEventListener = target.addEventListener.bind(target)
  scope.removeEventListener = target.removeEventListener.bind(target)
  scope.dispatchEvent = target.dispatchEvent.bind(target)
  scope.window = globalThis
})

afterEach(() => {
  for (const key of [
    'addEventListener',
    'removeEventListener',
    'dispatchEvent',
    'window',
    'ethereum',
  ])
    delete scope[key]
})

type Listener = (data: unknown) => void

function createWalletProvider(answer: (method: string, params: unknown) => unknown) {
  const listeners = new Map<string, Listener>()
  return {
    listeners,
    request: vi.fn(async ({ method, params }: { method: string; params?: unknown }) =>
      answer(method, params),
    ),
    on: (event: string, listener: Listener) => listeners.set(event, listener),
  }
}

const info = (uuid: string, extra: Partial<Record<string, unknown>> = {}) => ({
  uuid,
  name: `Wallet ${uuid}`,
  icon: 'data:image/svg+xml,<svg/>',
  rdns: `com.example.${uuid}`,
  ...extra,
})

const announce = (detail: unknown) =>
  dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }))

describe('discoverHostWallets', () => {
  test('asks for providers and lists each announced wallet once, in a shape the widget accepts', () => {
    const asked = vi.fn()
    addEventListener('eip6963:requestProvider', asked)
    const onChange = vi.fn()
    const wallets = discoverHostWallets({}, onChange, () => undefined)
    expect(asked).toHaveBeenCalledOnce()
    const provider = createWalletProvider(() => null)
    announce({ info: info('a'), provider })
    announce({ info: info('a'), provider })
    announce({ info: info('b'), provider })
    expect(onChange).toHaveBeenCalledTimes(2)
    expect(wallets.list().map(({ uuid }) => uuid)).toEqual(['a', 'b'])
    for (const wallet of wallets.list()) expect(HostWallet.parse(wallet)).toEqual(wallet)
  })

  test('never offers Porthole its own provider, nor malformed announcements', () => {
    const own = createWalletProvider(() => null)
    const wallets = discoverHostWallets(
      own,
      () => undefined,
      () => undefined,
    )
    announce({ info: info('own'), provider: own })
    announce({ info: info('no-request'), provider: {} })
    announce({ info: info(''), provider: createWalletProvider(() => null) })
    announce({ info: { ...info('x'), name: 42 }, provider: createWalletProvider(() => null) })
    announce({
      info: info('y', { rdns: 'r'.repeat(200) }),
      provider: createWalletProvider(() => null),
    })
    announce(null)
    expect(wallets.list()).toEqual([])
  })

  test('drops an icon that is not a data: image or is too large, keeping the wallet', () => {
    const wallets = discoverHostWallets(
      {},
      () => undefined,
      () => undefined,
    )
    const provider = createWalletProvider(() => null)
    announce({ info: info('a', { icon: 'https://evil.example/x.png' }), provider })
    announce({ info: info('b', { icon: `data:image/png;base64,${'A'.repeat(20_000)}` }), provider })
    expect(wallets.list().map(({ icon }) => icon)).toEqual(['', ''])
  })

  test('offers a legacy window.ethereum only while nothing announces itself', () => {
    scope.ethereum = createWalletProvider(() => ['0x1'])
    const wallets = discoverHostWallets(
      {},
      () => undefined,
      () => undefined,
    )
    expect(wallets.list()).toEqual([
      { uuid: legacyUuid, name: 'Browser Wallet', icon: '', rdns: '' },
    ])
    announce({ info: info('a'), provider: createWalletProvider(() => null) })
    expect(wallets.list().map(({ uuid }) => uuid)).toEqual(['a'])
  })

  test('relays a request and its JSON answer to the wallet it names', async () => {
    const a = createWalletProvider((method, params) => ({ method, params, at: new Date(0) }))
    const b = createWalletProvider(() => 'b')
    const wallets = discoverHostWallets(
      {},
      () => undefined,
      () => undefined,
    )
    announce({ info: info('a'), provider: a })
    announce({ info: info('b'), provider: b })
    await expect(
      wallets.request({ uuid: 'a', method: 'eth_chainId', params: [1] }),
    ).resolves.toEqual({ method: 'eth_chainId', params: [1], at: '1970-01-01T00:00:00.000Z' })
    expect(b.request).not.toHaveBeenCalled()
    await expect(wallets.request({ uuid: 'a', method: 'eth_accounts' })).resolves.toEqual({
      method: 'eth_accounts',
      at: '1970-01-01T00:00:00.000Z',
    })
    expect(a.request).toHaveBeenLastCalledWith({ method: 'eth_accounts' })
  })

  test("keeps a wallet error's EIP-1193 code and message only", async () => {
    const failing = createWalletProvider((method) => {
      if (method === 'reject')
        throw Object.assign(new Error('User rejected.'), { code: 4001, stack: 'secret' })
      throw 'a string'
    })
    const wallets = discoverHostWallets(
      {},
      () => undefined,
      () => undefined,
    )
    announce({ info: info('a'), provider: failing })
    const rejected = (await wallets
      .request({ uuid: 'a', method: 'reject' })
      .catch((e) => e)) as RpcError
    expect(rejected.toJSON()).toEqual({ code: 4001, message: 'User rejected.' })
    const odd = (await wallets.request({ uuid: 'a', method: 'odd' }).catch((e) => e)) as RpcError
    // Empty here: the channel carries it so, and the widget reads it as 'An error occurred'.
    expect(odd.toJSON()).toEqual({ code: -32603, message: '' })
  })

  test('a request to an unknown wallet rejects with 4900', async () => {
    const wallets = discoverHostWallets(
      {},
      () => undefined,
      () => undefined,
    )
    const error = (await wallets
      .request({ uuid: 'nope', method: 'eth_accounts' })
      .catch((e) => e)) as RpcError
    expect(error.code).toBe(4900)
  })

  test("relays a used wallet's events as JSON, errors as { code, message }", async () => {
    const provider = createWalletProvider(() => null)
    const onEvent = vi.fn()
    const wallets = discoverHostWallets({}, () => undefined, onEvent)
    announce({ info: info('a'), provider })
    expect(provider.listeners.size).toBe(0)
    await wallets.request({ uuid: 'a', method: 'eth_accounts' })
    provider.listeners.get('accountsChanged')?.(['0xabc'])
    provider.listeners.get('disconnect')?.(Object.assign(new Error('Disconnected'), { code: 4900 }))
    expect(onEvent.mock.calls).toEqual([
      [{ uuid: 'a', event: 'accountsChanged', data: ['0xabc'] }],
      [{ uuid: 'a', event: 'disconnect', data: { code: 4900, message: 'Disconnected' } }],
    ])
  })

  test('stop() ends discovery', () => {
    const wallets = discoverHostWallets(
      {},
      () => undefined,
      () => undefined,
    )
    wallets.stop()
    announce({ info: info('a'), provider: createWalletProvider(() => null) })
    expect(wallets.list()).toEqual([])
  })
})
