import { describe, expect, test } from 'vitest'
import { opensInNewTab, toDeepLink } from './deepLinks.js'

const uri = 'wc:7f6e50@2?relay-protocol=irn&symKey=58e3b2'
const encoded = 'wc%3A7f6e50%402%3Frelay-protocol%3Dirn%26symKey%3D58e3b2'

describe('toDeepLink', () => {
  test.each([
    { base: 'https://metamask.app.link', expected: `https://metamask.app.link/wc?uri=${encoded}` },
    { base: 'https://metamask.app.link/', expected: `https://metamask.app.link/wc?uri=${encoded}` },
    {
      base: 'https://link.trustwallet.com/',
      expected: `https://link.trustwallet.com/wc?uri=${encoded}`,
    },
  ])('adds /wc?uri= to the universal link $base', ({ base, expected }) => {
    expect(toDeepLink(base, uri)).toBe(expected)
  })

  test.each([
    { base: 'metamask://', expected: `metamask://wc?uri=${encoded}` },
    { base: 'trust:', expected: `trust://wc?uri=${encoded}` },
    { base: 'rainbow://app', expected: `rainbow://app/wc?uri=${encoded}` },
    { base: 'rainbow://app/', expected: `rainbow://app/wc?uri=${encoded}` },
  ])('adds wc?uri= after the custom scheme $base', ({ base, expected }) => {
    expect(toDeepLink(base, uri)).toBe(expected)
  })

  test.each([
    'javascript:alert(1)',
    'JavaScript:alert(document.domain)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'javascript://%0Aalert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
  ])('refuses the dangerous link %j', (base) => {
    expect(toDeepLink(base, uri)).toBeNull()
  })

  test.each(['', 'not a url', 'metamask', '://', '/wc'])('refuses the garbage %j', (base) => {
    expect(toDeepLink(base, uri)).toBeNull()
  })

  test('percent-encodes the URI so it stays one query value', () => {
    const link = toDeepLink('https://metamask.app.link', 'wc:a@2?x=1&y=2#frag')
    expect(link).not.toBeNull()
    const url = new URL(link ?? '')
    expect([...url.searchParams.keys()]).toEqual(['uri'])
    expect(url.searchParams.get('uri')).toBe('wc:a@2?x=1&y=2#frag')
    expect(url.hash).toBe('')
  })
})

describe('opensInNewTab', () => {
  test('a universal link or web app opens in a new tab, not in the widget frame it would replace', () => {
    expect(opensInNewTab(`https://metamask.app.link/wc?uri=${encoded}`)).toBe(true)
    expect(opensInNewTab('HTTP://wallet.example/wc')).toBe(true)
  })

  test("an app's own scheme stays: it hands over to the app", () => {
    expect(opensInNewTab(`metamask://wc?uri=${encoded}`)).toBe(false)
    expect(opensInNewTab(`trust://wc?uri=${encoded}`)).toBe(false)
  })
})
