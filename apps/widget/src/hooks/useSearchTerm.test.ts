/**
 * What the search shows while typing: `useSearchTerm` is `shownSearch` of the
 * input and its value debounced for 500 ms (`useDebouncedValue`, built on
 * `debounce`). A typing session here drives the same two with a fake clock.
 */
import { debounceDefault } from '@porthole/protocol/Constants'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { searchTerm, shownSearch } from '../lib/data/explorer.js'
import { debounce } from '../lib/timing.js'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

/** A search box: what it holds, its debounced value, and the search shown for them. */
function searchBox() {
  let input = ''
  let debounced = ''
  const settle = debounce((value: string) => {
    debounced = value
  }, debounceDefault)
  return {
    type(value: string) {
      input = value
      settle(value)
    },
    get input() {
      return input
    },
    get shown() {
      return shownSearch(input, debounced)
    },
  }
}

describe('shownSearch', () => {
  test.each([
    ['', '', ''],
    ['r', 'rain', ''],
    ['rain', 'rain', 'rain'],
    [' rain ', 'rain', 'rain'],
    ['rain', ' rain', 'rain'],
    ['rai', 'rain', undefined],
    ['ab', 'abc', undefined],
    ['ab', 'a', undefined],
  ])('input %j, debounced %j: shows %j', (input, debounced, shown) => {
    expect(shownSearch(input, debounced)).toBe(shown)
  })
})

describe('useSearchTerm', () => {
  test('"abc", then "a", then "ab" within 500 ms never shows the results for "abc"', () => {
    const box = searchBox()
    box.type('abc')
    vi.advanceTimersByTime(debounceDefault)
    expect(box.shown).toBe('abc')
    box.type('a')
    expect(box.shown).toBe('')
    vi.advanceTimersByTime(100)
    box.type('ab')
    // The debounced value is still "abc": waiting, not the results for "abc".
    expect(box.shown).toBeUndefined()
    vi.advanceTimersByTime(debounceDefault - 1)
    expect(box.shown).toBeUndefined()
    vi.advanceTimersByTime(1)
    expect(box.shown).toBe('ab')
  })

  test('going back to the term already shown keeps its results', () => {
    const box = searchBox()
    box.type('rain')
    vi.advanceTimersByTime(debounceDefault)
    box.type('rai')
    expect(box.shown).toBeUndefined()
    box.type('rain')
    expect(box.shown).toBe('rain')
  })

  test('whatever is typed, the search shown is the box term or none, and the box term once settled', () => {
    // A fixed pseudo-random session: keystrokes and deletions 0 to 700 ms apart.
    let seed = 7
    const random = () => {
      seed = (seed * 48_271) % 2_147_483_647
      return seed / 2_147_483_647
    }
    const box = searchBox()
    let text = ''
    for (let step = 0; step < 400; step++) {
      text = random() < 0.3 ? text.slice(0, -1) : `${text}${'abr'[Math.floor(random() * 3)]}`
      box.type(text)
      const gap = Math.floor(random() * 700)
      for (let elapsed = 0; elapsed < gap; elapsed += 25) {
        const shown = box.shown
        if (shown !== undefined && shown !== '') expect(shown).toBe(searchTerm(box.input))
        if (shown === '') expect(searchTerm(box.input)).toBe('')
        vi.advanceTimersByTime(25)
      }
      if (gap >= debounceDefault) expect(box.shown).toBe(searchTerm(box.input))
    }
  })
})
