import { BaseError as ProtocolBaseError } from '@porthole/protocol/Errors'
import { describe, expect, test } from 'vitest'
import { BaseError, ConfigError, OriginsUnavailableError, UnknownProjectError } from './errors.js'

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
  ])('%s is a secure frame BaseError and a protocol BaseError', (name, error) => {
    expect(error).toBeInstanceOf(BaseError)
    expect(error).toBeInstanceOf(ProtocolBaseError)
    expect(error.name).toBe(name)
    expect(error.shortMessage).toBe('x')
  })
})
