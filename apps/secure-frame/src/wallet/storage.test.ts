import { DeviceId } from '@porthole/protocol/Embedded'
import { describe, expect, test, vi } from 'vitest'
import {
  type Backend,
  createIndexedDbBackend,
  createMemoryBackend,
  createRandomId,
  createStorage,
  type SessionScope,
  toScopeKey,
  withFallback,
} from './storage.js'

const token = 'a'.repeat(43)
const scope: SessionScope = { origin: 'https://a.example.com', projectId: 'porthole-dev' }
const tokenRecord = `token:${toScopeKey(scope)}`
const share = 'AQIDBAUGBwgJCgsMDQ4PEBE='
const user = {
  id: 'user-1',
  email: 'ada@example.com',
  addresses: {
    eip155: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
    solana: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
  },
}

/** Every string and byte sequence reachable from a stored value, to look for plaintext. */
function dump(value: unknown): string {
  if (value instanceof ArrayBuffer) return new TextDecoder('latin1').decode(value)
  if (value instanceof Uint8Array) return new TextDecoder('latin1').decode(value)
  if (typeof value === 'object' && value !== null) return Object.values(value).map(dump).join('|')
  return String(value)
}

describe('createRandomId', () => {
  test('is 128 random bits, base64url, a valid device id', () => {
    const ids = new Set(Array.from({ length: 50 }, createRandomId))
    expect(ids.size).toBe(50)
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/)
      expect(DeviceId.safeParse(id).success).toBe(true)
    }
  })
})

describe('inv-11 createStorage', () => {
  test('the wrapping key is a non-extractable AES-GCM CryptoKey, stored as the key object', async () => {
    const backend = createMemoryBackend()
    await createStorage(backend, { scope }).setToken(token)
    const key = backend.records.get('wrappingKey')
    expect(key).toBeInstanceOf(CryptoKey)
    expect((key as CryptoKey).extractable).toBe(false)
    expect((key as CryptoKey).algorithm.name).toBe('AES-GCM')
    await expect(crypto.subtle.exportKey('raw', key as CryptoKey)).rejects.toThrow()
  })

  test('the device share, token and device id are stored sealed, never in plaintext', async () => {
    const backend = createMemoryBackend()
    const storage = createStorage(backend, { scope })
    const deviceId = await storage.getDeviceId()
    await storage.setToken(token)
    await storage.setDeviceShare(user.id, share)
    const stored = [...backend.records.entries()]
      .filter(([name]) => name !== 'wrappingKey')
      .map(([, value]) => dump(value))
      .join('|')
    for (const secret of [token, share, deviceId]) expect(stored).not.toContain(secret)
  })

  test('a sealed record copied under another name does not open', async () => {
    const backend = createMemoryBackend()
    const storage = createStorage(backend, { scope })
    await storage.setDeviceShare('user-a', share)
    backend.records.set('deviceShare:user-b', backend.records.get('deviceShare:user-a'))
    expect(await storage.getDeviceShare('user-a')).toBe(share)
    expect(await storage.getDeviceShare('user-b')).toBeUndefined()
  })

  test('a tampered record, or one sealed under a lost key, reads as missing', async () => {
    const backend = createMemoryBackend()
    await createStorage(backend, { scope }).setToken(token)
    const sealed = backend.records.get(tokenRecord) as { iv: Uint8Array; data: ArrayBuffer }
    const data = new Uint8Array(sealed.data.slice(0))
    data[0] = (data[0] ?? 0) ^ 1
    backend.records.set(tokenRecord, { iv: sealed.iv, data: data.buffer })
    expect(await createStorage(backend, { scope }).getToken()).toBeUndefined()

    const other = createMemoryBackend()
    await createStorage(other, { scope }).setToken(token)
    other.records.delete('wrappingKey')
    expect(await createStorage(other, { scope }).getToken()).toBeUndefined()
  })
})

describe('createStorage', () => {
  test('round-trips the session, the share, the user and the chain', async () => {
    const backend = createMemoryBackend()
    const storage = createStorage(backend, { scope })
    await storage.setToken(token)
    await storage.setDeviceShare(user.id, share)
    await storage.setUser(user)
    await storage.setChainId('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')
    // A new page over the same records.
    const again = createStorage(backend, { scope })
    expect(await again.getToken()).toBe(token)
    expect(await again.getDeviceShare(user.id)).toBe(share)
    expect(await again.getDeviceShare('someone-else')).toBeUndefined()
    expect(await again.getUser()).toEqual(user)
    expect(await again.getChainId()).toBe('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')
  })

  test('the device id is made once and kept across pages', async () => {
    const backend = createMemoryBackend()
    const [a, b] = await Promise.all([
      createStorage(backend, { scope }).getDeviceId(),
      createStorage(backend, { scope }).getDeviceId(),
    ])
    const first = await createStorage(backend, { scope }).getDeviceId()
    expect(a).toBe(b)
    expect(first).toBe(a)
  })

  test('clearSession forgets the token and user but keeps the device id and share', async () => {
    const storage = createStorage(createMemoryBackend(), { scope })
    const deviceId = await storage.getDeviceId()
    await storage.setToken(token)
    await storage.setUser(user)
    await storage.setDeviceShare(user.id, share)
    await storage.clearSession()
    expect(await storage.getToken()).toBeUndefined()
    expect(await storage.getUser()).toBeUndefined()
    expect(await storage.getDeviceId()).toBe(deviceId)
    expect(await storage.getDeviceShare(user.id)).toBe(share)
  })

  test.each([
    ['a token', (s: ReturnType<typeof createStorage>) => s.setToken('short')],
    ['a share', (s: ReturnType<typeof createStorage>) => s.setDeviceShare('u', 'not base64!')],
    ['a user', (s: ReturnType<typeof createStorage>) => s.setUser({ ...user, extra: 1 } as never)],
    ['a chain', (s: ReturnType<typeof createStorage>) => s.setChainId('mainnet')],
  ])('inv-18 refuses to store a malformed %s', async (_, write) => {
    const backend = createMemoryBackend()
    await expect(write(createStorage(backend, { scope }))).rejects.toThrow()
    expect([...backend.records.keys()].filter((name) => name !== 'wrappingKey')).toEqual([])
  })

  test('inv-18 a malformed cached user reads as missing', async () => {
    const backend = createMemoryBackend()
    backend.records.set(`user:${toScopeKey(scope)}`, {
      ...user,
      __proto__: { admin: true },
      extra: 'x',
    })
    expect(await createStorage(backend, { scope }).getUser()).toBeUndefined()
  })
})

describe('inv-09 sessions are scoped to the host origin and project', () => {
  /** Two origins of one site, and another project on the first: one browser partition. */
  const sameSite: SessionScope = { origin: 'https://b.example.com', projectId: 'porthole-dev' }
  const otherProject: SessionScope = { ...scope, projectId: 'another-project' }

  test.each([
    ['another origin on the same site', sameSite],
    ['another project on the same origin', otherProject],
  ])('%s does not see the session; the device and its share are the same', async (_, other) => {
    const backend = createMemoryBackend()
    const a = createStorage(backend, { scope })
    await a.setToken(token)
    await a.setUser(user)
    await a.setChainId('eip155:8453')
    await a.setDeviceShare(user.id, share)

    const b = createStorage(backend, { scope: other })
    expect(await b.getToken()).toBeUndefined()
    expect(await b.getUser()).toBeUndefined()
    expect(await b.getChainId()).toBeUndefined()
    expect(await b.getDeviceId()).toBe(await a.getDeviceId())
    expect(await b.getDeviceShare(user.id)).toBe(share)

    // B's own session, and its sign-out, leave A's alone.
    await b.setToken('b'.repeat(43))
    await b.clearSession()
    expect(await a.getToken()).toBe(token)
    expect(await a.getUser()).toEqual(user)
  })

  test('a session record copied under another scope does not open', async () => {
    const backend = createMemoryBackend()
    await createStorage(backend, { scope }).setToken(token)
    backend.records.set(`token:${toScopeKey(sameSite)}`, backend.records.get(tokenRecord))
    expect(await createStorage(backend, { scope: sameSite }).getToken()).toBeUndefined()
  })

  test('scope keys cannot collide, whatever the origin and project hold', () => {
    expect(toScopeKey({ origin: 'https://a.example', projectId: 'b c' })).not.toBe(
      toScopeKey({ origin: 'https://a.example b', projectId: 'c' }),
    )
  })

  test('without a scope the session stays in memory: nothing of it is stored', async () => {
    const backend = createMemoryBackend()
    const storage = createStorage(backend)
    await storage.setToken(token)
    await storage.setUser(user)
    expect(await storage.getToken()).toBe(token)
    expect(await storage.getUser()).toEqual(user)
    expect([...backend.records.keys()].filter((name) => name !== 'wrappingKey')).toEqual([])
    expect(await createStorage(backend).getToken()).toBeUndefined()
  })

  test('an unscoped session of an earlier version is deleted, never used', async () => {
    const backend = createMemoryBackend()
    const old = createStorage(backend, { scope })
    await old.setToken(token)
    // What an earlier version kept, for whichever host it served.
    backend.records.set('token', backend.records.get(tokenRecord))
    backend.records.set('user', user)
    backend.records.set('chainId', 'eip155:1')
    backend.records.delete(tokenRecord)
    const storage = createStorage(backend, { scope: sameSite })
    expect(await storage.getToken()).toBeUndefined()
    expect(await storage.getUser()).toBeUndefined()
    expect(backend.records.has('token')).toBe(false)
    expect(backend.records.has('user')).toBe(false)
    expect(backend.records.has('chainId')).toBe(false)
  })
})

describe('inv-16 storage', () => {
  const blocked = (): Backend => ({
    get: () => Promise.reject(new DOMException('The operation is insecure.', 'SecurityError')),
    set: () => Promise.reject(new DOMException('The operation is insecure.', 'SecurityError')),
    setIfAbsent: () =>
      Promise.reject(new DOMException('The operation is insecure.', 'SecurityError')),
    delete: () => Promise.reject(new DOMException('The operation is insecure.', 'SecurityError')),
  })

  test('blocked storage falls back to memory for the page, and the frame keeps working', async () => {
    const onFallback = vi.fn()
    const backend = withFallback(blocked(), onFallback)
    const storage = createStorage(backend, { scope })
    const deviceId = await storage.getDeviceId()
    await storage.setToken(token)
    await storage.setDeviceShare(user.id, share)
    expect(backend.persistent).toBe(false)
    expect(onFallback).toHaveBeenCalledTimes(1)
    expect(await storage.getToken()).toBe(token)
    expect(await storage.getDeviceShare(user.id)).toBe(share)
    expect(await storage.getDeviceId()).toBe(deviceId)
  })

  test('storage that starts failing later switches to memory without throwing', async () => {
    const memory = createMemoryBackend()
    let fail = false
    const flaky: Backend = {
      get: (key) => (fail ? Promise.reject(new Error('gone')) : memory.get(key)),
      set: (key, value) => (fail ? Promise.reject(new Error('gone')) : memory.set(key, value)),
      setIfAbsent: (key, value) =>
        fail ? Promise.reject(new Error('gone')) : memory.setIfAbsent(key, value),
      delete: (key) => (fail ? Promise.reject(new Error('gone')) : memory.delete(key)),
    }
    const backend = withFallback(flaky)
    const storage = createStorage(backend, { scope })
    await storage.setToken(token)
    expect(backend.persistent).toBe(true)
    fail = true
    await expect(storage.getUser()).resolves.toBeUndefined()
    expect(backend.persistent).toBe(false)
    await storage.setUser(user)
    expect(await storage.getUser()).toEqual(user)
  })

  test.each([
    [
      'reading indexedDB throws a SecurityError',
      () => {
        throw new DOMException('denied', 'SecurityError')
      },
    ],
    [
      'open() throws a SecurityError',
      () =>
        ({
          open() {
            throw new DOMException('denied', 'SecurityError')
          },
        }) as unknown as IDBFactory,
    ],
    ['there is no indexedDB (Node)', () => indexedDB],
    ['open() never answers', () => ({ open: () => ({}) }) as unknown as IDBFactory],
  ])('IndexedDB that fails (%s) leaves a working memory-only storage', async (_, factory) => {
    const backend = withFallback(createIndexedDbBackend({ factory, openTimeout: 20 }))
    const storage = createStorage(backend, { scope })
    await expect(storage.getToken()).resolves.toBeUndefined()
    await storage.setToken(token)
    expect(await storage.getToken()).toBe(token)
    expect(backend.persistent).toBe(false)
  })
})
