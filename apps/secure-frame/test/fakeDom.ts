/**
 * Test support only (never imported by the frame): the little of the DOM the
 * approval uses, for Vitest in Node, where there is no DOM. Events are plain
 * objects, so a test chooses `isTrusted`, which a real page cannot.
 */

/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true

type Listener = (event: FakeEvent) => void

export type FakeEvent = {
  type: string
  isTrusted: boolean
  key?: string
  origin?: string
  source?: unknown
  data?: unknown
  defaultPrevented?: boolean
  preventDefault(): void
}

export function createEvent(type: string, init: Partial<FakeEvent> = {}): FakeEvent {
  const event: FakeEvent = {
    type,
    isTrusted: false,
    ...init,
    preventDefault() {
      event.defaultPrevented = true
    },
  }
  return event
}

class FakeTarget {
  readonly listeners = new Map<string, Set<Listener>>()

  addEventListener(type: string, listener: Listener): void {
    const set = this.listeners.get(type) ?? new Set()
    set.add(listener)
    this.listeners.set(type, set)
  }

  removeEventListener(type: string, listener: Listener): void {
    this.listeners.get(type)?.delete(listener)
  }

  dispatchEvent(event: FakeEvent): boolean {
    for (const listener of [...(this.listeners.get(event.type) ?? [])]) listener(event)
    return !event.defaultPrevented
  }

  listenerCount(type?: string): number {
    if (type) return this.listeners.get(type)?.size ?? 0
    let count = 0
    for (const set of this.listeners.values()) count += set.size
    return count
  }
}

export class FakeElement extends FakeTarget {
  readonly tagName: string
  readonly ownerDocument: FakeDocument
  readonly dataset: Record<string, string> = {}
  readonly attributes = new Map<string, string>()
  children: FakeElement[] = []
  parentElement: FakeElement | null = null
  className = ''
  id = ''
  title = ''
  hidden = false
  inert = false
  disabled = false
  tabIndex = -1
  type = ''
  alt = ''
  src = ''
  width = 0
  height = 0
  /** Set by `innerHTML`: the approval must never use it. */
  innerHTMLWrites = 0
  private text = ''

  constructor(tagName: string, ownerDocument: FakeDocument) {
    super()
    this.tagName = tagName.toUpperCase()
    this.ownerDocument = ownerDocument
  }

  get textContent(): string {
    return this.text + this.children.map((child) => child.textContent).join('')
  }

  set textContent(value: string) {
    for (const child of this.children) child.parentElement = null
    this.children = []
    this.text = value
  }

  set innerHTML(_value: string) {
    this.innerHTMLWrites += 1
  }

  append(...nodes: FakeElement[]): void {
    for (const node of nodes) {
      node.remove()
      node.parentElement = this
      this.children.push(node)
    }
  }

  replaceChildren(...nodes: FakeElement[]): void {
    this.textContent = ''
    this.append(...nodes)
  }

  remove(): void {
    const parent = this.parentElement
    if (!parent) return
    parent.children = parent.children.filter((child) => child !== this)
    this.parentElement = null
  }

  setAttribute(name: string, value: string): void {
    this.attributes.set(name, String(value))
  }

  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null
  }

  removeAttribute(name: string): void {
    this.attributes.delete(name)
  }

  focus(): void {
    this.ownerDocument.activeElement = this
  }

  /** As `HTMLElement.click()`: an untrusted click. */
  click(): void {
    this.dispatchEvent(createEvent('click', { isTrusted: false }))
  }

  /** A click as the browser makes one for a real user. */
  userClick(): void {
    this.dispatchEvent(createEvent('click', { isTrusted: true }))
  }

  get isConnected(): boolean {
    let node: FakeElement | null = this
    while (node) {
      if (node === this.ownerDocument.documentElement) return true
      node = node.parentElement
    }
    return false
  }

  /** Every descendant (depth first), this element included. */
  all(): FakeElement[] {
    return [this, ...this.children.flatMap((child) => child.all())]
  }

  find(predicate: (element: FakeElement) => boolean): FakeElement | undefined {
    return this.all().find(predicate)
  }

  /** The button whose text is `name`. */
  button(name: string): FakeElement | undefined {
    return this.find((element) => element.tagName === 'BUTTON' && element.textContent === name)
  }
}

export class FakePopup {
  closed = false
  focused = 0
  readonly posted: { message: unknown; targetOrigin: string }[] = []

  postMessage(message: unknown, targetOrigin: string): void {
    this.posted.push({ message, targetOrigin })
  }

  focus(): void {
    this.focused += 1
  }

  close(): void {
    this.closed = true
  }
}

export class FakeWindow extends FakeTarget {
  readonly location: { origin: string; pathname: string; search: string; hash: string }
  readonly crypto = globalThis.crypto
  readonly document: FakeDocument
  /** The window that opened this one (a popup's frame), if any. */
  opener: unknown = null
  closed = false
  readonly history = {
    entries: [] as string[],
    replaceState: (_state: unknown, _title: string, url: string) => {
      this.history.entries.push(url)
      const [path = '', hash = ''] = url.split('#')
      const [pathname = '', search = ''] = path.split('?')
      this.location.pathname = pathname
      this.location.search = search ? `?${search}` : ''
      this.location.hash = hash ? `#${hash}` : ''
    },
  }
  readonly opened: { url: string; target: string; features: string; popup: FakePopup | null }[] = []
  /** What the next `open` returns: a popup, or `null` for a blocked one. */
  nextPopup: () => FakePopup | null = () => new FakePopup()

  constructor(origin: string, document: FakeDocument) {
    super()
    this.location = { origin, pathname: '/', search: '', hash: '' }
    this.document = document
  }

  close(): void {
    this.closed = true
  }

  open(url: string, target: string, features: string): FakePopup | null {
    const popup = this.nextPopup()
    this.opened.push({ url, target, features, popup })
    return popup
  }
}

export class FakeDocument extends FakeTarget {
  readonly documentElement: FakeElement
  readonly body: FakeElement
  readonly defaultView: FakeWindow
  activeElement: FakeElement | null = null
  visibilityState: 'visible' | 'hidden' = 'visible'
  focused = true
  /** Every element made, to check no `innerHTML` was ever written. */
  readonly created: FakeElement[] = []

  constructor(origin = 'http://secure.localhost:5172') {
    super()
    this.defaultView = new FakeWindow(origin, this)
    this.documentElement = new FakeElement('html', this)
    this.body = new FakeElement('body', this)
    this.documentElement.append(this.body)
  }

  createElement(tagName: string): FakeElement {
    const element = new FakeElement(tagName, this)
    this.created.push(element)
    return element
  }

  getElementById(id: string): FakeElement | null {
    return this.documentElement.find((element) => element.id === id) ?? null
  }

  hasFocus(): boolean {
    return this.focused
  }
}
