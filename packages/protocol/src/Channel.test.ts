import fc from 'fast-check'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { z } from 'zod'
import * as Channel from './Channel.js'
import { defaultRequestTimeout, maxMessageBytes } from './Constants.js'
import * as Contract from './Contract.js'
import { ErrorCode, ErrorMessage, RpcError, UserRejectedError } from './Errors.js'

const server = {
  requests: {
    echo: { params: z.strictObject({ text: z.string().max(10) }), result: z.string() },
    slow: { params: z.undefined(), result: z.number() },
    fail: { params: z.undefined(), result: z.undefined() },
    crash: { params: z.undefined(), result: z.undefined() },
    unhandled: { params: z.undefined(), result: z.undefined() },
  },
  events: { ping: z.strictObject({ n: z.number() }) },
} as const
const client = { requests: {}, events: { state: z.strictObject({ open: z.boolean() }) } } as const

const open: Array<{ destroy(): void }> = []
afterEach(() => {
  for (const channel of open.splice(0)) channel.destroy()
  vi.useRealTimers()
})

function pair() {
  const { port1, port2 } = new MessageChannel()
  const a = Channel.create({
    port: port1,
    origin: 'http://server.test',
    parsers: Contract.parsers(client, server),
  })
  const b = Channel.create({
    port: port2,
    origin: 'http://client.test',
    parsers: Contract.parsers(server, client),
  })
  open.push(a, b)
  b.handle('echo', ({ text }) => text.toUpperCase())
  b.handle('fail', () => {
    throw new UserRejectedError()
  })
  b.handle('crash', () => {
    throw new Error('secret stack and key material')
  })
  return { a, b, port1, port2 }
}

/** A bare port on one side, so tests can post raw messages at a channel. */
function raw() {
  const { port1, port2 } = new MessageChannel()
  // Each message dropped, by reason.
  const drops: string[] = []
  const channel = Channel.create({
    port: port1,
    origin: 'http://peer.test',
    parsers: Contract.parsers(client, server),
    onDrop: (reason) => drops.push(reason),
  })
  open.push(channel, { destroy: () => port2.close() })
  const sent: unknown[] = []
  port2.addEventListener('message', (event) => sent.push((event as MessageEvent).data))
  port2.start()
  return { channel, peer: port2, sent, drops }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20))

describe('request', () => {
  test('resolves with the parsed result', async () => {
    const { a } = pair()
    await expect(a.request('echo', { text: 'hi' })).resolves.toBe('HI')
  })

  test('invalid params are refused with -32602 before the handler runs', async () => {
    const { a, b } = pair()
    const handler = vi.fn(() => 'x')
    b.handle('echo', handler)
    // @ts-expect-error: wrong params on purpose
    const error = await a.request('echo', { text: 5 }).catch((e: RpcError) => e)
    expect(error).toBeInstanceOf(RpcError)
    expect((error as RpcError).code).toBe(ErrorCode.invalidParams)
    expect(handler).not.toHaveBeenCalled()
  })

  test('a method without a handler answers 4200', async () => {
    const { a } = pair()
    await expect(a.request('unhandled', undefined)).rejects.toMatchObject({
      code: ErrorCode.unsupportedMethod,
    })
  })

  test('our errors keep code and message across the port', async () => {
    const { a } = pair()
    await expect(a.request('fail', undefined)).rejects.toMatchObject({
      code: ErrorCode.userRejected,
    })
  })

  test('a foreign error crosses only as Something went wrong', async () => {
    const { a } = pair()
    const error = (await a.request('crash', undefined).catch((e) => e)) as RpcError
    expect(error.shortMessage).toBe(ErrorMessage.somethingWentWrong)
    expect(JSON.stringify(error.toJSON())).not.toContain('secret')
  })

  test('times out with the iframe_request_timeout reason, and forgets the request', async () => {
    const { channel, peer, sent, drops } = raw()
    const result = channel.request('slow', undefined, { timeout: 30 })
    const error = (await result.catch((e) => e)) as RpcError
    expect(error.data).toEqual({ reason: 'iframe_request_timeout' })
    // A reply after the timeout matches nothing pending.
    const { id } = sent[0] as { id: string }
    peer.postMessage({ porthole: 1, kind: 'res', id, ok: true, result: 1 })
    await settle()
    expect(drops).toEqual(['unknown id'])
  })

  test('uses the default timeout when none is given', async () => {
    vi.useFakeTimers()
    const { a, b } = pair()
    b.handle('slow', () => new Promise<number>(() => {}))
    const result = a.request('slow', undefined).catch((e: RpcError) => e.data)
    await vi.advanceTimersByTimeAsync(defaultRequestTimeout + 1)
    await expect(result).resolves.toEqual({ reason: 'iframe_request_timeout' })
  })

  test('an abort rejects with Request was aborted and cancels the handler', async () => {
    const { a, b } = pair()
    let handlerSignal: AbortSignal | undefined
    b.handle('slow', (_, { signal }) => {
      handlerSignal = signal
      return new Promise<number>(() => {})
    })
    const controller = new AbortController()
    const result = a.request('slow', undefined, { signal: controller.signal })
    await settle()
    controller.abort()
    await expect(result).rejects.toMatchObject({ shortMessage: 'Request was aborted' })
    await settle()
    expect(handlerSignal?.aborted).toBe(true)
  })

  test('destroy rejects everything pending and later requests', async () => {
    const { a, b } = pair()
    b.handle('slow', () => new Promise<number>(() => {}))
    const first = a.request('slow', undefined)
    const second = a.request('slow', undefined)
    a.destroy()
    await expect(first).rejects.toMatchObject({ code: ErrorCode.disconnected })
    await expect(second).rejects.toMatchObject({ code: ErrorCode.disconnected })
    await expect(a.request('slow', undefined)).rejects.toMatchObject({
      code: ErrorCode.disconnected,
    })
    expect(a.closed).toBe(true)
  })

  test('destroy with a reason rejects with it', async () => {
    const { a, b } = pair()
    b.handle('slow', () => new Promise<number>(() => {}))
    const pending = a.request('slow', undefined)
    a.destroy(new UserRejectedError('User closed the modal.'))
    await expect(pending).rejects.toMatchObject({ code: 4001 })
  })
})

describe('inv-10 replies', () => {
  test('a reply is accepted once, for a pending id only', async () => {
    const { channel, peer, sent, drops } = raw()
    const result = channel.request('slow', undefined, { timeout: 1_000 })
    await settle()
    const request = sent[0] as { id: string }
    peer.postMessage({ porthole: 1, kind: 'res', id: request.id, ok: true, result: 1 })
    peer.postMessage({ porthole: 1, kind: 'res', id: request.id, ok: true, result: 2 })
    peer.postMessage({ porthole: 1, kind: 'res', id: crypto.randomUUID(), ok: true, result: 3 })
    await expect(result).resolves.toBe(1)
    await settle()
    expect(drops).toEqual(['unknown id', 'unknown id'])
  })

  test('a reply with a result that fails its schema is dropped, not settled', async () => {
    const { channel, peer, sent, drops } = raw()
    const result = channel.request('slow', undefined, { timeout: 1_000 })
    await settle()
    const { id } = sent[0] as { id: string }
    peer.postMessage({ porthole: 1, kind: 'res', id, ok: true, result: 'not a number' })
    await settle()
    expect(drops).toEqual(['invalid result'])
    peer.postMessage({ porthole: 1, kind: 'res', id, ok: true, result: 7 })
    await expect(result).resolves.toBe(7)
  })

  test('request ids are random UUIDs', async () => {
    const { channel, sent } = raw()
    for (let index = 0; index < 3; index++)
      channel.request('slow', undefined, { timeout: 50 }).catch(() => {})
    await settle()
    const ids = sent.map((message) => (message as { id: string }).id)
    expect(new Set(ids).size).toBe(3)
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe('events', () => {
  test('parsed events reach listeners; invalid ones are dropped', async () => {
    const { channel, peer, drops } = raw()
    const seen: unknown[] = []
    channel.on('state', (state) => seen.push(state))
    peer.postMessage({ porthole: 1, kind: 'evt', name: 'state', data: { open: true } })
    peer.postMessage({ porthole: 1, kind: 'evt', name: 'state', data: { open: 'yes' } })
    peer.postMessage({ porthole: 1, kind: 'evt', name: 'other', data: {} })
    peer.postMessage({ porthole: 1, kind: 'evt', name: 'toString' })
    await settle()
    expect(seen).toEqual([{ open: true }])
    expect(drops).toEqual(['invalid event', 'unknown event', 'unknown event'])
  })

  test('emit reaches the other side', async () => {
    const { a, b } = pair()
    const seen: unknown[] = []
    b.on('ping', (data) => seen.push(data))
    a.emit('ping', { n: 1 })
    await settle()
    expect(seen).toEqual([{ n: 1 }])
  })
})

describe('inv-18 fuzz', () => {
  test('random and mutated messages never throw, never settle a request, never emit', async () => {
    const { channel, peer, sent } = raw()
    const listener = vi.fn()
    channel.on('state', listener)
    const settled = vi.fn()
    channel.request('slow', undefined, { timeout: 60_000 }).then(settled, settled)
    await settle()
    const { id } = sent[0] as { id: string }
    const mutated = fc.oneof(
      fc.anything({ withNullPrototype: true }),
      // Well-formed requests for methods this side does not serve.
      fc.record(
        {
          porthole: fc.constant(1),
          kind: fc.constant('req'),
          id: fc.uuid(),
          method: fc.constantFrom('echo', 'slow', 'open', 'toString'),
          params: fc.anything(),
        },
        { requiredKeys: ['porthole', 'kind', 'id', 'method'] },
      ),
      fc.record(
        {
          porthole: fc.constantFrom(1, 0, '1'),
          kind: fc.constantFrom('res', 'evt', 'req', 'cancel'),
          id: fc.constantFrom(id, id.toUpperCase(), `${id} `, crypto.randomUUID()),
          ok: fc.constantFrom(true, false, 'true'),
          result: fc.oneof(fc.string(), fc.object()),
          error: fc.anything(),
          name: fc.constantFrom('state', '__proto__', 'constructor'),
          method: fc.constantFrom('echo', 'slow', 'open', '__proto__', 'toString'),
          data: fc.anything(),
          junk: fc.anything(),
        },
        { requiredKeys: ['porthole', 'kind'] },
      ),
    )
    const messages = fc.sample(mutated, { numRuns: 1_500, seed: 42 })
    for (const message of messages) {
      try {
        peer.postMessage(message)
      } catch {
        // not cloneable: the browser would not deliver it either
      }
    }
    await settle()
    await settle()
    expect(settled).not.toHaveBeenCalled()
    expect(listener).not.toHaveBeenCalled()
    expect(channel.closed).toBe(false)
    // Requests from the fuzz may be answered (with errors), never acted on: this side has no handlers.
    const answers = sent.slice(1)
    expect(answers.length).toBeGreaterThan(0)
    for (const message of answers) expect(message).toMatchObject({ kind: 'res', ok: false })
    // The request is still pending: its own reply settles it.
    peer.postMessage({ porthole: 1, kind: 'res', id, ok: true, result: 5 })
    await settle()
    expect(settled).toHaveBeenCalledWith(5)
  })
})

/** `levels` of `n = { a: n, b: n }`: a few hundred bytes as a clone, 2^levels nodes as JSON. */
function sharedGraph(levels: number): unknown {
  let node: unknown = 'x'
  for (let level = 0; level < levels; level++) node = { a: node, b: node }
  return node
}

describe('inv-18 isWithinSize', () => {
  test('stops after a bounded number of nodes, however many a shared graph expands to', () => {
    let visited = 0
    // Getters count every node JSON.stringify asks for.
    const counting = (levels: number): unknown => {
      if (levels === 0) return 'x'
      const node = {}
      for (const key of ['a', 'b'])
        Object.defineProperty(node, key, {
          enumerable: true,
          get: () => {
            visited++
            return counting(levels - 1)
          },
        })
      return node
    }
    expect(Channel.isWithinSize(counting(40))).toBe(false)
    expect(visited).toBeLessThanOrEqual(maxMessageBytes)
  })

  test.each([
    {
      label: 'a small request',
      make: () => ({ porthole: 1, kind: 'req', id: 'x', method: 'echo', params: { text: 'hi' } }),
      ok: true,
    },
    {
      label: 'a string just under the bound',
      make: () => 'x'.repeat(maxMessageBytes - 100),
      ok: true,
    },
    { label: 'a string over the bound', make: () => 'x'.repeat(maxMessageBytes + 1), ok: false },
    { label: 'a shared graph of 28 levels', make: () => sharedGraph(28), ok: false },
  ])('$label → $ok', ({ make, ok }) => {
    expect(Channel.isWithinSize(make())).toBe(ok)
  })
})

describe('inv-17 a hostile peer', () => {
  test('a message that expands to 2^28 nodes is dropped, and the channel still answers', async () => {
    const drops: string[] = []
    const { port1: hostile, port2: target } = new MessageChannel()
    const victim = Channel.create({
      port: target,
      origin: 'http://peer.test',
      parsers: Contract.parsers(server, client),
      onDrop: (reason) => drops.push(reason),
    })
    open.push(victim, { destroy: () => hostile.close() })
    victim.handle('echo', ({ text }) => text.toUpperCase())
    const answers: unknown[] = []
    hostile.addEventListener('message', (event) => answers.push((event as MessageEvent).data))
    hostile.start()
    hostile.postMessage({
      porthole: 1,
      kind: 'req',
      id: crypto.randomUUID(),
      method: 'echo',
      params: sharedGraph(28),
    })
    const id = crypto.randomUUID()
    hostile.postMessage({ porthole: 1, kind: 'req', id, method: 'echo', params: { text: 'ok' } })
    await expect
      .poll(() => answers)
      .toContainEqual(expect.objectContaining({ id, ok: true, result: 'OK' }))
    expect(drops).toContain('malformed')
    expect(answers).toHaveLength(1)
  })
})
