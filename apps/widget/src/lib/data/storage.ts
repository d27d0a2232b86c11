/**
 * `localStorage` that never throws. In a partitioned or blocked third-party
 * iframe even reading `window.localStorage` throws a `SecurityError`; then the
 * values live in memory for the life of the page (SECURITY.md 16).
 */
export type SafeStorage = {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
  /** Whether values reach the browser's storage, or only memory. */
  readonly persistent: boolean
}

export function createSafeStorage(getStorage: () => Storage | undefined): SafeStorage {
  const memory = new Map<string, string>()
  let storage: Storage | undefined
  try {
    storage = getStorage()
    if (storage) {
      // Probe once: some browsers expose the object but throw on use.
      const probe = '__porthole_probe__'
      storage.setItem(probe, probe)
      storage.removeItem(probe)
    }
  } catch {
    storage = undefined
  }
  const attempt = <result>(action: (storage: Storage) => result, fallback: () => result) => {
    if (!storage) return fallback()
    try {
      return action(storage)
    } catch {
      return fallback()
    }
  }
  return {
    get persistent() {
      return storage !== undefined
    },
    getItem: (key) =>
      memory.get(key) ??
      attempt(
        (storage) => storage.getItem(key),
        () => null,
      ),
    setItem: (key, value) => {
      memory.set(key, value)
      attempt(
        (storage) => storage.setItem(key, value),
        () => undefined,
      )
    },
    removeItem: (key) => {
      memory.delete(key)
      attempt(
        (storage) => storage.removeItem(key),
        () => undefined,
      )
    },
  }
}

export const storage: SafeStorage = createSafeStorage(() => globalThis.localStorage)

const clientIdKey = 'porthole.clientId'
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The anonymous client id appended to every API call: a random UUID, kept across visits when storage allows. */
export function getClientId(from: SafeStorage = storage): string {
  const stored = from.getItem(clientIdKey)
  if (stored !== null && uuidPattern.test(stored)) return stored
  const id = crypto.randomUUID()
  from.setItem(clientIdKey, id)
  return id
}
