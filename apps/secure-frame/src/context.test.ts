import { describe, expect, test } from 'vitest'
import { ancestorOrigin } from './context.js'

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
