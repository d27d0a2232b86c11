/** Tests only: a handler context over the in-memory API and storage, with a scripted approval UI. */
import type { Call } from '../src/handlers/handler.js'
import { type Context, createMemory, type RequestApproval } from '../src/wallet/session.js'
import { createMemoryBackend, createStorage } from '../src/wallet/storage.js'
import { createMemoryApi, type MemoryApi } from './memoryApi.js'

/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true

export type TestContext = Context & {
  api: MemoryApi
  backend: ReturnType<typeof createMemoryBackend>
}

export function createTestContext(overrides: Partial<TestContext> = {}): TestContext {
  const backend = overrides.backend ?? createMemoryBackend()
  const refuse: RequestApproval = () => Promise.reject(new Error('No approval expected'))
  return {
    api: createMemoryApi(),
    storage: createStorage(backend, {
      scope: { origin: 'https://host.example', projectId: 'porthole-dev' },
    }),
    memory: createMemory(),
    requestApproval: refuse,
    ancestorOrigin: () => 'https://host.example',
    pollInterval: 5,
    reload: () => {},
    ...overrides,
    backend,
  }
}

/** Logs `email` in through the email code flow of `context` (no device verification needed). */
export async function loginWithEmail(
  context: TestContext,
  email: string,
  handlers: {
    connectEmail: (params: { email: string }, context: Context) => Promise<{ action: string }>
    connectOtp: (params: { otp: string }, context: Context) => Promise<undefined>
  },
): Promise<void> {
  const { action } = await handlers.connectEmail({ email }, context)
  if (action === 'CONNECT') return
  if (action !== 'VERIFY_OTP') throw new Error(`Unexpected action ${action}`)
  await handlers.connectOtp({ otp: context.api.codeFor(email) ?? '' }, context)
}

/** A call as the frame's channel passes it to a handler: a signal, the widget's origin, events dropped. */
export function createCall(signal = new AbortController().signal): Call {
  return { signal, origin: 'http://widget.localhost:5171', emit: () => {} }
}
