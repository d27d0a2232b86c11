import { devDefaultSources, isDevDefault } from '@porthole/protocol/Origin'
import { describe, expect, test } from 'vitest'
import { createCsp, deniedCsp, maxEntries, toHostSources, toSource } from './csp.js'

const widgetOrigin = 'http://widget.localhost:5171'
const apiOrigin = 'http://api.localhost:5173'

/** The directives of a policy, by name. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/)
      return [name, values]
    }),
  )
}

describe('inv-04 createCsp', () => {
  test('frame-ancestors names the widget and every allowed host, the top-level host included', () => {
    const csp = createCsp({
      widgetOrigin,
      apiOrigin,
      hosts: toHostSources(['http://127.0.0.1:5170', 'http://localhost:5170']),
    })
    expect(directives(csp).get('frame-ancestors')).toEqual([
      'http://widget.localhost:5171',
      'http://127.0.0.1:5170',
      'http://localhost:5170',
    ])
  })

  test('a wildcard pattern from the API is kept as a CSP wildcard host', () => {
    const csp = createCsp({
      widgetOrigin,
      apiOrigin,
      hosts: toHostSources(['https://*.example.com']),
    })
    expect(directives(csp).get('frame-ancestors')).toEqual([widgetOrigin, 'https://*.example.com'])
  })

  test('the widget is named once even when the list repeats it', () => {
    const csp = createCsp({ widgetOrigin, apiOrigin, hosts: toHostSources([widgetOrigin]) })
    expect(directives(csp).get('frame-ancestors')).toEqual([widgetOrigin])
  })

  test("no allowed host gives frame-ancestors 'none', never the widget alone", () => {
    const csp = createCsp({ widgetOrigin, apiOrigin, hosts: [] })
    expect(directives(csp).get('frame-ancestors')).toEqual(["'none'"])
  })

  test("the denied policy (unknown project, errors, files) is frame-ancestors 'none'", () => {
    expect(directives(deniedCsp).get('frame-ancestors')).toEqual(["'none'"])
    expect(directives(deniedCsp).get('default-src')).toEqual(["'none'"])
  })

  test('refuses a widget or API origin that is not scheme://host[:port]', () => {
    expect(() =>
      createCsp({
        widgetOrigin: "http://w.test; script-src 'unsafe-inline'",
        apiOrigin,
        hosts: [],
      }),
    ).toThrow(/widget origin/)
    expect(() => createCsp({ widgetOrigin, apiOrigin: 'https://*.api.test', hosts: [] })).toThrow(
      /API origin/,
    )
  })
})

describe('inv-05 toHostSources', () => {
  test('an empty list gives the dev defaults only, http and https', () => {
    expect(toHostSources([])).toEqual([
      'http://localhost:*',
      'http://127.0.0.1:*',
      'http://*.localhost:*',
      'https://localhost:*',
      'https://127.0.0.1:*',
      'https://*.localhost:*',
    ])
  })

  test("the dev defaults are the protocol's, each one kept by the re-validation", () => {
    expect(toHostSources([])).toEqual(devDefaultSources)
  })

  test.each([
    'http://localhost:5170',
    'https://localhost:8443',
    'http://127.0.0.1:3000',
    'https://127.0.0.1:5170',
    'http://app.localhost:5170',
    'https://app.localhost:8443',
  ])(
    '%s, a dev default of the widget (Origin.isDevDefault), is framed by a dev default source',
    (origin) => {
      expect(isDevDefault(origin)).toBe(true)
      const { protocol, hostname } = new URL(origin)
      const host = hostname.endsWith('.localhost') ? '*.localhost' : hostname
      expect(toHostSources([])).toContain(`${protocol}//${host}:*`)
    },
  )

  test('the dev defaults never include a shared-hosting suffix', () => {
    const defaults = toHostSources([]).join(' ')
    for (const suffix of ['vercel.app', 'pages.dev', 'ngrok-free.app', 'netlify.app'])
      expect(defaults).not.toContain(suffix)
  })

  test('a non-empty list is used as is: the dev defaults are not added', () => {
    expect(toHostSources(['https://app.example.com'])).toEqual(['https://app.example.com'])
  })

  test('a list whose entries are all invalid gives no host, not the dev defaults', () => {
    expect(toHostSources(["'self'", '*', 'https://a.test/path'])).toEqual([])
  })

  test('custom dev defaults replace the built-in ones, and are validated too', () => {
    expect(toHostSources([], ['http://localhost:*', 'http://x.test; frame-ancestors *'])).toEqual([
      'http://localhost:*',
    ])
    expect(toHostSources([], [])).toEqual([])
  })

  test('duplicates are removed and at most maxEntries are kept', () => {
    const many = Array.from({ length: maxEntries + 20 }, (_, i) => `https://h${i}.example.com`)
    expect(toHostSources([...many, ...many])).toHaveLength(maxEntries)
    expect(toHostSources(['https://A.example.com', 'https://a.example.com'])).toEqual([
      'https://a.example.com',
    ])
  })
})

describe('inv-14 createCsp', () => {
  test('is strict: no inline or eval, connect-src the API only, no base or form target', () => {
    const csp = createCsp({ widgetOrigin, apiOrigin, hosts: toHostSources([]) })
    const policy = directives(csp)
    expect(policy.get('default-src')).toEqual(["'none'"])
    expect(policy.get('script-src')).toEqual(["'self'"])
    expect(policy.get('style-src')).toEqual(["'self'"])
    expect(policy.get('img-src')).toEqual(["'self'", 'data:'])
    expect(policy.get('connect-src')).toEqual([apiOrigin])
    expect(policy.get('base-uri')).toEqual(["'none'"])
    expect(policy.get('form-action')).toEqual(["'none'"])
    expect(csp).not.toMatch(/unsafe-|blob:/)
    // No source that allows any host: a bare `*` or a bare scheme.
    for (const values of policy.values())
      for (const value of values) expect(value).not.toMatch(/^(\*|https?:|data:\*)$/)
  })

  test('is exactly the documented header', () => {
    expect(
      createCsp({ widgetOrigin, apiOrigin, hosts: toHostSources(['http://127.0.0.1:5170']) }),
    ).toBe(
      "frame-ancestors http://widget.localhost:5171 http://127.0.0.1:5170; default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src http://api.localhost:5173; base-uri 'none'; form-action 'none'",
    )
  })

  test('hosts passed directly are re-validated as well', () => {
    const csp = createCsp({
      widgetOrigin,
      apiOrigin,
      hosts: ['https://ok.example.com', "https://x.test; script-src 'unsafe-inline'"],
    })
    expect(directives(csp).get('frame-ancestors')).toEqual([widgetOrigin, 'https://ok.example.com'])
    expect(csp).not.toContain('unsafe-inline')
  })
})

describe('inv-04 toSource', () => {
  test.each([
    ['https://app.example.com', 'https://app.example.com'],
    ['http://127.0.0.1:5170', 'http://127.0.0.1:5170'],
    ['http://localhost:5170', 'http://localhost:5170'],
    ['https://*.example.com', 'https://*.example.com'],
    ['https://*.example.co.uk:8443', 'https://*.example.co.uk:8443'],
    ['HTTPS://App.Example.COM', 'https://app.example.com'],
  ])('keeps %s as %s', (entry, source) => {
    expect(toSource(entry)).toBe(source)
  })

  test.each([
    ['a semicolon (a second directive)', "https://a.test; script-src 'unsafe-inline'"],
    ['a space (a second source)', 'https://a.test https://evil.test'],
    ['a tab', 'https://a.test\thttps://evil.test'],
    ['a newline (header splitting)', 'https://a.test\r\nSet-Cookie: x=1'],
    ['a trailing newline', 'https://a.test\n'],
    ['a comma', 'https://a.test,https://evil.test'],
    ['a quote', "'self'"],
    ['a quoted keyword inside', "https://a.test'unsafe-inline'"],
    ['a bare wildcard', '*'],
    ['a scheme only', 'https:'],
    ['a path', 'https://a.test/path'],
    ['a trailing slash', 'https://a.test/'],
    ['a query', 'https://a.test?x=1'],
    ['user info', 'https://user@a.test'],
    ['another scheme', 'javascript://a.test'],
    ['data:', 'data:'],
    ['a wildcard on a top-level domain', 'https://*.com'],
    ['a wildcard in the middle', 'https://a.*.example.com'],
    ['a wildcard port from the API', 'https://a.test:*'],
    ['port 0', 'https://a.test:0'],
    ['a port out of range', 'https://a.test:70000'],
    ['an IPv6 literal (not a CSP host)', 'http://[::1]:5170'],
    ['an empty string', ''],
    ['a non-string', 42],
    ['an over-long entry', `https://${'a'.repeat(300)}.test`],
    ['a non-ASCII host', 'https://exämple.com'],
  ])('drops an entry with %s', (_, entry) => {
    expect(toSource(entry)).toBeUndefined()
  })

  test('a * port only with anyPort (the dev defaults)', () => {
    expect(toSource('http://localhost:*', { anyPort: true })).toBe('http://localhost:*')
    expect(toSource('http://localhost:*')).toBeUndefined()
  })

  test('no wildcard host where it is turned off (widget and API origins)', () => {
    expect(toSource('https://*.example.com', { wildcard: false })).toBeUndefined()
  })
})
