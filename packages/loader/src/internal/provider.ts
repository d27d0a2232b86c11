/** The EIP-1193 provider the host sees: requests go to the widget, events come from it. */
import { fromRpcErrorShape } from '@porthole/protocol/Errors'
import type { ProviderEvent, ProviderRequest } from '@porthole/protocol/Host'
import { isErrorShape } from '@porthole/protocol/Wire'
import { toProviderRequest } from './requestArguments.js'

/** EIP-1193's `ProviderRpcError`: an `Error` with a JSON-RPC / EIP-1193 code. */
export type ProviderRpcError = Error & { code: number; data?: unknown }

export type RequestArguments = {
  readonly method: string
  readonly params?: readonly unknown[] | object | undefined
}

/** The events of EIP-1193 and what their listeners receive. */
export type ProviderEvents = {
  connect: { chainId: string }
  disconnect: ProviderRpcError
  accountsChanged: readonly string[]
  chainChanged: string
}

export type Provider = {
  request(args: RequestArguments): Promise<unknown>
  on<event extends keyof ProviderEvents>(
    event: event,
    listener: (data: ProviderEvents[event]) => void,
  ): Provider
  removeListener<event extends keyof ProviderEvents>(
    event: event,
    listener: (data: ProviderEvents[event]) => void,
  ): Provider
}

type Listener = (data: never) => void

/**
 * Calls each listener with the value. What a listener throws is reported
 * (`reportError`: the page's console and `error` event see it, as an uncaught
 * error) and the other listeners still run.
 */
export function notify<value>(listeners: Iterable<(value: value) => void>, value: value): void {
  for (const listener of [...listeners]) {
    try {
      listener(value)
    } catch (error) {
      reportError(error)
    }
  }
}

export type CreateProviderResult = {
  provider: Provider
  /** Delivers a `providerEvent` from the widget to the host's listeners. */
  emit(event: ProviderEvent): void
  /** Forgets every listener. */
  clear(): void
}

/** `send` forwards a checked request to the widget and settles with its answer. */
export function createProvider(
  send: (request: ProviderRequest) => Promise<unknown>,
): CreateProviderResult {
  const listeners = new Map<string, Set<Listener>>()
  const provider: Provider = Object.freeze({
    request: (args: RequestArguments) =>
      new Promise<ProviderRequest>((resolve) => resolve(toProviderRequest(args))).then(send),
    on(event: string, listener: Listener) {
      listeners.set(event, (listeners.get(event) ?? new Set()).add(listener))
      return provider
    },
    removeListener(event: string, listener: Listener) {
      listeners.get(event)?.delete(listener)
      return provider
    },
  })
  return {
    provider,
    emit({ event, data }) {
      const value = event === 'disconnect' && isErrorShape(data) ? fromRpcErrorShape(data) : data
      notify(listeners.get(event) ?? [], value as never)
    },
    clear: () => listeners.clear(),
  }
}
