import { describe, expect, test, vi } from 'vitest'
import { ApiError } from '../lib/api.js'
import { accountOn, poll, toSecureUser } from './session.js'

const user = {
  id: 'u1',
  email: 'ada@example.com',
  addresses: {
    eip155: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
    solana: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
  },
}

describe('inv-17 poll', () => {
  test('ends at its deadline even if the request is never cancelled', async () => {
    const check = vi.fn(async () => undefined)
    const signal = new AbortController().signal
    await expect(poll(check, { interval: 5, signal, timeout: 40 })).rejects.toMatchObject({
      data: { reason: 'iframe_request_timeout' },
    })
    const calls = check.mock.calls.length
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(check).toHaveBeenCalledTimes(calls)
  })

  test('an already cancelled request polls nothing', async () => {
    const check = vi.fn(async () => 1)
    const controller = new AbortController()
    controller.abort()
    await expect(poll(check, { interval: 5, signal: controller.signal })).rejects.toMatchObject({
      message: 'Request was aborted',
    })
    expect(check).not.toHaveBeenCalled()
  })
})

describe('poll', () => {
  test('asks again after an unreachable API or a 5xx, and answers the first result', async () => {
    const answers = [
      () => Promise.reject(new ApiError(0, 'unreachable', 'x')),
      () => Promise.reject(new ApiError(503, 'database_unavailable', 'x')),
      () => Promise.resolve(undefined),
      () => Promise.resolve('done'),
    ]
    const check = vi.fn(() => (answers.shift() ?? (() => Promise.resolve('late')))())
    await expect(poll(check, { interval: 1, signal: new AbortController().signal })).resolves.toBe(
      'done',
    )
    expect(check).toHaveBeenCalledTimes(4)
  })
})

describe('toSecureUser', () => {
  test('answers the account of the network: EVM on eip155, Solana on solana', () => {
    expect(toSecureUser(user, 'eip155:8453')).toMatchObject({
      address: user.addresses.eip155,
      chainId: 'eip155:8453',
    })
    const solana = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
    expect(accountOn(user, solana)).toBe(user.addresses.solana)
  })
})
