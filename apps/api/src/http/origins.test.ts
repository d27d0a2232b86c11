import { describe, expect, test } from 'vitest'
import { InvalidOriginError } from './errors.js'
import {
  isValidPattern,
  maxPatternLength,
  maxPatterns,
  parseExactOrigin,
  parsePattern,
  parsePatterns,
  readStoredPatterns,
} from './origins.js'

describe('inv-05 allowed-origin patterns: exact origins', () => {
  test.each([
    ['https://app.example.com', 'https://app.example.com'],
    ['https://app.example.com/', 'https://app.example.com'],
    ['HTTPS://App.Example.COM', 'https://app.example.com'],
    ['https://app.example.com:443', 'https://app.example.com'],
    ['http://app.example.com:80', 'http://app.example.com'],
    ['https://app.example.com:8443', 'https://app.example.com:8443'],
    ['http://localhost:5170', 'http://localhost:5170'],
    ['http://127.0.0.1:5170', 'http://127.0.0.1:5170'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
    ['https://bücher.example', 'https://xn--bcher-kva.example'],
    ['https://my-site.vercel.app', 'https://my-site.vercel.app'],
  ])('accepts %s as %s', (input, canonical) => {
    expect(parsePattern(input)).toBe(canonical)
    expect(parseExactOrigin(input)).toBe(canonical)
  })

  test.each([
    ['', /empty/],
    ['example.com', /expected scheme:\/\/host/],
    ['ftp://example.com', /only http and https/],
    ['javascript://example.com', /only http and https/],
    ['chrome-extension://abcdef', /only http and https/],
    ['https://example.com/path', /remove the path/],
    ['https://example.com/?q=1', /remove the path/],
    ['https://example.com#top', /remove the path/],
    ['https://user:pass@example.com', /user name/],
    ['https://exa mple.com', /white space/],
    ['https://example.com:99999', /not a valid origin/],
    ['https://', /host is missing|not a valid origin/],
    ['null', /expected scheme:\/\/host/],
    ['*', /expected scheme:\/\/host/],
    [`https://${'a'.repeat(300)}.com`, /at most 300/],
  ])('refuses %j with a clear message', (input, message) => {
    expect(() => parsePattern(input)).toThrow(InvalidOriginError)
    expect(() => parsePattern(input)).toThrow(message)
    expect(isValidPattern(input)).toBe(false)
  })

  test('refuses a pattern whose canonical (punycode) form is over the bound', () => {
    const label = 'äöüéèêëîïôûçñåøæœ€¥αβγδεζηθικλμνξοπρστυφχψω'
    const input = `https://${label}.${label}.${'b'.repeat(150)}.example`
    expect(input.length).toBeLessThanOrEqual(maxPatternLength)
    expect(() => parsePattern(input)).toThrow(/at most 300 characters long, written as punycode/)
  })

  test('a wildcard is not an exact origin', () => {
    expect(() => parseExactOrigin('https://*.example.com')).toThrow(/wildcard/)
  })
})

describe('inv-05 allowed-origin patterns: wildcards', () => {
  test.each([
    ['https://*.example.com', 'https://*.example.com'],
    ['https://*.Example.COM/', 'https://*.example.com'],
    ['https://*.example.co.uk', 'https://*.example.co.uk'],
    ['https://*.app.example.com', 'https://*.app.example.com'],
    ['https://*.example.com:8443', 'https://*.example.com:8443'],
    ['https://*.example.com:443', 'https://*.example.com'],
    // One owner's subdomain of a shared host is a registrable domain of its own.
    ['https://*.my-team.vercel.app', 'https://*.my-team.vercel.app'],
  ])('accepts %s as %s', (input, canonical) => {
    expect(parsePattern(input)).toBe(canonical)
  })

  test.each([
    'https://*.vercel.app',
    'https://*.pages.dev',
    'https://*.ngrok-free.app',
    'https://*.github.io',
    'https://*.com',
    'https://*.co.uk',
    'https://*.localhost',
  ])('refuses %s: a public suffix', (input) => {
    expect(() => parsePattern(input)).toThrow(InvalidOriginError)
    expect(() => parsePattern(input)).toThrow(/is a public suffix/)
  })

  test.each([
    ['http://*.example.com', /must use https/],
    ['https://*.*.example.com', /only one wildcard/],
    ['https://a.*.example.com', /wildcard/],
    ['https://*example.com', /wildcard/],
    ['https://*.127.0.0.1', /IP address/],
    ['https://*.[::1]', /IP address|not a valid origin/],
    ['https://*.example.com/path', /remove the path/],
    ['https://*.', /host is missing|not a valid origin/],
  ])('refuses %s', (input, message) => {
    expect(() => parsePattern(input)).toThrow(message)
  })
})

describe('inv-05 allowed-origin lists', () => {
  test('canonicalizes, drops duplicates and keeps the order', () => {
    expect(
      parsePatterns([
        'https://b.example.com',
        'https://A.example.com/',
        'https://b.example.com:443',
        'https://*.example.org',
      ]),
    ).toEqual(['https://b.example.com', 'https://a.example.com', 'https://*.example.org'])
  })

  test('refuses the whole list when one pattern is bad', () => {
    expect(() => parsePatterns(['https://ok.example.com', 'https://*.vercel.app'])).toThrow(
      /vercel\.app is a public suffix/,
    )
  })

  test(`refuses more than ${maxPatterns} patterns`, () => {
    const many = Array.from({ length: maxPatterns + 1 }, (_, i) => `https://a${i}.example.com`)
    expect(() => parsePatterns(many)).toThrow(/at most 100/)
  })
})

describe('inv-05 readStoredPatterns (a stored list, checked again when read)', () => {
  test('drops public-suffix wildcards and anything else that could not be saved', () => {
    expect(
      readStoredPatterns([
        'https://*.vercel.app',
        'https://ok.example.com',
        'https://*.pages.dev',
        'https://a.example.com/path',
        "'self'",
        42,
        null,
        'https://*.team.example.org',
      ]),
    ).toEqual({
      allowed: ['https://ok.example.com', 'https://*.team.example.org'],
      refused: [
        'https://*.vercel.app',
        'https://*.pages.dev',
        'https://a.example.com/path',
        "'self'",
        '42',
        'null',
      ],
    })
  })

  test('serves valid entries canonical and once, as a save would have stored them', () => {
    expect(
      readStoredPatterns(['https://Shop.Example.com/', 'https://shop.example.com:443']),
    ).toEqual({ allowed: ['https://shop.example.com'], refused: [] })
  })

  test(`keeps at most ${maxPatterns} (the bound of Api.OriginsResponse)`, () => {
    const many = Array.from({ length: maxPatterns + 5 }, (_, i) => `https://a${i}.example.com`)
    const { allowed, refused } = readStoredPatterns(many)
    expect(allowed).toEqual(many.slice(0, maxPatterns))
    expect(refused).toEqual(many.slice(maxPatterns))
  })

  test('agrees with isValidPattern on every entry', () => {
    const entries = [
      'https://*.vercel.app',
      'https://*.ngrok-free.app',
      'https://*.co.uk',
      'https://*.example.co.uk',
      'http://*.example.com',
      'http://localhost:5170',
    ]
    const { allowed } = readStoredPatterns(entries)
    expect(allowed).toEqual(entries.filter(isValidPattern))
  })
})
