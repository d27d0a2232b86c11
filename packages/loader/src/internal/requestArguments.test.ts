import { ErrorCode, InvalidParamsError } from '@porthole/protocol/Errors'
import { ProviderRequest } from '@porthole/protocol/Host'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { maxParamsLength, toProviderRequest } from './requestArguments.js'

const invalid = (args: unknown) => {
  try {
    toProviderRequest(args)
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

const cycle: unknown[] = []
cycle.push(cycle)

describe('toProviderRequest', () => {
  test.each([
    [{ method: 'eth_accounts' }, { method: 'eth_accounts' }],
    [{ method: 'eth_accounts', params: undefined }, { method: 'eth_accounts' }],
    [{ method: 'eth_getBalance', params: ['0xab', 'latest'] }, null],
    [{ method: 'wallet_getCapabilities', params: { a: [1, null, 'x'] } }, null],
    [
      { method: 'm', params: [], id: 1, jsonrpc: '2.0' },
      { method: 'm', params: [] },
    ],
  ])('accepts %j', (args, expected) => {
    expect(toProviderRequest(args)).toEqual(expected ?? args)
  })

  test.each([
    ['no argument', undefined],
    ['null', null],
    ['a string', 'eth_accounts'],
    ['an array', [{ method: 'eth_accounts' }]],
    ['no method', { params: [] }],
    ['an empty method', { method: '' }],
    ['a method that is not a string', { method: 42 }],
    ['a method too long', { method: 'x'.repeat(129) }],
    ['params that are a string', { method: 'm', params: '0x1' }],
    ['params that are a number', { method: 'm', params: 1 }],
    ['params that are null', { method: 'm', params: null }],
    ['params that are a function', { method: 'm', params: () => 1 }],
    ['params with a bigint', { method: 'm', params: [1n] }],
    ['params with a cycle', { method: 'm', params: cycle }],
    ['params too large', { method: 'm', params: ['x'.repeat(maxParamsLength)] }],
  ])('refuses %s with -32602 and a message', (_, args) => {
    const error = invalid(args)
    expect(error).toBeInstanceOf(InvalidParamsError)
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({
      code: ErrorCode.invalidParams,
      message: expect.stringMatching(/^Invalid request arguments: .+/),
    })
  })

  test('sends params as plain JSON: no prototypes, functions or undefined', () => {
    class Call {
      to = '0x1'
      value = undefined
      run() {}
    }
    const { params } = toProviderRequest({ method: 'eth_call', params: [new Call()] })
    expect(params).toEqual([{ to: '0x1' }])
    expect(Object.getPrototypeOf((params as unknown[])[0])).toBe(Object.prototype)
  })

  test('__proto__ in params stays a harmless own key', () => {
    const { params } = toProviderRequest({
      method: 'm',
      params: JSON.parse('{"__proto__": {"polluted": true}}'),
    })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.hasOwn(params as object, '__proto__')).toBe(true)
  })

  test('inv-18 anything either passes the protocol schema or throws InvalidParamsError', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.record({ method: fc.string(), params: fc.anything() }, { requiredKeys: ['method'] }),
        ),
        (args) => {
          let request: unknown
          try {
            request = toProviderRequest(args)
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidParamsError)
            return
          }
          expect(ProviderRequest.safeParse(request).success).toBe(true)
          expect(() => structuredClone(request)).not.toThrow()
        },
      ),
    )
  })
})
