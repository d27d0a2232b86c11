import { describe, expect, test } from 'vitest'
import {
  AbortedError,
  BaseError,
  ErrorCode,
  InvalidParamsError,
  RpcError,
  TimeoutError,
  TimeoutReason,
  toRpcError,
  UserRejectedError,
  WalletError,
  walk,
} from './Errors.js'

describe('BaseError', () => {
  test('uses the short message as message when there are no details', () => {
    const error = new BaseError('Something broke')
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('PortholeError')
    expect(error.message).toBe('Something broke')
    expect(error.shortMessage).toBe('Something broke')
    expect(error.details).toBeUndefined()
    expect(error.cause).toBeUndefined()
  })

  test('appends details to the message', () => {
    const error = new BaseError('Something broke', { details: 'disk full' })
    expect(error.message).toBe('Something broke\n\nDetails: disk full')
    expect(error.shortMessage).toBe('Something broke')
    expect(error.details).toBe('disk full')
  })

  test('keeps the cause and takes details from its message', () => {
    const cause = new TypeError('bad input')
    const error = new BaseError('Something broke', { cause })
    expect(error.cause).toBe(cause)
    expect(error.details).toBe('bad input')
    expect(error.message).toBe('Something broke\n\nDetails: bad input')
  })

  test('takes details from a BaseError cause, and given details win over the cause', () => {
    const cause = new BaseError('inner', { details: 'root cause' })
    expect(new BaseError('outer', { cause }).details).toBe('root cause')
    expect(new BaseError('outer', { cause, details: 'mine' }).details).toBe('mine')
    expect(new BaseError('outer', { cause: 'a string' }).details).toBeUndefined()
  })

  test('walk returns the innermost cause, or the first match, or null', () => {
    const root = new TypeError('root')
    const middle = new UserRejectedError()
    Object.defineProperty(middle, 'cause', { value: root })
    const top = new BaseError('top', { cause: middle })
    expect(walk(top)).toBe(root)
    expect(walk(top, (error) => error instanceof RpcError)).toBe(middle)
    expect(walk(top, (error) => error instanceof RangeError)).toBeNull()
    expect(walk(new BaseError('alone'))).toBeInstanceOf(BaseError)
  })
})

describe('codes', () => {
  test('an abort is a user rejection (4001), a timeout is -32603 with its reason', () => {
    const aborted = new AbortedError()
    expect(aborted).toBeInstanceOf(UserRejectedError)
    expect(aborted.toJSON()).toEqual({ code: 4001, message: 'Request was aborted' })
    expect(new TimeoutError(TimeoutReason.iframeRequestTimeout).toJSON()).toEqual({
      code: -32603,
      message: 'The request timed out.',
      data: { reason: 'iframe_request_timeout' },
    })
  })

  test('the table holds each code once', () => {
    const codes = Object.values(ErrorCode)
    expect(new Set(codes).size).toBe(codes.length)
  })
})

describe('toRpcError', () => {
  test('our own RpcErrors pass as they are', () => {
    const error = new InvalidParamsError('Bad address.')
    expect(toRpcError(error)).toBe(error)
    expect(WalletError.from(error)).toBe(error)
  })

  test.each([
    ['a foreign Error', new Error('connect ECONNREFUSED 10.0.0.1:5432')],
    ['an EIP-1193 error', { code: 4001, message: 'secret upstream text' }],
    [
      'one of our errors without a code',
      new BaseError('Share decryption failed', { details: 'key 3' }),
    ],
    ['a string', 'private key 0xabc'],
    ['nothing', undefined],
  ])('%s becomes -32603 Something went wrong', (_, error) => {
    expect(toRpcError(error).toJSON()).toEqual({ code: -32603, message: 'Something went wrong' })
  })

  test("a WalletError relays the visitor's wallet's code (or its cause's) and short message", () => {
    expect(WalletError.from({ code: 4001, message: 'User denied.' }).toJSON()).toEqual({
      code: 4001,
      message: 'User denied.',
    })
    const wrapped = { shortMessage: 'Chain not added.', message: 'long', cause: { code: 4902 } }
    expect(WalletError.from(wrapped).toJSON()).toEqual({
      code: 4902,
      message: 'Chain not added.',
    })
    expect(WalletError.from({ message: 'x'.repeat(600) }).shortMessage).toHaveLength(512)
    expect(WalletError.from(null).toJSON()).toEqual({
      code: -32603,
      message: 'Something went wrong',
    })
  })
})
