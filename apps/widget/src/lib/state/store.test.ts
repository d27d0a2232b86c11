import { describe, expect, test, vi } from 'vitest'
import { createStore, dismissAlert, initialState, raiseAlert, type WidgetState } from './store.js'

describe('createStore', () => {
  test('notifies subscribers of a change, and only of a change', () => {
    const store = createStore({ a: 1, b: 'x' })
    const listener = vi.fn()
    const unsubscribe = store.subscribe(listener)
    store.setState({ a: 1 })
    expect(listener).not.toHaveBeenCalled()
    store.setState((state) => ({ a: state.a + 1 }))
    expect(listener).toHaveBeenCalledTimes(1)
    expect(store.getState()).toEqual({ a: 2, b: 'x' })
    unsubscribe()
    store.setState({ b: 'y' })
    expect(listener).toHaveBeenCalledTimes(1)
  })

  test('keeps the state object when nothing changed (stable for useSyncExternalStore)', () => {
    const store = createStore({ a: 1 })
    const before = store.getState()
    store.setState({ a: 1 })
    expect(store.getState()).toBe(before)
  })
})

describe('raiseAlert', () => {
  test('adds an alert once per code, and dismissAlert removes it', () => {
    const store = createStore<WidgetState>(initialState)
    raiseAlert({ code: 'IFRAME_LOAD_FAILED', message: 'a' }, store)
    raiseAlert({ code: 'IFRAME_LOAD_FAILED', message: 'b' }, store)
    const alerts = store.getState().alerts
    expect(alerts.map((alert) => alert.message)).toEqual(['a'])
    dismissAlert(alerts[0]?.id ?? 0, store)
    expect(store.getState().alerts).toEqual([])
  })

  test('bounds the message to the alert event limit', () => {
    const store = createStore<WidgetState>(initialState)
    raiseAlert({ code: 'SERVER_ERROR', message: 'x'.repeat(2_000) }, store)
    expect(store.getState().alerts[0]?.message).toHaveLength(512)
  })
})
