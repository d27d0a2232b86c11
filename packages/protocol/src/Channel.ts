/**
 * A request/response and event channel over a `MessagePort` that a handshake
 * (see `Handshake.ts`) has bound to one peer. Every incoming message is parsed
 * before anything acts on it; a message that fails is dropped and counted.
 */
import { defaultRequestTimeout, maxMessageBytes } from './Constants.js'
import {
  AbortedError,
  DisconnectedError,
  fromRpcErrorShape,
  InvalidParamsError,
  type RpcError,
  TimeoutError,
  TimeoutReason,
  toRpcError,
  UnsupportedMethodError,
} from './Errors.js'
import { type Message, parseMessage, version } from './Wire.js'

/** What one side serves: the requests it answers and the events it receives. */
export type Spec = {
  requests: Record<string, { params: unknown; result: unknown }>
  events: Record<string, unknown>
}

/** A parser returns the parsed value or throws; zod's `schema.parse` is one. */
export type Parse<value> = (value: unknown) => value

/** Parsers for everything that arrives: our requests' params, our events, and the peer's results. */
export type Parsers<local extends Spec, remote extends Spec> = {
  params: { [method in keyof local['requests']]: Parse<local['requests'][method]['params']> }
  events: { [name in keyof local['events']]: Parse<local['events'][name]> }
  results: { [method in keyof remote['requests']]: Parse<remote['requests'][method]['result']> }
}

export type RequestOptions = {
  /** Milliseconds before the request rejects; defaults to 30 s. */
  timeout?: number | undefined
  /** The reason attached to the timeout error. */
  timeoutReason?: TimeoutReason | undefined
  signal?: AbortSignal | undefined
}

export type HandlerContext = { signal: AbortSignal; origin: string }

export type Channel<local extends Spec, remote extends Spec> = {
  /** The peer's origin, bound at the handshake by the browser's `event.origin`. */
  readonly origin: string
  readonly closed: boolean
  request<method extends keyof remote['requests'] & string>(
    method: method,
    params: remote['requests'][method]['params'],
    options?: RequestOptions,
  ): Promise<remote['requests'][method]['result']>
  handle<method extends keyof local['requests'] & string>(
    method: method,
    handler: (
      params: local['requests'][method]['params'],
      context: HandlerContext,
    ) => local['requests'][method]['result'] | Promise<local['requests'][method]['result']>,
  ): () => void
  emit<name extends keyof remote['events'] & string>(name: name, data: remote['events'][name]): void
  on<name extends keyof local['events'] & string>(
    name: name,
    listener: (data: local['events'][name]) => void,
  ): () => void
  /** Closes the port and rejects everything pending (with a disconnected error by default). */
  destroy(error?: RpcError): void
}

export type CreateParameters<local extends Spec, remote extends Spec> = {
  port: MessagePort
  origin: string
  parsers: Parsers<local, remote>
  /** Called for every dropped message, with a short reason (never the message). */
  onDrop?: ((reason: string) => void) | undefined
}

type Pending = {
  parse: Parse<unknown>
  resolve: (value: unknown) => void
  reject: (error: RpcError) => void
  cleanup: () => void
}

// biome-ignore lint/suspicious/noExplicitAny: handlers are typed at `handle`, stored erased.
type AnyHandler = (params: any, context: HandlerContext) => unknown

/**
 * Whether a structured-clone payload stays under the size bound, measured
 * with bounded work (SECURITY.md 17 and 18): a clone keeps shared
 * references, which a plain `JSON.stringify` would expand (28 levels of
 * `n = { a: n, b: n }` is 2^28 nodes). Every node visited costs its key and
 * its string (anything else 8), at least 1, and the walk stops once
 * `maxMessageBytes` is spent: a bounded number of nodes, whatever the shape.
 */
export function isWithinSize(value: unknown): boolean {
  let budget = maxMessageBytes
  try {
    // Past the budget nothing more is descended into.
    JSON.stringify(value, (key, item: unknown) => {
      budget -= key.length + (typeof item === 'string' ? item.length : 8)
      return budget < 0 ? undefined : item
    })
  } catch {
    return false
  }
  return budget >= 0
}

export function create<local extends Spec, remote extends Spec>(
  parameters: CreateParameters<local, remote>,
): Channel<local, remote> {
  const { port, origin, parsers, onDrop } = parameters
  const pending = new Map<string, Pending>()
  const handlers = new Map<string, AnyHandler>()
  const listeners = new Map<string, Set<(data: never) => void>>()
  const running = new Map<string, AbortController>()
  let closed = false

  const drop = (reason: string) => onDrop?.(reason)

  const post = (message: Message) => {
    if (!closed) port.postMessage(message)
  }

  const respond = async (id: string, method: string, params: unknown) => {
    const controller = new AbortController()
    try {
      const handler = handlers.get(method)
      const parse = (parsers.params as Record<string, Parse<unknown> | undefined>)[method]
      if (!handler || !parse || !Object.hasOwn(parsers.params, method))
        throw new UnsupportedMethodError(method)
      let parsed: unknown
      try {
        parsed = parse(params)
      } catch {
        throw new InvalidParamsError(`Invalid parameters for ${method}.`)
      }
      running.set(id, controller)
      const result = await handler(parsed, { signal: controller.signal, origin })
      if (controller.signal.aborted) return
      post(
        result === undefined
          ? { porthole: version, kind: 'res', id, ok: true }
          : { porthole: version, kind: 'res', id, ok: true, result },
      )
    } catch (error) {
      if (!controller.signal.aborted)
        post({ porthole: version, kind: 'res', id, ok: false, error: toRpcError(error).toJSON() })
    } finally {
      running.delete(id)
    }
  }

  const receive = (event: MessageEvent) => {
    if (closed) return
    const message = parseMessage(event.data)
    if (!message || !isWithinSize(event.data)) return drop('malformed')
    switch (message.kind) {
      case 'req':
        void respond(message.id, message.method, message.params)
        return
      case 'res': {
        const entry = pending.get(message.id)
        if (!entry) return drop('unknown id')
        if (!message.ok) {
          pending.delete(message.id)
          entry.cleanup()
          entry.reject(fromRpcErrorShape(message.error))
          return
        }
        let result: unknown
        try {
          result = entry.parse(message.result)
        } catch {
          return drop('invalid result')
        }
        pending.delete(message.id)
        entry.cleanup()
        entry.resolve(result)
        return
      }
      case 'evt': {
        const parse = (parsers.events as Record<string, Parse<unknown> | undefined>)[message.name]
        if (!parse || !Object.hasOwn(parsers.events, message.name)) return drop('unknown event')
        let data: unknown
        try {
          data = parse(message.data)
        } catch {
          return drop('invalid event')
        }
        for (const listener of listeners.get(message.name) ?? []) listener(data as never)
        return
      }
      case 'cancel': {
        const controller = running.get(message.id)
        if (!controller) return drop('unknown id')
        controller.abort()
        running.delete(message.id)
        return
      }
    }
  }

  // The port is the channel's alone: its handlers, set this way, also start it.
  port.onmessage = receive
  port.onmessageerror = () => drop('messageerror')

  return {
    origin,
    get closed() {
      return closed
    },
    request(method, params, options = {}) {
      const {
        timeout = defaultRequestTimeout,
        timeoutReason = TimeoutReason.iframeRequestTimeout,
        signal,
      } = options
      if (closed) return Promise.reject(new DisconnectedError())
      if (signal?.aborted) return Promise.reject(new AbortedError())
      const parse = (parsers.results as Record<string, Parse<unknown> | undefined>)[method]
      if (!parse) return Promise.reject(new UnsupportedMethodError(method))
      const id = crypto.randomUUID()
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          if (!pending.delete(id)) return
          cleanup()
          post({ porthole: version, kind: 'cancel', id })
          reject(new AbortedError())
        }
        const timer = setTimeout(() => {
          if (!pending.delete(id)) return
          cleanup()
          post({ porthole: version, kind: 'cancel', id })
          reject(new TimeoutError(timeoutReason))
        }, timeout)
        const cleanup = () => {
          clearTimeout(timer)
          signal?.removeEventListener('abort', onAbort)
        }
        signal?.addEventListener('abort', onAbort)
        pending.set(id, {
          parse,
          resolve: resolve as (value: unknown) => void,
          reject,
          cleanup,
        })
        post(
          params === undefined
            ? { porthole: version, kind: 'req', id, method }
            : { porthole: version, kind: 'req', id, method, params },
        )
      })
    },
    handle(method, handler) {
      handlers.set(method, handler as AnyHandler)
      return () => {
        if (handlers.get(method) === handler) handlers.delete(method)
      }
    },
    emit(name, data) {
      post(
        data === undefined
          ? { porthole: version, kind: 'evt', name }
          : { porthole: version, kind: 'evt', name, data },
      )
    },
    on(name, listener) {
      const set = listeners.get(name) ?? new Set()
      listeners.set(name, set)
      set.add(listener as (data: never) => void)
      return () => set.delete(listener as (data: never) => void)
    },
    destroy(error = new DisconnectedError()) {
      if (closed) return
      closed = true
      port.onmessage = null
      port.close()
      for (const entry of pending.values()) {
        entry.cleanup()
        entry.reject(error)
      }
      pending.clear()
      for (const controller of running.values()) controller.abort()
      running.clear()
      listeners.clear()
    },
  }
}
