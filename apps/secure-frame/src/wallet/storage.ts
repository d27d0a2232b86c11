/**
 * The frame's persistent state, in its own (partitioned) IndexedDB
 * (DESIGN 4, SECURITY.md 11 and 16). One object store of records:
 *
 * - `wrappingKey`: a non-extractable AES-GCM CryptoKey, stored as the
 *   CryptoKey object (the browser keeps its bytes out of reach of script);
 * - `deviceId`, `deviceShare:<userId>`: the device, one per browser
 *   partition, whatever host it serves;
 * - `token:<scope>`: the session, one per host origin and project;
 * - the secrets (`deviceId`, `deviceShare:…`, `token:…`) each `{ iv, data }`,
 *   AES-GCM under that key, with the record's name as additional data so a
 *   record copied under another name (or scope) does not decrypt;
 * - `user:<scope>`: the cached user (id, email, addresses), plain: not secret;
 * - `chainId:<scope>`: the network last chosen there, plain.
 *
 * Sessions are scoped (SECURITY.md 9): the browser partitions this storage by
 * top-level *site*, so two origins on one site (two subdomains, two ports)
 * or two projects on one origin would otherwise share one session. `<scope>`
 * is the host's origin, as the browser reports it, and the project. The
 * device and its shares are not scoped: the same device, approved once, is
 * known on every host; each host still needs its own login. Without a scope
 * (the host's origin unknown) the session lives in the page's memory only.
 *
 * A backend that throws (blocked storage, a SecurityError, a quota) never
 * crashes the frame: the store falls back to memory for the page's lifetime,
 * which at worst logs the user out (SECURITY.md 16). A record that does not
 * decrypt or parse reads as missing.
 */

import { caip2Pattern } from '@porthole/protocol/Caip'
import { Addresses, DeviceId, Email, Share, Token } from '@porthole/protocol/Embedded'
import { z } from '@porthole/protocol/zod'
import { base64urlnopad } from '@scure/base'
import { StorageUnavailableError } from '../lib/errors.js'

/** Where records live: IndexedDB in the browser, a Map in tests and after a fallback. */
export type Backend = {
  get(key: string): Promise<unknown>
  set(key: string, value: unknown): Promise<void>
  /** Stores `value` unless the key holds one already (atomically); answers what is stored. */
  setIfAbsent(key: string, value: unknown): Promise<unknown>
  delete(key: string): Promise<void>
}

export function createMemoryBackend(): Backend & { readonly records: Map<string, unknown> } {
  const records = new Map<string, unknown>()
  return {
    records,
    get: async (key) => records.get(key),
    set: async (key, value) => {
      records.set(key, value)
    },
    setIfAbsent: async (key, value) => {
      if (!records.has(key)) records.set(key, value)
      return records.get(key)
    },
    delete: async (key) => {
      records.delete(key)
    },
  }
}

export type IndexedDbOptions = {
  /** The factory; defaults to the global `indexedDB` (reading it may itself throw). */
  factory?: (() => IDBFactory) | undefined
  name?: string | undefined
  /** How long opening may take before the backend counts as blocked. */
  openTimeout?: number | undefined
}

const storeName = 'records'

function settle<value>(request: IDBRequest<value>): Promise<value> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result)
    request.onerror = () =>
      reject(new StorageUnavailableError('IndexedDB request failed', { cause: request.error }))
  })
}

/** Records in IndexedDB; every failure (including opening) rejects, for `withFallback` to catch. */
export function createIndexedDbBackend(options: IndexedDbOptions = {}): Backend {
  const { factory = () => indexedDB, name = 'porthole-secure', openTimeout = 5_000 } = options
  let opened: Promise<IDBDatabase> | undefined
  const open = () => {
    opened ??= new Promise<IDBDatabase>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new StorageUnavailableError('IndexedDB did not open')),
        openTimeout,
      )
      try {
        const request = factory().open(name, 1)
        request.onupgradeneeded = () => request.result.createObjectStore(storeName)
        request.onblocked = () => reject(new StorageUnavailableError('IndexedDB is blocked'))
        request.onsuccess = () => {
          clearTimeout(timer)
          resolve(request.result)
        }
        request.onerror = () => {
          clearTimeout(timer)
          reject(new StorageUnavailableError('IndexedDB did not open', { cause: request.error }))
        }
      } catch (error) {
        clearTimeout(timer)
        reject(error)
      }
    })
    return opened
  }
  const run = async <value>(
    mode: IDBTransactionMode,
    action: (store: IDBObjectStore) => IDBRequest<value>,
  ): Promise<value> => {
    const db = await open()
    return settle(action(db.transaction(storeName, mode).objectStore(storeName)))
  }
  return {
    get: (key) => run('readonly', (store) => store.get(key)),
    set: async (key, value) => {
      await run('readwrite', (store) => store.put(value, key))
    },
    // One transaction: a get, then a put only if nothing was there.
    setIfAbsent: async (key, value) => {
      const db = await open()
      const store = db.transaction(storeName, 'readwrite').objectStore(storeName)
      const stored = await settle(store.get(key))
      if (stored !== undefined) return stored
      await settle(store.put(value, key))
      return value
    },
    delete: async (key) => {
      await run('readwrite', (store) => store.delete(key))
    },
  }
}

/**
 * `primary` until it throws once, then memory for the rest of the page's life
 * (SECURITY.md 16): blocked storage costs the session, never the frame.
 */
export function withFallback(
  primary: Backend,
  onFallback?: ((error: unknown) => void) | undefined,
): Backend & { readonly persistent: boolean } {
  let current = primary
  let persistent = true
  const guard =
    <args extends unknown[], result>(call: (backend: Backend, ...args: args) => Promise<result>) =>
    async (...args: args): Promise<result> => {
      if (persistent) {
        try {
          return await call(current, ...args)
        } catch (error) {
          persistent = false
          current = createMemoryBackend()
          onFallback?.(error)
        }
      }
      return call(current, ...args)
    }
  return {
    get persistent() {
      return persistent
    },
    get: guard((backend, key: string) => backend.get(key)),
    set: guard((backend, key: string, value: unknown) => backend.set(key, value)),
    setIfAbsent: guard((backend, key: string, value: unknown) => backend.setIfAbsent(key, value)),
    delete: guard((backend, key: string) => backend.delete(key)),
  }
}

/** The user as cached by the frame: not secret, enough to answer `getUser` without the API. */
export const CachedUser = z.strictObject({
  id: z.string().check(z.minLength(1), z.maxLength(64)),
  email: z.optional(Email),
  addresses: Addresses,
})
export type CachedUser = z.infer<typeof CachedUser>

const ChainId = z.string().check(z.regex(caip2Pattern))

const Sealed = z.strictObject({
  iv: z.instanceof(Uint8Array).check(z.refine((iv) => iv.length === 12)),
  data: z.instanceof(ArrayBuffer),
})

/** Whose session the storage keeps: the host's origin (from the browser) and the project. */
export type SessionScope = { origin: string; projectId: string }

/** The records' suffix for `scope`: unambiguous whatever the origin and project hold. */
export function toScopeKey(scope: SessionScope): string {
  return JSON.stringify([scope.origin, scope.projectId])
}

/** The unscoped session records of earlier versions: dropped, never read. */
const legacySessionRecords = ['token', 'user', 'chainId'] as const

export type StorageOptions = {
  /** The session's host origin and project; without one, the session is kept in memory only. */
  scope?: SessionScope | undefined
}

export type Storage = {
  /** This frame's device id, made (128 random bits, base64url) on first use. */
  getDeviceId(): Promise<string>
  getDeviceShare(userId: string): Promise<string | undefined>
  setDeviceShare(userId: string, share: string): Promise<void>
  /** The session of this scope (host origin and project), and its cached user and network. */
  getToken(): Promise<string | undefined>
  setToken(token: string): Promise<void>
  getUser(): Promise<CachedUser | undefined>
  setUser(user: CachedUser): Promise<void>
  getChainId(): Promise<string | undefined>
  setChainId(chainId: string): Promise<void>
  /** Forgets this scope's session (token and cached user); keeps the device id and device shares. */
  clearSession(): Promise<void>
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** A fresh id of 128 random bits, base64url without padding (22 characters). */
export function createRandomId(): string {
  return base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(16)))
}

/**
 * The frame's storage over `backend`, its secrets sealed under a
 * non-extractable key, its session records under `scope`.
 */
export function createStorage(backend: Backend, options: StorageOptions = {}): Storage {
  const scoped = options.scope === undefined ? undefined : toScopeKey(options.scope)
  // Without a scope the session is never written where another host could find it.
  const sessions = scoped === undefined ? createMemoryBackend() : backend
  const inScope = (record: 'token' | 'user' | 'chainId') =>
    scoped === undefined ? record : `${record}:${scoped}`
  let legacyDropped: Promise<void> | undefined
  /** Session records go through here: the unscoped ones of earlier versions are deleted first. */
  const session = async () => {
    legacyDropped ??= Promise.all(legacySessionRecords.map((name) => backend.delete(name))).then(
      () => undefined,
    )
    await legacyDropped
    return sessions
  }

  let key: Promise<CryptoKey> | undefined
  const wrappingKey = () => {
    key ??= (async () => {
      const isKey = (value: unknown): value is CryptoKey =>
        value instanceof CryptoKey && value.algorithm.name === 'AES-GCM'
      const stored = await backend.get('wrappingKey')
      if (isKey(stored)) return stored
      const created = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, [
        'encrypt',
        'decrypt',
      ])
      // Another frame of this partition may have made one meanwhile: the first one stays.
      if (stored === undefined) {
        const kept = await backend.setIfAbsent('wrappingKey', created)
        if (isKey(kept)) return kept
      }
      await backend.set('wrappingKey', created)
      return created
    })().catch((error: unknown) => {
      key = undefined
      throw error
    })
    return key
  }

  const sealRecord = async (name: string, value: string) => {
    const iv = crypto.getRandomValues(new Uint8Array(12))
    const plain = encoder.encode(value)
    const data = await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv, additionalData: encoder.encode(name) },
      await wrappingKey(),
      plain,
    )
    plain.fill(0)
    return { iv, data }
  }
  const seal = async (name: string, value: string, target: Backend = backend) => {
    await target.set(name, await sealRecord(name, value))
  }

  const openRecord = async <schema extends z.ZodMiniType<string>>(
    name: string,
    record: unknown,
    schema: schema,
  ): Promise<z.infer<schema> | undefined> => {
    const sealed = Sealed.safeParse(record)
    if (!sealed.success) return undefined
    let plain: Uint8Array
    try {
      const { iv, data } = sealed.data
      plain = new Uint8Array(
        await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv, additionalData: encoder.encode(name) },
          await wrappingKey(),
          data,
        ),
      )
    } catch {
      return undefined
    }
    const parsed = schema.safeParse(decoder.decode(plain))
    plain.fill(0)
    return parsed.success ? parsed.data : undefined
  }
  const open = async <schema extends z.ZodMiniType<string>>(
    name: string,
    schema: schema,
    source: Backend = backend,
  ) => openRecord(name, await source.get(name), schema)

  const read = async <schema extends z.ZodMiniType>(
    name: string,
    schema: schema,
    source: Backend,
  ) => {
    const parsed = schema.safeParse(await source.get(name))
    return parsed.success ? (parsed.data as z.infer<schema>) : undefined
  }

  let deviceId: Promise<string> | undefined
  const shareKey = (userId: string) => `deviceShare:${userId}`

  return {
    getDeviceId() {
      deviceId ??= (async () => {
        const stored = await backend.get('deviceId')
        const opened = await openRecord('deviceId', stored, DeviceId)
        if (opened) return opened
        const created = createRandomId()
        const record = await sealRecord('deviceId', created)
        // Another frame of this partition may have made one meanwhile: the first one stays.
        if (stored === undefined) {
          const kept = await backend.setIfAbsent('deviceId', record)
          if (kept !== record) {
            const other = await openRecord('deviceId', kept, DeviceId)
            if (other) return other
          } else return created
        }
        await backend.set('deviceId', record)
        return created
      })().catch((error: unknown) => {
        deviceId = undefined
        throw error
      })
      return deviceId
    },
    getDeviceShare: (userId) => open(shareKey(userId), Share),
    setDeviceShare: async (userId, share) => seal(shareKey(userId), Share.parse(share)),
    getToken: async () => open(inScope('token'), Token, await session()),
    setToken: async (token) => seal(inScope('token'), Token.parse(token), await session()),
    getUser: async () => read(inScope('user'), CachedUser, await session()),
    setUser: async (user) => (await session()).set(inScope('user'), CachedUser.parse(user)),
    getChainId: async () => read(inScope('chainId'), ChainId, await session()),
    setChainId: async (chainId) =>
      (await session()).set(inScope('chainId'), ChainId.parse(chainId)),
    async clearSession() {
      const target = await session()
      await target.delete(inScope('token'))
      await target.delete(inScope('user'))
    },
  }
}
