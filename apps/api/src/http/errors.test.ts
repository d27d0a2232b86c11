import { BaseError as ProtocolBaseError } from '@porthole/protocol/Errors'
import { describe, expect, test } from 'vitest'
import {
  BaseError,
  ConfigError,
  DatabaseLockedError,
  HttpError,
  InvalidOriginError,
  ProjectError,
  RegistryError,
  StoredOriginsError,
} from './errors.js'

describe('BaseError', () => {
  test('is the protocol BaseError, under the API name', () => {
    const cause = new Error('root')
    const error = new BaseError('Short', { details: 'More', cause })
    expect(error).toBeInstanceOf(ProtocolBaseError)
    expect(error.name).toBe('PortholeApiError')
    expect(error.shortMessage).toBe('Short')
    expect(error.details).toBe('More')
    expect(error.message).toBe('Short\n\nDetails: More')
    expect(error.cause).toBe(cause)
  })

  test.each([
    ['ConfigError', new ConfigError('x')],
    ['InvalidOriginError', new InvalidOriginError('x')],
    ['ProjectError', new ProjectError('x')],
    ['RegistryError', new RegistryError('x')],
    ['StoredOriginsError', new StoredOriginsError('x')],
    ['DatabaseLockedError', new DatabaseLockedError('x')],
    ['HttpError', new HttpError(400, 'bad', 'x')],
  ])('%s is an API BaseError and a protocol BaseError', (name, error) => {
    expect(error).toBeInstanceOf(BaseError)
    expect(error).toBeInstanceOf(ProtocolBaseError)
    expect(error.name).toBe(name)
    expect(error.shortMessage).toBe('x')
  })
})
