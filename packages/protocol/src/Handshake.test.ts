import { afterEach, describe, expect, test, vi } from 'vitest'
import { iframeLoadTimeout } from './Constants.js'
import * as Handshake from './Handshake.js'
import { uuidPattern } from './Wire.js'

type Listener = (event: Partial<MessageEvent>) => void

/** A stand-in window: just enough for `accept` to listen on and for `connect` to post to. */
function fakeWindow(parent?: object) {
  const listeners: Listener[] = []
  const posted: Array<{ data: unknown; origin: string; ports: MessagePort[] }> = []
  const self = {
    parent: parent ?? null,
    addEventListener: (_: string, listener: Listener) => listeners.push(listener),
    postMessage: (data: unknown, origin: string, ports: MessagePort[] = []) =>
      posted.push({ data, origin, ports }),
    deliver: (event: Partial<MessageEvent>) => {
      for (const listener of listeners) listener({ ports: [], ...event })
    },
    posted,
  }
  if (!parent) self.parent = self
  return self
}

/** The document id in the first ready a child posted to `parent`. */
const readyIdOf = (parent: ReturnType<typeof fakeWindow>) =>
  (parent.posted[0]?.data as { id?: string } | undefined)?.id

const ports: MessagePort[] = []
afterEach(() => {
  for (const port of ports.splice(0)) port.close()
})
const hello = { porthole: 1, kind: 'hello', channel: 'test' }
const newPort = () => {
  const { port1, port2 } = new MessageChannel()
  ports.push(port1, port2)
  return port2
}

describe('inv-01 accept', () => {
  test('takes the first hello from the parent and binds its browser-supplied origin', async () => {
    const parent = fakeWindow()
    const child = fakeWindow(parent)
    const accepted = Handshake.accept({ channel: 'test', window: child as unknown as Window })
    child.deliver({
      data: hello,
      origin: 'http://host.test',
      source: parent as never,
      ports: [newPort()],
    })
    await expect(accepted).resolves.toMatchObject({ origin: 'http://host.test' })
  })

  test.each([
    ['a sibling frame', { source: {} }],
    ['an opaque origin', { origin: 'null' }],
    ['no port', { ports: [] }],
    ['the wrong channel', { data: { ...hello, channel: 'other' } }],
    ['extra keys', { data: { ...hello, x: 1 } }],
  ])('refuses a hello from %s', async (_, override) => {
    const parent = fakeWindow()
    const child = fakeWindow(parent)
    const onRefuse = vi.fn()
    const accepted = vi.fn()
    void Handshake.accept({ channel: 'test', window: child as unknown as Window, onRefuse }).then(
      accepted,
    )
    child.deliver({
      data: hello,
      origin: 'http://host.test',
      source: parent as never,
      ports: [newPort()],
      ...override,
    } as Partial<MessageEvent>)
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(accepted).not.toHaveBeenCalled()
    expect(onRefuse).toHaveBeenCalledTimes(1)
  })

  test('refuses an origin the check rejects', async () => {
    const parent = fakeWindow()
    const child = fakeWindow(parent)
    const onRefuse = vi.fn()
    void Handshake.accept({
      channel: 'test',
      window: child as unknown as Window,
      isAllowedOrigin: (origin) => origin === 'http://widget.test',
      onRefuse,
    })
    child.deliver({
      data: hello,
      origin: 'http://evil.test',
      source: parent as never,
      ports: [newPort()],
    })
    expect(onRefuse).toHaveBeenCalledWith('origin')
  })

  test('inv-03 a second handshake on a live channel is refused', async () => {
    const parent = fakeWindow()
    const child = fakeWindow(parent)
    const onRefuse = vi.fn()
    const accepted = Handshake.accept({
      channel: 'test',
      window: child as unknown as Window,
      onRefuse,
    })
    const event = { data: hello, origin: 'http://host.test', source: parent as never }
    child.deliver({ ...event, ports: [newPort()] })
    child.deliver({ ...event, origin: 'http://other.test', ports: [newPort()] })
    await expect(accepted).resolves.toMatchObject({ origin: 'http://host.test' })
    expect(onRefuse).toHaveBeenCalledWith('second handshake')
  })

  test('a top-level page (no parent) accepts nothing', () => {
    const top = fakeWindow()
    const onRefuse = vi.fn()
    void Handshake.accept({ channel: 'test', window: top as unknown as Window, onRefuse })
    top.deliver({
      data: hello,
      origin: 'http://host.test',
      source: top as never,
      ports: [newPort()],
    })
    expect(onRefuse).toHaveBeenCalledWith('source')
  })
})

describe('inv-02 ready', () => {
  test('with readyTo, the child tells its parent it listens: the channel name and its document id, nothing else', () => {
    const parent = fakeWindow()
    const child = fakeWindow(parent)
    void Handshake.accept({ channel: 'test', window: child as unknown as Window, readyTo: '*' })
    expect(parent.posted).toEqual([
      {
        data: {
          porthole: 1,
          kind: 'ready',
          channel: 'test',
          id: expect.stringMatching(uuidPattern),
        },
        origin: '*',
        ports: [],
      },
    ])
  })

  test('the ready repeats, the same each time, until a hello is accepted; then no more', () => {
    vi.useFakeTimers()
    try {
      const parent = fakeWindow()
      const child = fakeWindow(parent)
      void Handshake.accept({ channel: 'test', window: child as unknown as Window, readyTo: '*' })
      vi.advanceTimersByTime(Handshake.readyRepeat * 3)
      expect(parent.posted).toHaveLength(4)
      expect(new Set(parent.posted.map(({ data }) => JSON.stringify(data))).size).toBe(1)
      // A refused hello (here, from another window than the parent) does not stop it.
      child.deliver({
        data: hello,
        source: fakeWindow() as unknown as Window,
        origin: 'http://host.test',
      })
      vi.advanceTimersByTime(Handshake.readyRepeat)
      expect(parent.posted).toHaveLength(5)
      const id = readyIdOf(parent)
      child.deliver({
        data: { ...hello, id },
        source: parent as unknown as Window,
        origin: 'http://host.test',
        ports: [newPort()],
      })
      vi.advanceTimersByTime(Handshake.readyRepeat * 10)
      expect(parent.posted).toHaveLength(5)
    } finally {
      vi.useRealTimers()
    }
  })

  test('with no hello, the ready stops after the frame load timeout', () => {
    vi.useFakeTimers()
    try {
      const parent = fakeWindow()
      void Handshake.accept({
        channel: 'test',
        window: fakeWindow(parent) as unknown as Window,
        readyTo: '*',
      })
      vi.advanceTimersByTime(iframeLoadTimeout)
      const posted = parent.posted.length
      expect(posted).toBe(iframeLoadTimeout / Handshake.readyRepeat + 1)
      vi.advanceTimersByTime(iframeLoadTimeout)
      expect(parent.posted).toHaveLength(posted)
    } finally {
      vi.useRealTimers()
    }
  })

  test('without readyTo, or with no parent, no ready is posted', () => {
    const parent = fakeWindow()
    void Handshake.accept({ channel: 'test', window: fakeWindow(parent) as unknown as Window })
    const top = fakeWindow()
    void Handshake.accept({ channel: 'test', window: top as unknown as Window, readyTo: '*' })
    expect(parent.posted).toEqual([])
    expect(top.posted).toEqual([])
  })
})

describe('inv-03 a hello names the document whose ready it answers', () => {
  test('a hello with another document id, or none, is refused and uses up nothing; the right one is accepted', async () => {
    const parent = fakeWindow()
    const child = fakeWindow(parent)
    const onRefuse = vi.fn()
    const accepted = Handshake.accept({
      channel: 'test',
      window: child as unknown as Window,
      readyTo: '*',
      onRefuse,
    })
    const id = readyIdOf(parent)
    const from = { source: parent as unknown as Window, origin: 'http://host.test' }
    // The document before a reload, answered late; and a hello naming no document.
    const stale = newPort()
    child.deliver({ ...from, data: { ...hello, id: crypto.randomUUID() }, ports: [stale] })
    child.deliver({ ...from, data: hello, ports: [newPort()] })
    expect(onRefuse.mock.calls).toEqual([['document'], ['document']])
    const port = newPort()
    child.deliver({ ...from, data: { ...hello, id }, ports: [port] })
    expect(await accepted).toEqual({ port, origin: 'http://host.test' })
  })

  test('without a ready (the secure frame), a hello names no document', async () => {
    const parent = fakeWindow()
    const child = fakeWindow(parent)
    const accepted = Handshake.accept({ channel: 'test', window: child as unknown as Window })
    const port = newPort()
    child.deliver({
      source: parent as unknown as Window,
      origin: 'http://w.test',
      data: hello,
      ports: [port],
    })
    expect((await accepted).port).toBe(port)
  })
})

describe('inv-02 connect', () => {
  test('the hello carries the id it is given: the document it is for', () => {
    const target = fakeWindow()
    const id = crypto.randomUUID()
    void Handshake.connect({
      target: target as unknown as Window,
      origin: 'http://widget.test',
      channel: 'test',
      id,
      timeout: 1,
    }).catch(() => {})
    expect(target.posted[0]?.data).toEqual({ porthole: 1, kind: 'hello', channel: 'test', id })
    ports.push(target.posted[0]?.ports[0] as MessagePort)
  })

  test('posts the hello to the exact origin, never *, and resolves on welcome', async () => {
    const target = fakeWindow()
    const connected = Handshake.connect({
      target: target as unknown as Window,
      origin: 'http://widget.test',
      channel: 'test',
    })
    const [message] = target.posted
    expect(message?.origin).toBe('http://widget.test')
    const port = message?.ports[0] as MessagePort
    ports.push(port)
    port.postMessage({ porthole: 1, kind: 'welcome', channel: 'test' })
    const result = await connected
    ports.push(result)
    expect(result).toBeDefined()
  })

  test('times out with iframe_load_failed when no welcome comes', async () => {
    const target = fakeWindow()
    const error = await Handshake.connect({
      target: target as unknown as Window,
      origin: 'http://widget.test',
      channel: 'test',
      timeout: 20,
    }).catch((e) => e)
    ports.push(...(target.posted[0]?.ports ?? []))
    expect(error.data).toEqual({ reason: 'iframe_load_failed' })
  })
})

describe('inv-02 connect refuses a target that is not one exact origin', () => {
  test.each(['*', '/', 'http://widget.test/path'])('%s', (origin) => {
    const target = fakeWindow()
    expect(() =>
      Handshake.connect({ target: target as unknown as Window, origin, channel: 'test' }),
    ).toThrow()
    expect(target.posted).toEqual([])
  })
})
