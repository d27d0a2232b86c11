import { afterAll, expect, test, vi } from 'vitest'
import { hostHandshake } from './handshake.js'

/** A framed widget's window, as far as the handshake touches it: its parent records what it is posted. */
function framedWindow() {
  const posted: unknown[] = []
  const listeners: ((event: unknown) => void)[] = []
  const parent = { postMessage: (data: unknown) => posted.push(data) }
  const self = {
    parent,
    addEventListener: (type: string, listener: (event: unknown) => void) => {
      if (type === 'message') listeners.push(listener)
    },
  }
  return { self, parent, posted, listeners }
}

afterAll(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

// One test: the handshake lives on the global for the life of the page, like the widget's window.
test('one handshake per window, whoever asks first; the first valid hello settles it, and nothing replaces it', async () => {
  vi.useFakeTimers()
  const { self, parent, posted, listeners } = framedWindow()
  vi.stubGlobal('window', self)

  // The prefetch script and the app's entry both ask: one listener, one ready.
  const first = hostHandshake()
  expect(hostHandshake()).toBe(first)
  expect(listeners).toHaveLength(1)
  expect(posted).toEqual([
    { porthole: 1, kind: 'ready', channel: 'porthole:host-widget', id: expect.any(String) },
  ])
  const { id } = posted[0] as { id: string }

  // Another script of the page cannot swap in a handshake of its own (red team).
  const key = Symbol.for('porthole.handshake')
  const forged = Promise.resolve({ port: null, origin: 'https://evil.example' })
  expect(Reflect.set(globalThis, key, forged)).toBe(false)
  expect(Reflect.defineProperty(globalThis, key, { value: forged })).toBe(false)
  expect(Reflect.deleteProperty(globalThis, key)).toBe(false)
  expect(hostHandshake()).toBe(first)

  // The parent's hello for this document, with one port, settles it.
  const { port1, port2 } = new MessageChannel()
  const hello = { porthole: 1, kind: 'hello', channel: 'porthole:host-widget', id }
  listeners[0]?.({ data: hello, source: parent, origin: 'https://host.example', ports: [port2] })
  await expect(first).resolves.toEqual({ port: port2, origin: 'https://host.example' })
  port1.close()
  port2.close()
})
