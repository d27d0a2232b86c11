/**
 * SECURITY.md 21 and 22: client addresses come from the socket unless
 * `TRUSTED_PROXIES` says otherwise, and then from the rightmost
 * `X-Forwarded-For` entry no trusted proxy wrote; a client's own entries
 * never key a limit. IPv6 clients are limited per /64.
 */
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import {
  createMemoryMailer,
  createTestClient,
  expectRefused,
  newDeviceId,
  newEmail,
} from '../../test/embedded.js'
import { createApp } from '../app.js'
import { emailSendIpLimit } from '../auth/email/codes.js'
import {
  clientAddress,
  limitKeyOf,
  maxForwardedHops,
  normalizeAddress,
  noTrustedProxies,
  parseTrustedProxies,
  prefixKeyOf,
} from './clientIp.js'
import { clientIp, identifyClient } from './request.js'

const proxies = parseTrustedProxies('10.0.0.0/8, 192.168.1.7, fd00::/8')

describe('parseTrustedProxies', () => {
  test('takes addresses and CIDR ranges of both families', () => {
    expect(proxies.entries).toEqual(['10.0.0.0/8', '192.168.1.7', 'fd00::/8'])
    expect(proxies.has('10.200.3.4')).toBe(true)
    expect(proxies.has('192.168.1.7')).toBe(true)
    expect(proxies.has('192.168.1.8')).toBe(false)
    expect(proxies.has('11.0.0.1')).toBe(false)
    expect(proxies.has('fd12:3456::1')).toBe(true)
    expect(proxies.has('fe80::1')).toBe(false)
    // The socket's IPv4-mapped form of a trusted proxy is that proxy.
    expect(proxies.has('::ffff:10.0.0.1')).toBe(true)
    expect(proxies.has('not an address')).toBe(false)
  })

  test('an empty list trusts nobody', () => {
    expect(parseTrustedProxies(' , ').entries).toEqual([])
    expect(noTrustedProxies.has('127.0.0.1')).toBe(false)
  })

  test.each([
    'loadbalancer',
    '10.0.0.0/33',
    '10.0.0.0/x',
    'fd00::/129',
    '10.0.0.0/8/8',
    '10.0.0.1:8080',
    '*',
    '1',
  ])('refuses %j', (value) => {
    expect(() => parseTrustedProxies(value)).toThrow(/is not an IP address|bad prefix length/)
  })
})

describe('normalizeAddress', () => {
  test.each([
    ['1.2.3.4', '1.2.3.4'],
    [' 1.2.3.4 ', '1.2.3.4'],
    ['1.2.3.4:5678', '1.2.3.4'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::FFFF:7f00:1', '127.0.0.1'],
    ['0:0:0:0:0:ffff:1.2.3.4', '1.2.3.4'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['2001:DB8::1', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['unknown', undefined],
    ['_hidden', undefined],
    ['1.2.3.4.5', undefined],
    ['', undefined],
  ])('%j is %j', (value, address) => {
    expect(normalizeAddress(value)).toBe(address)
  })
})

describe('clientAddress', () => {
  const from = (peer: string | undefined, forwardedFor?: string, trusted = proxies) =>
    clientAddress({ peer, forwardedFor, trusted })

  test('without TRUSTED_PROXIES the header is ignored: the socket is the client', () => {
    expect(from('203.0.113.9', '198.51.100.1', noTrustedProxies)).toBe('203.0.113.9')
    expect(from('10.0.0.1', '198.51.100.1', noTrustedProxies)).toBe('10.0.0.1')
  })

  test('a peer that is no trusted proxy is the client, whatever it forwards', () => {
    expect(from('203.0.113.9', '198.51.100.1')).toBe('203.0.113.9')
    expect(from('::ffff:203.0.113.9', '10.0.0.1')).toBe('203.0.113.9')
  })

  test('through a trusted proxy, the client is the entry it appended', () => {
    expect(from('10.0.0.1', '198.51.100.1')).toBe('198.51.100.1')
    expect(from('10.0.0.1', '198.51.100.1, 192.168.1.7, 10.1.2.3')).toBe('198.51.100.1')
    expect(from('10.0.0.1', '2001:db8::7')).toBe('2001:db8::7')
    expect(from('10.0.0.1', '[2001:db8::7]:5050')).toBe('2001:db8::7')
  })

  test('a spoofed leftmost entry never wins', () => {
    // The client sent `X-Forwarded-For: 1.1.1.1`; the proxy appended its real address.
    expect(from('10.0.0.1', '1.1.1.1, 198.51.100.1')).toBe('198.51.100.1')
    // Spoofing an address the API trusts does not help either.
    expect(from('10.0.0.1', '10.9.9.9, 198.51.100.1')).toBe('198.51.100.1')
    // Two headers (Node joins them in order): the last one is the proxy's.
    expect(from('10.0.0.1', '1.1.1.1, 2.2.2.2,198.51.100.1')).toBe('198.51.100.1')
  })

  test('garbage stops the walk at the trusted hop that forwarded it', () => {
    expect(from('10.0.0.1', 'nonsense')).toBe('10.0.0.1')
    expect(from('10.0.0.1', '198.51.100.1, unknown, 10.0.0.2')).toBe('10.0.0.2')
    expect(from('10.0.0.1', '')).toBe('10.0.0.1')
    expect(from('10.0.0.1', ',,')).toBe('10.0.0.1')
  })

  test('only trusted proxies all the way: the leftmost', () => {
    expect(from('10.0.0.1', '10.0.0.3, 10.0.0.2')).toBe('10.0.0.3')
  })

  test(`reads at most ${maxForwardedHops} entries from the right`, () => {
    const internal = Array.from({ length: maxForwardedHops + 5 }, (_, i) => `10.0.${i}.1`)
    expect(from('10.0.0.1', ['198.51.100.1', ...internal].join(','))).toBe(`10.0.${5}.1`)
  })

  test('no socket address (in-process): undefined', () => {
    expect(from(undefined, '198.51.100.1')).toBeUndefined()
  })
})

describe('limitKeyOf', () => {
  test.each([
    ['198.51.100.1', '198.51.100.1'],
    ['::ffff:198.51.100.1', '198.51.100.1'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8:1:2::1.2.3.4', '2001:db8:1:2::/64'],
    [undefined, 'unknown'],
    ['garbage', 'unknown'],
  ])('%j is keyed as %j', (address, key) => {
    expect(limitKeyOf(address)).toBe(key)
  })

  test('every address of one /64 shares a key; the next /64 does not', () => {
    expect(limitKeyOf('2001:db8:aa:bb:1::1')).toBe(limitKeyOf('2001:db8:aa:bb:ffff::2'))
    expect(limitKeyOf('2001:db8:aa:bb::1')).not.toBe(limitKeyOf('2001:db8:aa:bc::1'))
  })
})

describe('identifyClient', () => {
  const keyOf = async (
    trusted: ReturnType<typeof parseTrustedProxies>,
    peer: string,
    forwardedFor?: string,
  ) => {
    const app = new Hono()
    app.use('*', identifyClient(trusted))
    app.get('/', (c) => c.text(clientIp(c)))
    const response = await app.request(
      '/',
      { headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } },
      { incoming: { socket: { remoteAddress: peer } } },
    )
    return response.text()
  }

  test('keys the request by the socket, or through a trusted proxy', async () => {
    expect(await keyOf(noTrustedProxies, '203.0.113.9', '1.1.1.1')).toBe('203.0.113.9')
    expect(await keyOf(proxies, '10.0.0.1', '1.1.1.1, 198.51.100.1')).toBe('198.51.100.1')
    expect(await keyOf(proxies, '10.0.0.1', '2001:db8:5:6::9')).toBe('2001:db8:5:6::/64')
  })
})

describe('inv-21 per-IP mail limits behind a proxy', () => {
  let testDb: TestDb
  beforeAll(async () => {
    testDb = await createTestDb()
  })
  afterAll(() => testDb?.close())

  const login = (client: ReturnType<typeof createTestClient>, headers: Record<string, string>) =>
    client.post(
      '/auth/v1/login/email',
      { email: newEmail(), deviceId: newDeviceId() },
      { ip: '10.0.0.1', headers },
    )

  test('with TRUSTED_PROXIES, visitors behind the proxy have their own buckets, and spoofing buys none', async () => {
    const app = createApp({
      config: { ...testDb.config, trustedProxies: parseTrustedProxies('10.0.0.0/8') },
      db: testDb.db,
      mailer: createMemoryMailer(),
    })
    const client = createTestClient(app)
    const visitor = { 'x-forwarded-for': '198.51.100.20' }
    for (let sent = 0; sent < emailSendIpLimit.limit; sent++)
      expect((await login(client, visitor)).status).toBe(200)
    const refused = await login(client, visitor)
    await expectRefused(refused, 429, 'rate_limited')
    // A new leftmost entry each time: still the same visitor, as the proxy says.
    for (const spoofed of ['1.1.1.1', '2.2.2.2', '10.0.0.9'])
      expect((await login(client, { 'x-forwarded-for': `${spoofed}, 198.51.100.20` })).status).toBe(
        429,
      )
    // Another visitor behind the same proxy is not refused.
    expect((await login(client, { 'x-forwarded-for': '198.51.100.21' })).status).toBe(200)
  })

  test('without TRUSTED_PROXIES, X-Forwarded-For buys no fresh bucket', async () => {
    const app = createApp({ config: testDb.config, db: testDb.db, mailer: createMemoryMailer() })
    const client = createTestClient(app)
    for (let sent = 0; sent < emailSendIpLimit.limit; sent++)
      expect(
        (
          await client.post(
            '/auth/v1/login/email',
            { email: newEmail(), deviceId: newDeviceId() },
            { ip: '203.0.113.77', headers: { 'x-forwarded-for': `198.51.100.${sent}` } },
          )
        ).status,
      ).toBe(200)
    const refused = await client.post(
      '/auth/v1/login/email',
      { email: newEmail(), deviceId: newDeviceId() },
      { ip: '203.0.113.77', headers: { 'x-forwarded-for': '198.51.100.250' } },
    )
    expect(refused.status).toBe(429)
  })

  test('IPv6 visitors share one bucket per /64', async () => {
    const app = createApp({ config: testDb.config, db: testDb.db, mailer: createMemoryMailer() })
    const client = createTestClient(app)
    const send = (ip: string) =>
      client.post('/auth/v1/login/email', { email: newEmail(), deviceId: newDeviceId() }, { ip })
    for (let sent = 0; sent < emailSendIpLimit.limit; sent++)
      expect((await send(`2001:db8:77:1::${(sent + 1).toString(16)}`)).status).toBe(200)
    // Another address in the same /64: refused.
    expect((await send('2001:db8:77:1:ffff:ffff:ffff:ffff')).status).toBe(429)
    // The next /64: its own bucket.
    expect((await send('2001:db8:77:2::1')).status).toBe(200)
  })
})

describe('prefixKeyOf', () => {
  test.each([
    ['203.0.113.7', '203.0.113.0/24'],
    ['::ffff:203.0.113.250', '203.0.113.0/24'],
    ['2001:db8:1:2ab::1', '2001:db8:1:200::/56'],
    ['2001:db8:1:ff::9', '2001:db8:1:0::/56'],
    ['not an address', 'unknown'],
    [undefined, 'unknown'],
  ])('%s is counted in %s', (address, key) => {
    expect(prefixKeyOf(address)).toBe(key)
  })

  test('two addresses of one /24 share a bucket, the next /24 does not', () => {
    expect(prefixKeyOf('198.51.100.1')).toBe(prefixKeyOf('198.51.100.254'))
    expect(prefixKeyOf('198.51.100.1')).not.toBe(prefixKeyOf('198.51.101.1'))
  })
})
