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
  test('is the page that embeds the widget as the browser reports it, never the widget', () => {
    expect(ancestorOrigin(list('http://widget.localhost:5171', 'https://host.example'))).toBe(
      'https://host.example',
    )
  })

  test('is the requesting host, not a page that frames it: a framed host cannot ask in the top page’s name', () => {
    expect(
      ancestorOrigin(
        list('http://widget.localhost:5171', 'https://host.example', 'https://top.example'),
      ),
    ).toBe('https://host.example')
  })

  test('is unknown without ancestorOrigins (Firefox) or with only the widget above', () => {
    expect(ancestorOrigin(undefined)).toBeUndefined()
    expect(ancestorOrigin(list('http://widget.localhost:5171'))).toBeUndefined()
  })
})

describe('inv-09 sessionOrigin', () => {
  const widget = 'http://widget.localhost:5171'

  test('is the widget’s parent as the browser reports it', () => {
    expect(sessionOrigin(list(widget, 'https://a.example.com'))).toBe('https://a.example.com')
    // A host nested in another page: the host that embeds the widget.
    expect(sessionOrigin(list(widget, 'https://a.example.com', 'https://top.example'))).toBe(
      'https://a.example.com',
    )
  })

  test.each([
    ['no ancestorOrigins (Firefox): nothing a URL says is believed', undefined],
    ['an opaque origin from the browser', list(widget, 'null')],
    ['a non-http origin', list(widget, 'chrome-extension://abc')],
    ['only the widget above', list(widget)],
  ])('is unknown for %s (the session then stays in memory)', (_, ancestors) => {
    expect(sessionOrigin(ancestors)).toBeUndefined()
  })
})
