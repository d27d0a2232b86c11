import { ProjectConfig } from '@porthole/protocol/Api'
import { TransactionExecutionError, UserRejectedRequestError } from 'viem'
import { describe, expect, test } from 'vitest'
import { isUserRejection, messageOf } from './walletErrors.js'

const withCode = (code: number, message: string, cause?: unknown) =>
  Object.assign(new Error(message, { cause }), { code })

describe('isUserRejection', () => {
  test.each([
    { case: 'code 4001', error: withCode(4001, 'Denied') },
    { case: 'a plain object with code 4001', error: { code: 4001, message: 'Denied' } },
    {
      case: 'code 4001 in the cause',
      error: new Error('Request failed', { cause: withCode(4001, 'Denied') }),
    },
    {
      case: 'code 4001 three causes down',
      error: new Error('a', {
        cause: new Error('b', { cause: new Error('c', { cause: { code: 4001 } }) }),
      }),
    },
    {
      case: 'code 4001 beneath a wrapper with a code of its own',
      error: withCode(-32603, 'Internal JSON-RPC error.', {
        code: 4001,
        message: 'MetaMask Tx Signature: User denied transaction signature.',
      }),
    },
    {
      case: 'the message "User rejected the request."',
      error: new Error('User rejected the request.'),
    },
    { case: 'the message in upper case', error: new Error('USER REJECTED') },
    {
      case: 'the message "Connection request reset"',
      error: new Error('Connection request reset. Please try again.'),
    },
    {
      case: 'a matching message in the cause',
      error: new Error('Failed', { cause: new Error('user rejected methods.') }),
    },
    { case: 'a matching message with another code', error: withCode(5000, 'User rejected.') },
  ])('is true for $case', ({ error }) => {
    expect(isUserRejection(error)).toBe(true)
  })

  test('is true for viem wrapping a rejection', () => {
    const rejection = new UserRejectedRequestError(new Error('Denied'))
    const wrapped = new TransactionExecutionError(rejection, {
      account: { address: '0x0000000000000000000000000000000000000000', type: 'json-rpc' },
      chain: undefined,
    })
    expect(isUserRejection(rejection)).toBe(true)
    expect(isUserRejection(wrapped)).toBe(true)
  })

  test.each([
    { case: 'code 4902', error: withCode(4902, 'Unrecognized chain ID') },
    {
      case: 'code 4902 wrapping another error',
      error: withCode(4902, 'Unrecognized', new Error('Failed')),
    },
    { case: '"Something went wrong"', error: new Error('Something went wrong') },
    { case: 'code "4001" as a string', error: { code: '4001', message: 'Denied' } },
    {
      case: 'a rejection further than 5 causes down',
      error: nest(6, { code: 4001, message: 'Denied' }),
    },
    { case: 'null', error: null },
    { case: 'undefined', error: undefined },
    { case: 'a string', error: 'user rejected' },
    { case: 'a number', error: 4001 },
  ])('is false for $case', ({ error }) => {
    expect(isUserRejection(error)).toBe(false)
  })

  test('stops on an error that is its own cause', () => {
    const error: { message: string; cause?: unknown } = { message: 'loop' }
    error.cause = error
    expect(isUserRejection(error)).toBe(false)
  })
})

function nest(depth: number, inner: unknown): unknown {
  return depth === 0 ? inner : new Error(`wrapper ${depth}`, { cause: nest(depth - 1, inner) })
}

describe('messageOf', () => {
  test.each([
    {
      case: 'shortMessage over message',
      error: { shortMessage: 'Short', message: 'Long\nDetails' },
      expected: 'Short',
    },
    { case: 'the message', error: new Error('Insufficient funds'), expected: 'Insufficient funds' },
    {
      case: 'the first line',
      error: new Error('First line\nSecond line\nThird'),
      expected: 'First line',
    },
    {
      case: 'the first line of shortMessage',
      error: { shortMessage: 'One\nTwo' },
      expected: 'One',
    },
    { case: 'the fallback for no message', error: {}, expected: 'Something went wrong' },
    {
      case: 'the fallback for an empty message',
      error: new Error(''),
      expected: 'Something went wrong',
    },
    {
      case: 'the fallback for an empty first line',
      error: new Error('\nDetails'),
      expected: 'Something went wrong',
    },
    {
      case: 'the fallback for a non-string message',
      error: { message: 42 },
      expected: 'Something went wrong',
    },
    { case: 'the fallback for null', error: null, expected: 'Something went wrong' },
    { case: 'the fallback for undefined', error: undefined, expected: 'Something went wrong' },
    { case: 'the fallback for a string', error: 'boom', expected: 'Something went wrong' },
  ])('gives $case', ({ error, expected }) => {
    expect(messageOf(error)).toBe(expected)
  })

  test('gives viem’s short message', () => {
    const error = new UserRejectedRequestError(new Error('Denied'))
    expect(error.message).toContain('\n')
    expect(messageOf(error)).toBe('User rejected the request.')
  })

  test('truncates a long first line to 200 characters', () => {
    const long = `${'a'.repeat(150)}${'b'.repeat(150)}`
    expect(messageOf(new Error(`${long}\nmore`))).toBe(long.slice(0, 200))
    expect(messageOf(new Error('c'.repeat(200)))).toBe('c'.repeat(200))
  })
})

describe('messageOf a schema error', () => {
  test('an answer the widget cannot read never shows zod\'s text ("[" and a JSON list)', () => {
    const parsed = ProjectConfig.safeParse({ features: {}, networks: 'eip155:1' })
    expect(parsed.success).toBe(false)
    const wrapped = new Error('Connection failed', { cause: parsed.error })
    for (const error of [parsed.error, wrapped]) {
      expect(messageOf(error)).toBe(
        "Porthole's service sent an answer this page cannot read. Reload the page to update it.",
      )
    }
  })
})

test('an error whose getters throw is "Something went wrong", not a crash', () => {
  const hostile = new Proxy(
    {},
    {
      get() {
        throw new Error('gotcha')
      },
    },
  )
  expect(messageOf(hostile)).toBe('Something went wrong')
})
