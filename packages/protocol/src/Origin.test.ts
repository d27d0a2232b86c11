import { describe, expect, test } from 'vitest'
import * as Origin from './Origin.js'

describe('inv-05 isAllowed', () => {
  test.each([
    ['http://localhost:3000', [], true],
    ['http://127.0.0.1:5170', [], true],
    ['http://evil.localhost:5170', [], true],
    ['https://example.com', [], false],
    ['https://my-app.vercel.app', [], false],
    ['https://x.pages.dev', [], false],
    ['https://a.ngrok-free.app', [], false],
    ['http://evil.localhost:5170', ['http://127.0.0.1:5170'], false],
    ['http://127.0.0.1:5170', ['http://127.0.0.1:5170'], true],
    ['http://127.0.0.1:5171', ['http://127.0.0.1:5170'], false],
    ['https://127.0.0.1:5170', ['http://127.0.0.1:5170'], false],
    ['https://app.example.com', ['https://*.example.com'], true],
    ['https://a.b.example.com', ['https://*.example.com'], true],
    ['https://example.com', ['https://*.example.com'], false],
    ['https://evilexample.com', ['https://*.example.com'], false],
    ['https://example.com.evil.io', ['https://*.example.com'], false],
    ['http://app.example.com', ['https://*.example.com'], false],
    ['https://app.example.com:8443', ['https://*.example.com'], false],
    ['https://app.example.com:8443', ['https://*.example.com:8443'], true],
    ['https://app.example.com', ['https://*.example.com:443'], true],
    ['null', ['https://*.example.com'], false],
    ['https://example.com/', ['https://example.com'], false],
    ['HTTPS://EXAMPLE.COM', ['https://example.com'], false],
    ['javascript:alert(1)', [], false],
  ])('%s with %j: %s', (origin, list, allowed) => {
    expect(Origin.isAllowed(origin, list)).toBe(allowed)
  })
})

describe('inv-05 devDefaultSources', () => {
  test.each([
    'http://localhost:3000',
    'https://localhost:8443',
    'http://127.0.0.1:5170',
    'https://app.localhost',
  ])('%s is a dev default and a listed source covers it', (origin) => {
    expect(Origin.isDevDefault(origin)).toBe(true)
    const { protocol, hostname } = new URL(origin)
    const covered = Origin.devDefaultSources.some((source) => {
      const [scheme, rest = ''] = source.split('://')
      const host = rest.replace(/:\*$/, '')
      return (
        `${scheme}:` === protocol &&
        (host === hostname || (host.startsWith('*.') && hostname.endsWith(host.slice(1))))
      )
    })
    expect(covered).toBe(true)
  })

  test('lists no shared-hosting suffix', () => {
    for (const source of Origin.devDefaultSources)
      expect(source).not.toMatch(/vercel\.app|pages\.dev|ngrok/)
  })
})
