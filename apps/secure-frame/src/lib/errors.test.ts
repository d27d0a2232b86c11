import {
  BaseError as ProtocolBaseError,
  type RpcError,
  toRpcError,
} from '@porthole/protocol/Errors'
import { describe, expect, test } from 'vitest'
import {
  BaseError,
  ChainDisconnectedError,
  ConfigError,
  Eip1559NotSupportedError,
  NoTransactionHashError,
  OriginsUnavailableError,
  StorageUnavailableError,
  TokenReadTimeoutError,
  UnexpectedAnswerError,
  UnknownProjectError,
  UnsupportedChainError,
  UpstreamError,
} from './errors.js'

describe('BaseError', () => {
  test('is the protocol BaseError, under the secure frame name', () => {
    const cause = new Error('root')
    const error = new BaseError('Short', { details: 'More', cause })
    expect(error).toBeInstanceOf(ProtocolBaseError)
    expect(error.name).toBe('SecureFrameError')
    expect(error.shortMessage).toBe('Short')
    expect(error.details).toBe('More')
    expect(error.message).toBe('Short\n\nDetails: More')
    expect(error.cause).toBe(cause)
  })

  test.each([
    ['ConfigError', new ConfigError('x')],
    ['UnknownProjectError', new UnknownProjectError('x')],
    ['OriginsUnavailableError', new OriginsUnavailableError('x')],
    ['StorageUnavailableError', new StorageUnavailableError('x')],
  ])('%s is a secure frame BaseError and a protocol BaseError', (name, error) => {
    expect(error).toBeInstanceOf(BaseError)
    expect(error).toBeInstanceOf(ProtocolBaseError)
    expect(error.name).toBe(name)
    expect(error.shortMessage).toBe('x')
  })
})

describe("the frame's RPC errors", () => {
  test.each<[RpcError, string, number, string]>([
    [new UpstreamError(3, 'execution reverted', '0x00'), 'UpstreamError', 3, 'execution reverted'],
    [
      new UnexpectedAnswerError('nonce'),
      'UnexpectedAnswerError',
      -32603,
      'The network answered an unexpected nonce',
    ],
    [
      new NoTransactionHashError(),
      'NoTransactionHashError',
      -32603,
      'The network answered no transaction hash',
    ],
    [
      new Eip1559NotSupportedError(),
      'Eip1559NotSupportedError',
      -32603,
      'This network does not take EIP-1559 transactions',
    ],
    [
      new ChainDisconnectedError('eth_chainId', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'),
      'ChainDisconnectedError',
      4901,
      'eth_chainId is not available on solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    ],
    [new UnsupportedChainError(), 'UnsupportedChainError', 4902, 'Unsupported chain'],
  ])('%s crosses the frame as it is', (error, name, code, message) => {
    expect(error.name).toBe(name)
    expect(toRpcError(error)).toBe(error)
    expect(error.toJSON()).toMatchObject({ code, message })
  })

  test('TokenReadTimeoutError stays in the frame', () => {
    const error = new TokenReadTimeoutError()
    expect(error).toBeInstanceOf(BaseError)
    expect(error.message).toBe('timed out')
    expect(toRpcError(error).toJSON()).toEqual({ code: -32603, message: 'Something went wrong' })
  })
})
