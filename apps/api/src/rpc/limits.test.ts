import { describe, expect, test } from 'vitest'
import { retryAfterSeconds, slidingEstimate } from './limits.js'

const windowSeconds = 60
const length = windowSeconds * 1000

/** The counts `waitMs` later, moving into the next fixed window(s) as time passes. */
function later(
  state: { current: number; previous: number; elapsedMs: number },
  waitMs: number,
): { current: number; previous: number; elapsedMs: number } {
  const elapsed = state.elapsedMs + waitMs
  if (elapsed < length) return { ...state, elapsedMs: elapsed }
  if (elapsed < 2 * length)
    return { current: 0, previous: state.current, elapsedMs: elapsed - length }
  return { current: 0, previous: 0, elapsedMs: elapsed % length }
}

const allowedAfter = (
  state: { current: number; previous: number; elapsedMs: number },
  waitMs: number,
  calls: number,
  limit: number,
) => {
  const then = later(state, waitMs)
  return slidingEstimate({ ...then, current: then.current + calls }, length) <= limit
}

describe('retryAfterSeconds', () => {
  test('five calls at the start of a window, limit 5: 72 s, past the window by a fifth of the next', () => {
    const wait = retryAfterSeconds(
      { current: 5, previous: 0, elapsedMs: 0 },
      { calls: 1, limit: 5, windowSeconds },
    )
    expect(wait).toBe(72)
  })

  test('a request larger than the limit waits until nothing counts', () => {
    expect(
      retryAfterSeconds(
        { current: 0, previous: 0, elapsedMs: 10_000 },
        { calls: 6, limit: 5, windowSeconds },
      ),
    ).toBe(110)
  })

  test('is the first whole second at which the call is allowed, for every state', () => {
    const limit = 5
    for (let current = 0; current <= limit; current++) {
      for (let previous = 0; previous <= limit; previous++) {
        for (let elapsedMs = 0; elapsedMs < length; elapsedMs += 3_700) {
          for (let calls = 1; calls <= limit; calls++) {
            const state = { current, previous, elapsedMs }
            if (allowedAfter(state, 0, calls, limit)) continue
            const wait = retryAfterSeconds(state, { calls, limit, windowSeconds })
            const where = JSON.stringify({ ...state, calls, wait })
            expect(allowedAfter(state, wait * 1000, calls, limit), where).toBe(true)
            if (wait > 1)
              expect(allowedAfter(state, (wait - 1) * 1000, calls, limit), where).toBe(false)
          }
        }
      }
    }
  })
})
