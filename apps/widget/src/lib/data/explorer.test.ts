import type { WalletsPage } from '@porthole/protocol/Api'
import { sdkVersionDefault } from '@porthole/protocol/Constants'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { walletEntry } from '../../../test/api.js'
import type { Api } from './api.js'
import { getWallets, nextPage, searchTerm, searchWallets } from './explorer.js'

const wallet = (n: number) =>
  walletEntry({
    id: n.toString(16).padStart(64, '0'),
    name: `Wallet ${n}`,
    image_id: n.toString(16).padStart(64, '0'),
  })

const page = (from: number, size: number, count: number): WalletsPage => ({
  count,
  data: Array.from({ length: size }, (_, index) => wallet(from + index)),
})

function fakeApi(respond: (params: Record<string, unknown>) => unknown) {
  const calls: Array<{ path: string; params: Record<string, unknown> }> = []
  const api: Api = {
    url: (path) => path,
    get: async (path, options) => {
      const params = (options?.params ?? {}) as Record<string, unknown>
      calls.push({ path, params })
      return respond(params)
    },
    getBlob: async () => new Blob(),
    post: async () => undefined,
    put: async () => undefined,
    delete: async () => undefined,
  }
  return { api, calls }
}

describe('getWallets', () => {
  test('asks for a page of the project and parses it', async () => {
    const { api, calls } = fakeApi(() => page(1, 4, 113))
    const result = await getWallets({ page: 1, entries: 4 }, { api, projectId: 'porthole-dev' })
    expect(calls).toEqual([
      {
        path: '/getWallets',
        params: { projectId: 'porthole-dev', st: 'porthole', sv: '4', page: 1, entries: 4 },
      },
    ])
    expect(result.count).toBe(113)
    expect(result.data).toHaveLength(4)
  })

  test('SPEC 7: every call names the SDK, st=porthole and sv=4 (the default SDK version)', async () => {
    const { api, calls } = fakeApi(() => page(1, 0, 0))
    await getWallets({ page: 3, entries: 40 }, { api, projectId: 'p' })
    expect(calls.map(({ params }) => [params.st, params.sv])).toEqual([
      ['porthole', String(sdkVersionDefault)],
    ])
    expect(sdkVersionDefault).toBe(4)
  })

  test('refuses a response that does not match the schema', async () => {
    const { api } = fakeApi(() => ({ count: 1, data: [{ ...wallet(1), extra: true }] }))
    await expect(getWallets({ page: 1, entries: 4 }, { api, projectId: 'p' })).rejects.toThrow()
  })
})

describe('searchWallets', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  test('asks for up to 100 results and waits at least 300 ms', async () => {
    const { api, calls } = fakeApi(() => page(1, 2, 2))
    const settled = vi.fn()
    void searchWallets('rain', { api, projectId: 'p' }).then(settled)
    await vi.advanceTimersByTimeAsync(0)
    expect(calls[0]?.params).toEqual({
      projectId: 'p',
      st: 'porthole',
      sv: '4',
      page: 1,
      entries: 100,
      search: 'rain',
    })
    await vi.advanceTimersByTimeAsync(299)
    expect(settled).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    expect(settled).toHaveBeenCalledWith(page(1, 2, 2))
  })
})

describe('searchWallets failures', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  test('a failed search shows its error no sooner than 300 ms after it starts', async () => {
    const { api } = fakeApi(() => {
      throw new Error('HTTP status code: 503')
    })
    const rejected = vi.fn()
    void searchWallets('rain', { api, projectId: 'p' }).catch(rejected)
    await vi.advanceTimersByTimeAsync(299)
    expect(rejected).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    expect(rejected).toHaveBeenCalledWith(new Error('HTTP status code: 503'))
  })
})

describe('searchTerm', () => {
  test.each([
    ['', ''],
    ['r', ''],
    [' r ', ''],
    ['ra', 'ra'],
    ['  rain ', 'rain'],
  ])('%j searches for %j', (input, term) => {
    expect(searchTerm(input)).toBe(term)
  })
})

describe('nextPage', () => {
  test('asks for the next page until count is reached', () => {
    expect(nextPage([page(1, 40, 113)])).toBe(2)
    expect(nextPage([page(1, 40, 113), page(41, 40, 113)])).toBe(3)
    expect(nextPage([page(1, 40, 113), page(41, 40, 113), page(81, 33, 113)])).toBeUndefined()
  })

  test('stops on an empty page, even if count says more', () => {
    expect(nextPage([page(1, 40, 113), page(41, 0, 113)])).toBeUndefined()
    expect(nextPage([])).toBeUndefined()
  })
})
