import { describe, expect, test } from 'vitest'
import {
  hostNameOfUrl,
  hostRuleOf,
  isHttpsOrLoopback,
  isHttpsOrPrivate,
  isOwnHost,
  parseHost,
} from './HostNames.js'

describe('parseHost', () => {
  test.each([
    ['api.localhost:5173', 80, { hostname: 'api.localhost', port: 5173 }],
    ['API.Example.COM', 443, { hostname: 'api.example.com', port: 443 }],
    ['api.example.com.', 443, { hostname: 'api.example.com', port: 443 }],
    ['api.example.com.:8443', 443, { hostname: 'api.example.com', port: 8443 }],
    ['127.0.0.1:5173', 80, { hostname: '127.0.0.1', port: 5173 }],
    ['[::1]:5173', 80, { hostname: '[::1]', port: 5173 }],
    ['[0:0:0:0:0:0:0:1]', 80, { hostname: '[::1]', port: 80 }],
  ])('%j (default port %i)', (value, defaultPort, expected) => {
    expect(parseHost(value, defaultPort)).toEqual(expected)
  })

  test.each([
    '',
    ' ',
    'user@api.localhost:5173',
    'api.localhost:5173@attacker.example',
    'api.localhost:5173, attacker.example',
    'api.localhost:',
    'api.localhost:0',
    'api.localhost:65536',
    'api.localhost:5173/path',
    'http://api.localhost:5173',
    'api..localhost',
    '.api.localhost',
    'api.localhost..',
    '[::1',
    '[::g]:80',
    'exa mple.com',
    `${'a'.repeat(301)}`,
  ])('refuses %j', (value) => {
    expect(parseHost(value, 80)).toBeUndefined()
  })
})

describe('hostNameOfUrl', () => {
  test('makes the default port explicit', () => {
    expect(hostNameOfUrl('https://api.example.com/porthole')).toEqual({
      hostname: 'api.example.com',
      port: 443,
    })
    expect(hostNameOfUrl('http://api.localhost:5173')).toEqual({
      hostname: 'api.localhost',
      port: 5173,
    })
  })

  test('refuses anything but http(s)', () => {
    expect(() => hostNameOfUrl('ftp://example.com')).toThrow(/not an http/)
  })
})

describe('inv-25 isOwnHost', () => {
  const rule = hostRuleOf({
    origin: 'https://api.example.com',
    extraHosts: ['internal-api:8080'],
    loopback: true,
  })

  test('its names, ports exact, a default port optional', () => {
    for (const host of ['api.example.com', 'api.example.com:443', 'internal-api:8080'])
      expect(isOwnHost(rule, host, 5173), host).toBe(true)
    for (const host of ['api.example.com:80', 'internal-api', 'attacker.example', undefined])
      expect(isOwnHost(rule, host, 5173), String(host)).toBe(false)
  })

  test('loopback names only on its own port, and only when allowed', () => {
    expect(isOwnHost(rule, 'localhost:5173', 5173)).toBe(true)
    expect(isOwnHost(rule, '[::1]:5173', 5173)).toBe(true)
    expect(isOwnHost(rule, 'localhost:5174', 5173)).toBe(false)
    expect(isOwnHost(rule, '127.0.0.2:5173', 5173)).toBe(false)
    expect(isOwnHost(rule, 'foo.localhost:5173', 5173)).toBe(false)
    expect(isOwnHost({ ...rule, loopback: false }, 'localhost:5173', 5173)).toBe(false)
  })

  test('a bad extra host is refused when the rule is made', () => {
    expect(() =>
      hostRuleOf({ origin: 'http://a.example', extraHosts: ['a@b'], loopback: false }),
    ).toThrow(/host\[:port\]/)
  })
})

describe('isHttpsOrLoopback', () => {
  test.each([
    ['https://api.porthole.example', true],
    ['https://10.0.0.7:8443', true],
    ['http://127.0.0.1:5173', true],
    ['http://localhost', true],
    ['http://[::1]:5172', true],
    ['http://widget.localhost:5171', true],
    ['http://api.porthole.example', false],
    ['http://10.0.0.7:5172', false],
    ['http://localhost.porthole.example', false],
    ['http://127.0.0.1.nip.io', false],
    ['ws://127.0.0.1:5174', false],
    ['not a url', false],
  ])('%s: %s', (url, fit) => {
    expect(isHttpsOrLoopback(url)).toBe(fit)
  })
})

describe('isHttpsOrPrivate', () => {
  test.each([
    ['https://rpc.example.com/key', true],
    ['http://127.0.0.1:8545', true],
    ['http://10.0.0.7:8545', true],
    ['http://172.16.0.1:8545', true],
    ['http://172.31.255.1:8545', true],
    ['http://192.168.1.20:8545', true],
    ['http://[fd12:3456::1]:8545', true],
    ['http://geth:8545', true],
    ['http://rpc.example.com', false],
    ['http://172.32.0.1:8545', false],
    ['http://8.8.8.8', false],
    ['http://[2001:db8::1]:8545', false],
    ['ws://10.0.0.7:8546', false],
  ])('%s: %s', (url, fit) => {
    expect(isHttpsOrPrivate(url)).toBe(fit)
  })
})
