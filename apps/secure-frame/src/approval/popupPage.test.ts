import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { createEvent, FakeDocument, type FakeElement, FakePopup } from '../../test/fakeDom.js'
import { popupDecidedCloseMs } from './openPopup.js'
import { notOpenedMessage, startApprovalPopup } from './popupPage.js'
import { messageType } from './popupProtocol.js'
import { type ApprovalRequest, hashRequest } from './request.js'

const origin = 'http://secure.localhost:5172'
const nonce = 'a'.repeat(32)
const account = '0x1111111111111111111111111111111111111111'
const value: ApprovalRequest = {
  method: 'personal_sign',
  params: ['0x6869', account],
  chainId: 'eip155:31337',
  account,
  origin: 'http://app.localhost:5170',
}

let document: FakeDocument
let root: FakeElement
/** Stands for the frame that opened the popup. */
let opener: FakePopup

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'],
  })
  document = new FakeDocument(origin)
  root = document.createElement('main')
  root.id = 'app'
  document.body.append(root)
  opener = new FakePopup()
  document.defaultView.opener = opener
  document.defaultView.location.pathname = '/approve.html'
  document.defaultView.location.hash = `#${nonce}`
})

afterEach(() => {
  vi.useRealTimers()
})

const start = () => startApprovalPopup(document.defaultView as unknown as Window)
const send = (data: unknown, from: { origin?: string; source?: unknown } = {}) =>
  document.defaultView.dispatchEvent(
    createEvent('message', {
      isTrusted: true,
      origin: from.origin ?? origin,
      source: from.source ?? opener,
      data,
    }),
  )
const requestMessage = (extra: Record<string, unknown> = {}) => ({
  type: messageType,
  kind: 'request',
  nonce,
  hash: hashRequest(value),
  request: value,
  ...extra,
})
const dialog = () => root.find((element) => element.getAttribute('role') === 'dialog')
const approve = () => {
  const button = root.button('Approve')
  if (!button) throw new Error('no Approve')
  return button
}
const focus = (focused: boolean) => {
  document.focused = focused
  document.defaultView.dispatchEvent(createEvent(focused ? 'focus' : 'blur', { isTrusted: true }))
}

describe('inv-15 startApprovalPopup', () => {
  test('removes the nonce from the URL and says ready to its opener only, at the exact origin', () => {
    start()
    expect(document.defaultView.location.hash).toBe('')
    expect(document.defaultView.history.entries).toEqual(['/approve.html'])
    expect(opener.posted).toEqual([
      { message: { type: messageType, kind: 'ready', nonce }, targetOrigin: origin },
    ])
  })

  test.each([
    { case: 'no opener', setup: () => (document.defaultView.opener = null) },
    { case: 'no nonce', setup: () => (document.defaultView.location.hash = '') },
    { case: 'a malformed nonce', setup: () => (document.defaultView.location.hash = '#xyz') },
  ])('with $case, shows an error and posts nothing', ({ setup }) => {
    setup()
    start()
    expect(root.textContent).toBe(notOpenedMessage)
    expect(opener.posted).toEqual([])
  })

  test.each([
    { case: 'another origin', from: { origin: 'http://evil.localhost:5170' }, data: {} },
    { case: 'another window', from: { source: new FakePopup() }, data: {} },
    { case: 'another nonce', from: {}, data: { nonce: 'b'.repeat(32) } },
    { case: 'an unknown key', from: {}, data: { extra: true } },
    { case: 'a hash of another request', from: {}, data: { hash: 'c'.repeat(64) } },
  ])('shows nothing for a request from $case', ({ from, data }) => {
    start()
    send(requestMessage(data), from)
    expect(dialog()).toBeUndefined()
  })

  test('accepts one request per nonce', () => {
    start()
    send(requestMessage())
    send(requestMessage({ request: { ...value, params: ['0x6f6f', account] } }))
    expect(root.all().filter((element) => element.getAttribute('role') === 'dialog')).toHaveLength(
      1,
    )
    expect(dialog()?.textContent).toContain('hi')
  })

  test('approves only on a trusted click once focused for the arming delay', async () => {
    start()
    send(requestMessage())
    expect(approve().disabled).toBe(true)
    approve().userClick()
    await vi.advanceTimersByTimeAsync(499)
    approve().userClick()
    expect(opener.posted).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    approve().click()
    expect(opener.posted).toHaveLength(1)
    approve().userClick()
    expect(opener.posted.at(-1)).toEqual({
      message: {
        type: messageType,
        kind: 'decision',
        nonce,
        hash: hashRequest(value),
        approved: true,
      },
      targetOrigin: origin,
    })
    // The frame closes the window once the decision is in; on its own it waits.
    expect(document.defaultView.closed).toBe(false)
    await vi.advanceTimersByTimeAsync(popupDecidedCloseMs - 1)
    expect(document.defaultView.closed).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(document.defaultView.closed).toBe(true)
    expect(opener.posted).toHaveLength(2)
  })

  test('inv-07: losing focus disarms and re-arms from zero', async () => {
    start()
    send(requestMessage())
    await vi.advanceTimersByTimeAsync(500)
    expect(approve().disabled).toBe(false)
    focus(false)
    expect(approve().disabled).toBe(true)
    expect(dialog()?.textContent).toContain('Approve is available while this window is in front.')
    focus(true)
    await vi.advanceTimersByTimeAsync(499)
    expect(approve().disabled).toBe(true)
    await vi.advanceTimersByTimeAsync(1)
    expect(approve().disabled).toBe(false)
  })

  test('Reject posts a rejection, once, and closes', async () => {
    start()
    send(requestMessage({ theme: 'dark' }))
    expect(document.documentElement.dataset.theme).toBe('dark')
    root.button('Reject')?.click()
    root.button('Reject')?.click()
    expect(opener.posted.at(-1)?.message).toMatchObject({ kind: 'decision', approved: false })
    expect(opener.posted).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(popupDecidedCloseMs)
    expect(document.defaultView.closed).toBe(true)
  })

  test('a cancel from the opener closes the popup', () => {
    start()
    send(requestMessage())
    send({ type: messageType, kind: 'cancel', nonce })
    expect(document.defaultView.closed).toBe(true)
  })

  test('inv-17: when its opener is gone (the host navigated away), it closes undecided', async () => {
    start()
    send(requestMessage())
    await vi.advanceTimersByTimeAsync(500)
    opener.closed = true
    await vi.advanceTimersByTimeAsync(250)
    expect(document.defaultView.closed).toBe(true)
    expect(opener.posted.map(({ message }) => (message as { kind: string }).kind)).toEqual([
      'ready',
    ])
  })

  test('inv-07: clicking on and on before Approve arms keeps it disarmed (a click trap)', async () => {
    start()
    send(requestMessage())
    const press = () => {
      document.dispatchEvent(createEvent('pointerdown', { isTrusted: true }))
      approve().userClick()
    }
    for (let i = 0; i < 20; i++) {
      press()
      await vi.advanceTimersByTimeAsync(80)
    }
    expect(approve().disabled).toBe(true)
    expect(opener.posted).toHaveLength(1)
    // The visitor stops, reads, then clicks: that approves.
    await vi.advanceTimersByTimeAsync(500)
    expect(approve().disabled).toBe(false)
    press()
    expect(opener.posted.at(-1)?.message).toMatchObject({ kind: 'decision', approved: true })
  })

  test("inv-07: an email change shows who moves where, and arms as a signature's approval does", async () => {
    const change: ApprovalRequest = {
      method: 'updateEmail',
      params: { from: 'ada@example.com', to: 'ada@new.example' },
      chainId: 'eip155:31337',
      account,
      origin: 'http://app.localhost:5170',
    }
    start()
    send(requestMessage({ request: change, hash: hashRequest(change) }))
    const title = root.find((element) => element.tagName === 'H1')
    expect(title?.textContent).toBe(
      "Change this wallet's email from ada@example.com to ada@new.example",
    )
    expect(dialog()?.textContent).toContain('http://app.localhost:5170')
    // The account's email, on every network: no network row.
    expect(dialog()?.textContent).not.toContain('Network')
    expect(approve().disabled).toBe(true)
    await vi.advanceTimersByTimeAsync(500)
    // Armed; a synthetic click still does nothing, the visitor's decides.
    approve().click()
    expect(opener.posted).toHaveLength(1)
    approve().userClick()
    expect(opener.posted.at(-1)?.message).toEqual({
      type: messageType,
      kind: 'decision',
      nonce,
      hash: hashRequest(change),
      approved: true,
    })
  })
})
