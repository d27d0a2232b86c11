import { describe, expect, test } from 'vitest'
import { createStore, initialState, type WidgetState } from '../state/store.js'
import { requestSecureFrame, SecureFrameUnavailableError, waitForSecureChannel } from './frame.js'
import { hasEmbeddedSession, noteEmbeddedSession } from './session.js'

const storeWith = (patch: Partial<WidgetState>) => createStore({ ...initialState, ...patch })

describe('the secure frame, made only when an embedded wallet is in play', () => {
  test('nobody asked for it: a passive wait (a reconnect check) fails at once', async () => {
    const target = storeWith({ verification: 'verified' })
    await expect(waitForSecureChannel(60_000, target)).rejects.toBeInstanceOf(
      SecureFrameUnavailableError,
    )
  })

  test('asked for while the host is being checked: the wait goes on, and fails when the host is refused', async () => {
    const target = storeWith({ verification: 'pending' })
    requestSecureFrame(target)
    expect(target.getState().secureFrameWanted).toBe(true)
    let settled = false
    const wait = waitForSecureChannel(60_000, target).finally(() => {
      settled = true
    })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(settled).toBe(false)
    target.setState({ verification: 'unverified' })
    await expect(wait).rejects.toBeInstanceOf(SecureFrameUnavailableError)
  })

  test('the embedded-session note is per host origin, set and cleared', () => {
    const a = storeWith({ hostOrigin: 'https://a.example' })
    const b = storeWith({ hostOrigin: 'https://b.example' })
    noteEmbeddedSession(true, a)
    expect(hasEmbeddedSession('https://a.example')).toBe(true)
    expect(hasEmbeddedSession('https://b.example')).toBe(false)
    noteEmbeddedSession(false, b)
    expect(hasEmbeddedSession('https://a.example')).toBe(true)
    noteEmbeddedSession(false, a)
    expect(hasEmbeddedSession('https://a.example')).toBe(false)
  })
})
