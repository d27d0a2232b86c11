import { describe, expect, test, vi } from 'vitest'
import { replay } from './queue.js'

const fakeWallet = () => ({
  open: vi.fn(async (_options?: unknown) => {}),
  close: vi.fn(async () => {}),
  setTheme: vi.fn(async (_theme: string) => {}),
})

/** The README's stub, as a page would run it before loader.js. */
const readmeStub = () => {
  const scope: { Wallet?: { q: unknown[]; open(options?: unknown): void } } = {}
  scope.Wallet = scope.Wallet || {
    q: [],
    open: function (o?: unknown) {
      this.q.push(['open', o])
    },
  }
  return scope.Wallet
}

describe('replay', () => {
  test("replays the README stub's calls in order, with their arguments", () => {
    const stub = readmeStub()
    stub.open({ view: 'AllWallets' })
    stub.q.push(['setTheme', 'dark'], ['close'])
    const wallet = fakeWallet()
    replay(stub, wallet)
    expect(wallet.open).toHaveBeenCalledWith({ view: 'AllWallets' })
    expect(wallet.setTheme).toHaveBeenCalledWith('dark')
    expect(wallet.close).toHaveBeenCalledOnce()
    const order = (fn: { mock: { invocationCallOrder: number[] } }) =>
      fn.mock.invocationCallOrder[0]
    expect(order(wallet.open)).toBeLessThan(order(wallet.setTheme) as number)
    expect(order(wallet.setTheme)).toBeLessThan(order(wallet.close) as number)
    expect(stub.q).toHaveLength(0)
  })

  test('a stub kept by the page keeps working after the replay', () => {
    const stub = readmeStub()
    const wallet = fakeWallet()
    replay(stub, wallet)
    stub.open({ view: 'Account' })
    expect(wallet.open).toHaveBeenCalledWith({ view: 'Account' })
  })

  test.each([
    ['nothing', undefined],
    ['null', null],
    ['a stub without a queue', {}],
    ['a queue that is not an array', { q: 'open' }],
  ])('ignores %s', (_, stub) => {
    const wallet = fakeWallet()
    expect(() => replay(stub, wallet)).not.toThrow()
    expect(wallet.open).not.toHaveBeenCalled()
  })

  test('skips entries that name no method of the wallet', () => {
    const wallet = fakeWallet()
    const stub = {
      q: ['open', ['nope'], ['toString'], ['__proto__'], [42], ['constructor'], ['open', 1]],
    }
    expect(() => replay(stub, wallet)).not.toThrow()
    expect(wallet.open).toHaveBeenCalledOnce()
    expect(wallet.open).toHaveBeenCalledWith(1)
  })

  test('a queued call that throws or rejects does not stop the others nor escape', async () => {
    const wallet = {
      open: vi.fn(() => {
        throw new Error('sync')
      }),
      close: vi.fn(() => Promise.reject(new Error('async'))),
      setTheme: vi.fn(async () => {}),
    }
    replay({ q: [['open'], ['close'], ['setTheme', 'light']] }, wallet)
    expect(wallet.setTheme).toHaveBeenCalledWith('light')
    // An unhandled rejection would fail the test run.
    await new Promise((resolve) => setTimeout(resolve, 0))
  })
})
