import { describe, expect, test } from 'vitest'
import { ancestorOrigin, sessionOrigin } from './context.js'

/** A `DOMStringList` as `location.ancestorOrigins` gives it, nearest ancestor first. */
function list(...origins: string[]): DOMStringList {
  return {
    length: origins.length,
    item: (index: number) => origins[index] ?? null,
    contains: (origin: string) => origins.includes(origin),
  } as DOMStringList
}

describe('inv-08 ancestorOrigin', () => {
  test('is the last ancestor the browser reports (the top-level host), never the widget', () => {
    expect(ancestorOrigin(list('http://widget.localhost:5171', 'https://host.example'))).toBe(
      'https://host.example',
    )
    expect(
      ancestorOrigin(
        list('http://widget.localhost:5171', 'https://host.example', 'https://top.example'),
      ),
    ).toBe('https://top.example')
  })

  test('is unknown without ancestorOrigins (Firefox) or with only the widget above', () => {
    expect(ancestorOrigin(undefined)).toBeUndefined()
    expect(ancestorOrigin(list('http://widget.localhost:5171'))).toBeUndefined()
  })
})

describe('inv-09 sessionOrigin', () => {
  const widget = 'http://widget.localhost:5171'

  test('is the widget’s parent as the browser reports it, over what the widget says', () => {
    expect(sessionOrigin(list(widget, 'https://a.example.com'), 'https://b.example.com')).toBe(
      'https://a.example.com',
    )
    // A host nested in another page: the host that embeds the widget.
    expect(sessionOrigin(list(widget, 'https://a.example.com', 'https://top.example'), null)).toBe(
      'https://a.example.com',
    )
  })

  test('without ancestorOrigins (Firefox), the handshake origin the widget passed', () => {
    expect(sessionOrigin(undefined, 'https://a.example.com')).toBe('https://a.example.com')
  })

  test.each([
    ['an opaque origin from the browser', list(widget, 'null'), 'https://a.example.com'],
    ['no origin at all', undefined, null],
    ['a widget value that is no origin', undefined, 'https://a.example.com/path'],
    ['a non-http origin', undefined, 'chrome-extension://abc'],
  ])('is unknown for %s (the session then stays in memory)', (_, ancestors, fromWidget) => {
    expect(sessionOrigin(ancestors, fromWidget)).toBeUndefined()
  })
})
