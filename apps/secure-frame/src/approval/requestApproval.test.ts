/**
 * `requestApproval` end to end on a fake DOM (Vitest runs in Node): the queue,
 * the view and the approval window's launcher together. Real browsers are
 * covered by Playwright (e2e/security/inv-07 and inv-15); here events are
 * plain objects, so a test can send the untrusted clicks a page would and the
 * trusted ones a user would.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { createEvent, FakeDocument, type FakeElement, type FakePopup } from '../../test/fakeDom.js'
import { popupClosedPollMs } from './openPopup.js'
import { messageType } from './popupProtocol.js'
import { type ApprovalRequest, hashRequest } from './request.js'
import { requestApproval } from './requestApproval.js'

const account = '0x1111111111111111111111111111111111111111'
const secureOrigin = 'http://secure.localhost:5172'

const signRequest = (text: string, extra: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  method: 'personal_sign',
  params: [`0x${Buffer.from(text).toString('hex')}`, account],
  chainId: 'eip155:31337',
  account,
  origin: 'http://app.localhost:5170',
  chainName: 'Anvil',
  ...extra,
})

type Tracked = { state: 'pending' | 'resolved' | 'rejected'; error?: unknown }

function track(promise: Promise<void>): Tracked {
  const tracked: Tracked = { state: 'pending' }
  promise.then(
    () => {
      tracked.state = 'resolved'
    },
    (error: unknown) => {
      tracked.state = 'rejected'
      tracked.error = error
    },
  )
  return tracked
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

let document: FakeDocument
let root: FakeElement
let sibling: FakeElement
let controllers: AbortController[]

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'],
  })
  document = new FakeDocument(secureOrigin)
  root = document.createElement('main')
  root.id = 'app'
  document.body.append(root)
  sibling = document.createElement('div')
  root.append(sibling)
  controllers = []
})

afterEach(async () => {
  // Nothing leaks into the next test through the module's queue.
  for (const controller of controllers) controller.abort()
  await flush()
  vi.useRealTimers()
})

function request(value: ApprovalRequest) {
  const controller = new AbortController()
  controllers.push(controller)
  const promise = requestApproval(value, {
    signal: controller.signal,
    document: document as unknown as Document,
    root: root as unknown as HTMLElement,
  })
  return { tracked: track(promise), promise, controller }
}

const dialog = () => root.find((element) => element.getAttribute('role') === 'dialog')
const openButton = () => {
  const button = root.button('Open approval window')
  if (!button) throw new Error('no Open approval window button')
  return button
}

/** Opens the approval window with a trusted click; returns it and its nonce. */
function open(): { popup: FakePopup; nonce: string } {
  openButton().userClick()
  const opened = document.defaultView.opened.at(-1)
  if (!opened?.popup) throw new Error('no popup')
  const nonce = opened.url.split('#')[1] ?? ''
  return { popup: opened.popup, nonce }
}

const fromPopup = (popup: FakePopup, data: unknown, origin = secureOrigin) =>
  document.defaultView.dispatchEvent(
    createEvent('message', { isTrusted: true, origin, source: popup, data }),
  )

/** Opens the window, lets it say ready, and posts the visitor's decision on `value`. */
async function decideInWindow(value: ApprovalRequest, approved = true) {
  const { popup, nonce } = open()
  fromPopup(popup, { type: messageType, kind: 'ready', nonce })
  fromPopup(popup, {
    type: messageType,
    kind: 'decision',
    nonce,
    hash: hashRequest(value),
    approved,
  })
  await flush()
  return popup
}

describe('inv-06 requestApproval', () => {
  test("the approval window's decision for this request resolves it", async () => {
    const value = signRequest('hello')
    const { tracked } = request(value)
    await decideInWindow(value)
    expect(tracked.state).toBe('resolved')
    expect(dialog()).toBeUndefined()
  })

  test('a synthetic click (click(), dispatchEvent) opens nothing', async () => {
    const { tracked } = request(signRequest('hello'))
    openButton().click()
    openButton().dispatchEvent(createEvent('click', { isTrusted: false }))
    await flush()
    expect(document.defaultView.opened).toHaveLength(0)
    expect(tracked.state).toBe('pending')
  })

  test('a posted "approve" message does nothing', async () => {
    const { tracked } = request(signRequest('hello'))
    open()
    const forged = { type: 'approve', approved: true, hash: hashRequest(signRequest('hello')) }
    for (const target of [document.defaultView, document])
      target.dispatchEvent(
        createEvent('message', { isTrusted: true, origin: secureOrigin, data: forged }),
      )
    await flush()
    expect(tracked.state).toBe('pending')
  })

  test("a second request waits, is never settled by the first's decision, and gets its own window", async () => {
    const first = signRequest('first')
    const second = signRequest('second')
    const a = request(first)
    const b = request(second)
    expect(root.all().filter((element) => element.getAttribute('role') === 'dialog')).toHaveLength(
      1,
    )
    expect(dialog()?.textContent).toContain('first')
    const windowA = await decideInWindow(first)
    expect(a.tracked.state).toBe('resolved')
    expect(dialog()?.textContent).toContain('second')
    // A replayed decision from A's window settles nothing.
    const nonceA = document.defaultView.opened[0]?.url.split('#')[1]
    fromPopup(windowA, {
      type: messageType,
      kind: 'decision',
      nonce: nonceA,
      hash: hashRequest(second),
      approved: true,
    })
    await flush()
    expect(b.tracked.state).toBe('pending')
    await decideInWindow(second)
    expect(b.tracked.state).toBe('resolved')
    expect(document.defaultView.opened).toHaveLength(2)
  })

  test('a request changed after it was shown is not approved', async () => {
    const value = signRequest('pay 1')
    const { tracked } = request(value)
    const shown = structuredClone(value)
    ;(value.params as unknown[])[0] = '0xdead'
    await decideInWindow(shown)
    expect(tracked.state).toBe('rejected')
    expect(tracked.error).toMatchObject({ code: -32602 })
  })

  test('what is shown, and sent to the window, is the request as it was when shown', async () => {
    const value = signRequest('pay 1')
    request(value)
    ;(value.params as unknown[])[0] = `0x${Buffer.from('pay 1000').toString('hex')}`
    expect(dialog()?.textContent).toContain('pay 1')
    expect(dialog()?.textContent).not.toContain('pay 1000')
    const { popup, nonce } = open()
    fromPopup(popup, { type: messageType, kind: 'ready', nonce })
    const sent = popup.posted[0]?.message as { request: ApprovalRequest }
    expect((sent.request.params as unknown[])[0]).toBe(`0x${Buffer.from('pay 1').toString('hex')}`)
  })

  test('Reject, then Escape, reject with 4001 User rejected the request.', async () => {
    const first = request(signRequest('a'))
    const second = request(signRequest('b'))
    root.button('Reject')?.click()
    await flush()
    expect(first.tracked.error).toMatchObject({
      code: 4001,
      shortMessage: 'User rejected the request.',
    })
    const escapeKey = createEvent('keydown', { isTrusted: true, key: 'Escape' })
    document.dispatchEvent(escapeKey)
    await flush()
    expect(second.tracked.error).toMatchObject({ code: 4001 })
    expect(escapeKey.defaultPrevented).toBe(true)
    expect(document.listenerCount('keydown')).toBe(0)
  })

  test('an invalid request is refused without showing anything', async () => {
    const bad = { ...signRequest('x'), method: 'eth_sign' } as unknown as ApprovalRequest
    await expect(requestApproval(bad)).rejects.toMatchObject({ code: -32602 })
    expect(dialog()).toBeUndefined()
  })
})

describe('inv-07 requestApproval', () => {
  test('the frame has no Approve: only the window of the secure origin decides', () => {
    request(signRequest('x'))
    expect(root.button('Approve')).toBeUndefined()
    expect(openButton().disabled).toBe(false)
    expect(dialog()?.textContent).toContain(
      'You approve or reject this request in a window of its own, where no site can cover it.',
    )
  })
})

describe('inv-08 requestApproval', () => {
  test('shows the browser-derived origin as Requested by, and site metadata as provided by the site', () => {
    request(
      signRequest('x', {
        origin: 'http://evil.localhost:5170',
        site: { name: 'https://bank.example', icon: 'https://bank.example/icon.png' },
      }),
    )
    const text = dialog()?.textContent ?? ''
    const origin = root.find((element) => element.className === 'approval__origin')
    expect(origin?.textContent).toBe('Requested byhttp://evil.localhost:5170')
    expect(dialog()?.getAttribute('aria-describedby')).toBe(origin?.id)
    const site = root.find((element) => element.className === 'approval__site')
    expect(site?.textContent).toBe('https://bank.exampleProvided by the site')
    expect(text.indexOf('Requested by')).toBeLessThan(text.indexOf('Provided by the site'))
    // A remote icon is not loaded (the CSP would block it anyway).
    expect(root.find((element) => element.tagName === 'IMG')).toBeUndefined()
  })

  test('untrusted content is text: no innerHTML, markup shown as typed', () => {
    const markup = '<img src=x onerror=alert(1)>'
    request(signRequest(markup, { site: { name: markup } }))
    expect(document.created.every((element) => element.innerHTMLWrites === 0)).toBe(true)
    expect(dialog()?.textContent).toContain(markup)
    expect(root.find((element) => element.tagName === 'IMG')).toBeUndefined()
  })
})

describe('requestApproval view', () => {
  test('is a labelled dialog with heading, account, network, Reject then Open approval window', () => {
    request(signRequest('hello'))
    const element = dialog()
    const title = root.find((node) => node.tagName === 'H1')
    expect(element?.getAttribute('aria-labelledby')).toBe(title?.id)
    expect(title?.textContent).toBe('Sign message')
    const account = root.find((node) => node.title === '0x1111111111111111111111111111111111111111')
    expect(account?.textContent).toBe('0x11…111111')
    expect(element?.textContent).toContain('Anvil')
    const buttons = root.all().filter((node) => node.tagName === 'BUTTON')
    expect(buttons.map((button) => [button.textContent, button.type])).toEqual([
      ['Reject', 'button'],
      ['Open approval window', 'button'],
    ])
  })

  test('takes focus (the dialog, never a button) and makes the rest inert until it goes', async () => {
    const { controller } = request(signRequest('hello'))
    expect(document.activeElement).toBe(dialog())
    expect(sibling.inert).toBe(true)
    controller.abort()
    await flush()
    expect(sibling.inert).toBe(false)
  })

  test('an abort rejects with 4001 Request was aborted and removes the approval', async () => {
    const { tracked, controller } = request(signRequest('hello'))
    controller.abort()
    await flush()
    expect(tracked.error).toMatchObject({ code: 4001, shortMessage: 'Request was aborted' })
    expect(dialog()).toBeUndefined()
  })
})

describe('inv-15 requestApproval: the approval window', () => {
  test('opens the popup of the secure origin with a one-time nonce, on a trusted click only', () => {
    request(signRequest('x'))
    openButton().click()
    expect(document.defaultView.opened).toHaveLength(0)
    openButton().userClick()
    const [opened] = document.defaultView.opened
    expect(opened?.url).toMatch(/^http:\/\/secure\.localhost:5172\/approve\.html#[0-9a-f]{32}$/)
    expect(opened?.target).toBe('_blank')
    expect(opened?.features).not.toContain('noopener')
  })

  test('sends the request only to the popup, at the exact origin, after its ready', () => {
    const value = signRequest('x')
    request(value)
    const { popup, nonce } = open()
    fromPopup(popup, { type: messageType, kind: 'ready', nonce }, 'http://evil.localhost:5170')
    fromPopup(popup, { type: messageType, kind: 'ready', nonce: 'f'.repeat(32) })
    expect(popup.posted).toHaveLength(0)
    fromPopup(popup, { type: messageType, kind: 'ready', nonce })
    expect(popup.posted).toEqual([
      {
        targetOrigin: secureOrigin,
        message: {
          type: messageType,
          kind: 'request',
          nonce,
          hash: hashRequest(value),
          request: value,
          theme: undefined,
        },
      },
    ])
  })

  test("resolves on the popup's decision for this hash, and ignores forgeries", async () => {
    const value = signRequest('x')
    const { tracked } = request(value)
    const { popup, nonce } = open()
    const hash = hashRequest(value)
    const decision = { type: messageType, kind: 'decision', nonce, hash, approved: true }
    // Before ready, from another window, with another nonce, with extra keys: ignored.
    fromPopup(popup, decision)
    fromPopup(popup, { type: messageType, kind: 'ready', nonce })
    document.defaultView.dispatchEvent(
      createEvent('message', { isTrusted: true, origin: secureOrigin, source: {}, data: decision }),
    )
    fromPopup(popup, { ...decision, nonce: '0'.repeat(32) })
    fromPopup(popup, { ...decision, extra: 1 })
    await flush()
    expect(tracked.state).toBe('pending')
    fromPopup(popup, decision)
    await flush()
    expect(tracked.state).toBe('resolved')
    // The frame closes the decided window itself (the window waits for it).
    expect(popup.closed).toBe(true)
  })

  test('inv-17: a decision that arrives just after its window is seen closed still counts', async () => {
    const value = signRequest('x')
    const { tracked } = request(value)
    const { popup, nonce } = open()
    fromPopup(popup, { type: messageType, kind: 'ready', nonce })
    // Under load the browser can report the window closed before the message
    // it posted first is delivered: one poll sees it closed, then it arrives.
    popup.closed = true
    await vi.advanceTimersByTimeAsync(popupClosedPollMs)
    fromPopup(popup, {
      type: messageType,
      kind: 'decision',
      nonce,
      hash: hashRequest(value),
      approved: true,
    })
    await flush()
    expect(tracked.state).toBe('resolved')
  })

  test('a decision for another hash is a rejection', async () => {
    const { tracked } = request(signRequest('x'))
    await decideInWindow(signRequest('y'))
    expect(tracked.error).toMatchObject({ code: 4001 })
  })

  test('inv-17: a closed popup rejects with 4001', async () => {
    const { tracked } = request(signRequest('x'))
    const { popup } = open()
    popup.closed = true
    // Seen closed on two polls in a row (the first leaves a decision in flight time to arrive).
    await vi.advanceTimersByTimeAsync(popupClosedPollMs)
    expect(tracked.state).toBe('pending')
    await vi.advanceTimersByTimeAsync(popupClosedPollMs)
    expect(tracked.error).toMatchObject({ code: 4001, shortMessage: 'User rejected the request.' })
    expect(dialog()).toBeUndefined()
  })

  test('a blocked popup says so and leaves Reject usable', async () => {
    document.defaultView.nextPopup = () => null
    const { tracked } = request(signRequest('x'))
    openButton().userClick()
    expect(dialog()?.textContent).toContain('The approval window was blocked.')
    root.button('Reject')?.click()
    await flush()
    expect(tracked.error).toMatchObject({ code: 4001 })
  })

  test('a popup that never answers is closed with a message, never a hang', async () => {
    const { tracked } = request(signRequest('x'))
    const { popup } = open()
    await vi.advanceTimersByTimeAsync(10_000)
    expect(popup.closed).toBe(true)
    expect(dialog()?.textContent).toContain('The approval window did not respond.')
    expect(tracked.state).toBe('pending')
  })

  test('inv-17: the frame document going away (pagehide) closes its window', async () => {
    const { tracked } = request(signRequest('x'))
    const { popup } = open()
    document.defaultView.dispatchEvent(createEvent('pagehide', { isTrusted: true }))
    expect(popup.closed).toBe(true)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(tracked.state).toBe('pending')
  })

  test('an abort closes the popup', async () => {
    const { tracked, controller } = request(signRequest('x'))
    const { popup, nonce } = open()
    controller.abort()
    await flush()
    expect(popup.closed).toBe(true)
    expect(popup.posted.at(-1)?.message).toEqual({ type: messageType, kind: 'cancel', nonce })
    expect(tracked.error).toMatchObject({ shortMessage: 'Request was aborted' })
    expect(vi.getTimerCount()).toBe(0)
  })
})
