import { DisconnectedError, ErrorCode, RpcError } from '@porthole/protocol/Errors'
import type { ProviderRequest } from '@porthole/protocol/Host'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { createProvider, notify } from './provider.js'

afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

describe('createProvider', () => {
  test('request forwards { method, params } and resolves with the answer', async () => {
    const send = vi.fn(async (_request: ProviderRequest) => '0x1')
    const { provider } = createProvider(send)
    await expect(provider.request({ method: 'eth_chainId', params: [] })).resolves.toBe('0x1')
    expect(send).toHaveBeenCalledWith({ method: 'eth_chainId', params: [] })
  })

  test("request rejects with the widget's error as it is (4900 included)", async () => {
    const error = new DisconnectedError()
    const { provider } = createProvider(() => Promise.reject(error))
    const rejection = await provider.request({ method: 'eth_accounts' }).catch((e: unknown) => e)
    expect(rejection).toBe(error)
    expect(rejection).toBeInstanceOf(Error)
    expect(rejection).toMatchObject({ code: ErrorCode.disconnected })
  })

  test.each([undefined, null, 'eth_accounts', { method: '' }, { method: 'm', params: 'x' }])(
    'request(%j) rejects with -32602 and sends nothing',
    async (args) => {
      const send = vi.fn(async () => null)
      const { provider } = createProvider(send)
      // @ts-expect-error: bad input on purpose
      const rejection = await provider.request(args).catch((e: unknown) => e)
      expect(rejection).toBeInstanceOf(RpcError)
      expect(rejection).toMatchObject({ code: ErrorCode.invalidParams })
      expect(send).not.toHaveBeenCalled()
    },
  )

  test('request rejects, never throws, when reading the argument throws', async () => {
    const { provider } = createProvider(async () => null)
    const args = {
      get method(): string {
        throw new Error('getter')
      },
    }
    await expect(provider.request(args)).rejects.toThrow('getter')
  })

  test('on and removeListener deliver the events of the widget', () => {
    const { provider, emit } = createProvider(async () => null)
    const accounts = vi.fn()
    const chain = vi.fn()
    expect(provider.on('accountsChanged', accounts)).toBe(provider)
    provider.on('chainChanged', chain)
    emit({ event: 'accountsChanged', data: ['0xab'] })
    emit({ event: 'chainChanged', data: '0x1' })
    expect(accounts).toHaveBeenCalledWith(['0xab'])
    expect(chain).toHaveBeenCalledWith('0x1')
    expect(provider.removeListener('accountsChanged', accounts)).toBe(provider)
    emit({ event: 'accountsChanged', data: [] })
    expect(accounts).toHaveBeenCalledOnce()
  })

  test('disconnect listeners get an Error with the code', () => {
    const { provider, emit } = createProvider(async () => null)
    const listener = vi.fn()
    provider.on('disconnect', listener)
    emit({ event: 'disconnect', data: { code: 4900, message: 'Disconnected' } })
    const [error] = listener.mock.calls[0] as [unknown]
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({ code: 4900, message: 'Disconnected' })
  })

  test('clear forgets every listener', () => {
    const { provider, emit, clear } = createProvider(async () => null)
    const listener = vi.fn()
    provider.on('connect', listener)
    clear()
    emit({ event: 'connect', data: { chainId: '0x1' } })
    expect(listener).not.toHaveBeenCalled()
  })

  test('the provider cannot be changed by the page', () => {
    const { provider } = createProvider(async () => null)
    expect(Object.isFrozen(provider)).toBe(true)
  })
})

describe('notify', () => {
  test('a throwing listener does not stop the others; its error is reported', () => {
    const reported = vi.fn()
    vi.stubGlobal('reportError', reported)
    const second = vi.fn()
    notify(
      [
        () => {
          throw new Error('listener')
        },
        second,
      ],
      1,
    )
    expect(second).toHaveBeenCalledWith(1)
    expect(reported).toHaveBeenCalledWith(new Error('listener'))
  })
})
