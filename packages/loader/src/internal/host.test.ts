import * as Host from '@porthole/protocol/Host'
import { describe, expect, test } from 'vitest'
import { channel, initialState } from './host.js'

describe('channel', () => {
  test('is the protocol channel name', () => {
    expect(channel).toBe(Host.channel)
  })
})

describe('initialState', () => {
  test('is the protocol initial state, and passes its schema', () => {
    expect(initialState).toEqual(Host.initialState)
    expect(Host.State.parse(initialState)).toEqual(initialState)
  })

  test('is frozen, so no subscriber can change what getState() returns', () => {
    expect(Object.isFrozen(initialState)).toBe(true)
  })
})
