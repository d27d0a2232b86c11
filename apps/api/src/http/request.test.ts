import * as Api from '@porthole/protocol/Api'
import { describe, expect, test } from 'vitest'
import { errorBody } from './request.js'

describe('errorBody', () => {
  test('is an Api.ErrorBody', () => {
    expect(Api.ErrorBody.parse(errorBody('not_found', 'No such endpoint'))).toEqual({
      error: { code: 'not_found', message: 'No such endpoint' },
    })
  })

  test('cuts an over-long code or message to the bounds the widget parses', () => {
    const body = errorBody('c'.repeat(100), 'm'.repeat(5000))
    expect(Api.ErrorBody.safeParse(body).error).toBeUndefined()
    expect(body.error.message).toBe('m'.repeat(2048))
  })
})
