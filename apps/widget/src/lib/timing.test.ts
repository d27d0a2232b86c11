import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { debounce, wait, withMinimumWait } from './timing.js'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('debounce', () => {
  test('calls once with the latest arguments, 500 ms after the last call', () => {
    const fn = vi.fn()
    const debounced = debounce(fn, 500)
    debounced('r')
    vi.advanceTimersByTime(300)
    debounced('ra')
    vi.advanceTimersByTime(300)
    debounced('rai')
    vi.advanceTimersByTime(499)
    expect(fn).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(fn).toHaveBeenCalledTimes(1)
    expect(fn).toHaveBeenCalledWith('rai')
  })

  test('cancel drops the pending call', () => {
    const fn = vi.fn()
    const debounced = debounce(fn, 500)
    debounced('rain')
    debounced.cancel()
    vi.advanceTimersByTime(1_000)
    expect(fn).not.toHaveBeenCalled()
  })
})

describe('withMinimumWait', () => {
  test('holds a fast result until the minimum has passed', async () => {
    const settled = vi.fn()
    void withMinimumWait(Promise.resolve('fast'), 300).then(settled)
    await vi.advanceTimersByTimeAsync(299)
    expect(settled).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    expect(settled).toHaveBeenCalledWith('fast')
  })

  test('does not delay a slow result further', async () => {
    const settled = vi.fn()
    void withMinimumWait(
      wait(800).then(() => 'slow'),
      300,
    ).then(settled)
    await vi.advanceTimersByTimeAsync(799)
    expect(settled).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    expect(settled).toHaveBeenCalledWith('slow')
  })

  test('rejects as the promise does, but not before the minimum has passed', async () => {
    const failure = new Error('HTTP status code: 500')
    const settled = vi.fn()
    const rejected = vi.fn()
    void withMinimumWait(Promise.reject(failure), 300).then(settled, rejected)
    await vi.advanceTimersByTimeAsync(299)
    expect(rejected).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    expect(rejected).toHaveBeenCalledWith(failure)
    expect(settled).not.toHaveBeenCalled()
  })

  test('a slow failure is not delayed further', async () => {
    const rejected = vi.fn()
    void withMinimumWait(
      wait(800).then(() => Promise.reject(new Error('timeout'))),
      300,
    ).catch(rejected)
    await vi.advanceTimersByTimeAsync(799)
    expect(rejected).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    expect(rejected).toHaveBeenCalledTimes(1)
  })
})
