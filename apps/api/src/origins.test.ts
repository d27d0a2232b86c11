import { describe, expect, test } from 'vitest'
import { InvalidOriginError } from './errors.js'
import {
  isValidPattern,
  maxPatterns,
  parseExactOrigin,
  parsePattern,
  parsePatterns,
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
