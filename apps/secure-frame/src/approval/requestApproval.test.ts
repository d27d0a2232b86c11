/**
 * `requestApproval` end to end on a fake DOM (Vitest runs in Node): the queue,
 * the view, arming and the popup launcher together. Real browsers are covered
 * by Playwright; here events are plain objects, so a test can send the
 * untrusted clicks a page would and the trusted ones a user would.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import {
  createEvent,
  FakeDocument,
  type FakeElement,
  FakeIntersectionObserver,
  FakeIntersectionObserverEntryV1,
  type FakePopup,
} from './fakeDom.js'
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
  FakeIntersectionObserver.instances = []
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

function request(value: ApprovalRequest, options: { armingDelayMs?: number } = {}) {
  const controller = new AbortController()
  controllers.push(controller)
  const promise = requestApproval(value, {
    ...options,
    signal: controller.signal,
    document: document as unknown as Document,
    root: root as unknown as HTMLElement,
  })
  return { tracked: track(promise), promise, controller }
}

const dialog = () => root.find((element) => element.getAttribute('role') === 'dialog')
const approveButton = () => {
  const button = root.button('Approve')
  if (!button) throw new Error('no Approve button')
  return button
}
const observer = () => {
  const instance = FakeIntersectionObserver.instances.at(-1)
  if (!instance) throw new Error('no observer')
  return instance
}
const showVisible = () => observer().report({ isVisible: true, intersectionRatio: 1 })

/** Reports the approval visible and waits out the arming delay. */
async function arm(delay = 500) {
  showVisible()
  await vi.advanceTimersByTimeAsync(delay)
  expect(approveButton().disabled).toBe(false)
}

describe('inv-06 requestApproval', () => {
  test('a trusted click on an armed Approve resolves', async () => {
    const { tracked } = request(signRequest('hello'))
    await arm()
    approveButton().userClick()
    await flush()
    expect(tracked.state).toBe('resolved')
    expect(dialog()).toBeUndefined()
  })

  test('a synthetic click (click(), dispatchEvent) does nothing, even when armed', async () => {
    const { tracked } = request(signRequest('hello'))
    await arm()
    approveButton().click()
    approveButton().dispatchEvent(createEvent('click', { isTrusted: false }))
    await flush()
    expect(tracked.state).toBe('pending')
    expect(dialog()).toBeDefined()
  })

  test('a posted "approve" message does nothing', async () => {
    const { tracked } = request(signRequest('hello'))
    await arm()
    const forged = { type: 'approve', approved: true, hash: hashRequest(signRequest('hello')) }
    for (const target of [document.defaultView, document])
      target.dispatchEvent(
        createEvent('message', { isTrusted: true, origin: secureOrigin, data: forged }),
      )
    await flush()
    expect(tracked.state).toBe('pending')
  })

  test("a second request waits, is never settled by the first's click, and re-arms", async () => {
    const a = request(signRequest('first'))
    const b = request(signRequest('second'))
    expect(root.all().filter((element) => element.getAttribute('role') === 'dialog')).toHaveLength(
      1,
    )
    expect(dialog()?.textContent).toContain('first')
    await arm()
    const approveA = approveButton()
    approveA.userClick()
    // A double click: the second lands on A's removed button, then on B's fresh one.
    approveA.userClick()
    await flush()
    expect(a.tracked.state).toBe('resolved')
    expect(dialog()?.textContent).toContain('second')
    approveButton().userClick()
    await flush()
    expect(b.tracked.state).toBe('pending')
    expect(approveButton().disabled).toBe(true)
    await arm()
    approveButton().userClick()
    await flush()
    expect(b.tracked.state).toBe('resolved')
  })

  test('a request changed after it was shown is not approved', async () => {
    const value = signRequest('pay 1')
    const { tracked } = request(value)
    await arm()
    ;(value.params as unknown[])[0] = '0xdead'
    approveButton().userClick()
    await flush()
    expect(tracked.state).toBe('rejected')
    expect(tracked.error).toMatchObject({ code: -32602 })
  })

  test('what is shown is the request as it was when shown', async () => {
    const value = signRequest('pay 1')
    request(value)
    ;(value.params as unknown[])[0] = `0x${Buffer.from('pay 1000').toString('hex')}`
    expect(dialog()?.textContent).toContain('pay 1')
    expect(dialog()?.textContent).not.toContain('pay 1000')
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
  test('observes with IntersectionObserver v2: trackVisibility, delay 100, threshold 1', () => {
    request(signRequest('x'))
    expect(observer().init).toEqual({ threshold: [1], trackVisibility: true, delay: 100 })
    expect(observer().targets).toEqual([dialog()])
  })

  test('Approve stays disabled until visible for the whole arming delay', async () => {
    const { tracked } = request(signRequest('x'))
    expect(approveButton().disabled).toBe(true)
    await vi.advanceTimersByTimeAsync(5000)
    expect(approveButton().disabled).toBe(true)
    showVisible()
    await vi.advanceTimersByTimeAsync(499)
    expect(approveButton().disabled).toBe(true)
    approveButton().userClick()
    await flush()
    expect(tracked.state).toBe('pending')
    await vi.advanceTimersByTimeAsync(1)
    expect(approveButton().disabled).toBe(false)
  })

  test('the arming delay is an option', async () => {
    request(signRequest('x'), { armingDelayMs: 1500 })
    showVisible()
    await vi.advanceTimersByTimeAsync(1499)
    expect(approveButton().disabled).toBe(true)
    await vi.advanceTimersByTimeAsync(1)
    expect(approveButton().disabled).toBe(false)
  })

  test.each([
    { case: 'covered or transparent', entry: { isVisible: false, intersectionRatio: 1 } },
    { case: 'partly out of view', entry: { isVisible: true, intersectionRatio: 0.5 } },
  ])(
    'when $case, Approve is disabled, ignores clicks, and re-arms from zero',
    async ({ entry }) => {
      const { tracked } = request(signRequest('x'))
      await arm()
      observer().report(entry)
      expect(approveButton().disabled).toBe(true)
      approveButton().userClick()
      await flush()
      expect(tracked.state).toBe('pending')
      expect(dialog()?.textContent).toContain(
        'Approve is available once this approval is fully visible.',
      )
      showVisible()
      await vi.advanceTimersByTimeAsync(499)
      expect(approveButton().disabled).toBe(true)
      await vi.advanceTimersByTimeAsync(1)
      expect(approveButton().disabled).toBe(false)
    },
  )

  test('an entry without isVisible (v1 semantics) never arms', async () => {
    request(signRequest('x'))
    observer().report({ intersectionRatio: 1 })
    await vi.advanceTimersByTimeAsync(5000)
    expect(approveButton().disabled).toBe(true)
  })

  test('hiding the page disarms; showing it again observes anew and re-arms', async () => {
    request(signRequest('x'))
    await arm()
    const first = observer()
    document.visibilityState = 'hidden'
    document.dispatchEvent(createEvent('visibilitychange', { isTrusted: true }))
    expect(approveButton().disabled).toBe(true)
    document.visibilityState = 'visible'
    document.dispatchEvent(createEvent('visibilitychange', { isTrusted: true }))
    expect(observer()).not.toBe(first)
    expect(first.targets).toEqual([])
    await arm()
  })

  test('removing the approval stops its observer and timers', async () => {
    const { controller } = request(signRequest('x'))
    showVisible()
    const instance = observer()
    controller.abort()
    await flush()
    expect(instance.targets).toEqual([])
    expect(vi.getTimerCount()).toBe(0)
    expect(document.listenerCount()).toBe(0)
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
  test('is a labelled dialog with heading, account, network, Reject then Approve', () => {
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
      ['Approve', 'button'],
    ])
  })

  test('takes focus (the dialog, never Approve) and makes the rest inert until it goes', async () => {
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

describe('inv-15 requestApproval without IntersectionObserver v2', () => {
  beforeEach(() => {
    document.defaultView.IntersectionObserverEntry = FakeIntersectionObserverEntryV1
  })

  const openButton = () => {
    const button = root.button('Open approval window')
    if (!button) throw new Error('no Open approval window button')
    return button
  }

  /** Opens the popup with a trusted click; returns it and its nonce. */
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

  test('offers no in-frame Approve, only Open approval window', () => {
    request(signRequest('x'))
    expect(root.button('Approve')).toBeUndefined()
    expect(openButton().disabled).toBe(false)
    expect(FakeIntersectionObserver.instances).toHaveLength(0)
  })

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
  })

  test('a decision for another hash is a rejection', async () => {
    const { tracked } = request(signRequest('x'))
    const { popup, nonce } = open()
    fromPopup(popup, { type: messageType, kind: 'ready', nonce })
    fromPopup(popup, {
      type: messageType,
      kind: 'decision',
      nonce,
      hash: hashRequest(signRequest('y')),
      approved: true,
    })
    await flush()
    expect(tracked.error).toMatchObject({ code: 4001 })
  })

  test('inv-17: a closed popup rejects with 4001', async () => {
    const { tracked } = request(signRequest('x'))
    const { popup } = open()
    popup.closed = true
    await vi.advanceTimersByTimeAsync(300)
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
