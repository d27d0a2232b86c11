import { createSiweMessage, parseSiweMessage } from 'viem/siwe'
import { describe, expect, test } from 'vitest'
import * as Siwx from './Siwx.js'

/** The example message of EIP-4361 (its current text, `.invalid` domains). */
const eip4361Example = `service.invalid wants you to sign in with your Ethereum account:
0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2

I accept the ServiceOrg Terms of Service: https://service.invalid/tos

URI: https://service.invalid/login
Version: 1
Chain ID: 1
Nonce: 32891756
Issued At: 2021-09-30T16:25:24Z
Resources:
- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/
- https://example.com/my-web2-claim.json`

/** EIP-4361's example with a scheme, and every optional line. */
const eip4361Full = `https://example.com wants you to sign in with your Ethereum account:
0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2

I accept the ExampleOrg Terms of Service: https://example.com/tos

URI: https://example.com/login
Version: 1
Chain ID: 1
Nonce: 32891756
Issued At: 2021-09-30T16:25:24Z
Expiration Time: 2021-10-01T16:25:24.000+02:00
Not Before: 2021-09-30T16:25:24Z
Request ID: req-123_~:@
Resources:
- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/`

const evmAddress = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const solanaAddress = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM'
const solanaMainnet = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
const issuedAt = new Date('2025-01-02T03:04:05.678Z')

const evmFields = {
  chainId: 'eip155:31337',
  address: evmAddress,
  scheme: 'http',
  domain: '127.0.0.1:5170',
  uri: 'http://127.0.0.1:5170',
  nonce: 'Abcdefgh12345678XYZ',
  issuedAt,
} as const

describe('create', () => {
  test('writes EVM messages exactly as viem createSiweMessage does', () => {
    const fields = {
      ...evmFields,
      statement: 'Sign in to the demo',
      expirationTime: new Date('2025-01-03T00:00:00.000Z'),
      notBefore: new Date('2025-01-02T00:00:00.000Z'),
      requestId: 'r1',
      resources: ['https://example.com/a', 'ipfs://bafy/'],
    }
    expect(Siwx.create(fields)).toBe(createSiweMessage({ ...fields, chainId: 31337, version: '1' }))
  })

  test('writes the EIP-4361 lines, with the checksummed address and no statement line when absent', () => {
    expect(Siwx.create({ ...evmFields, address: evmAddress.toLowerCase() })).toBe(
      [
        'http://127.0.0.1:5170 wants you to sign in with your Ethereum account:',
        evmAddress,
        '',
        '',
        'URI: http://127.0.0.1:5170',
        'Version: 1',
        'Chain ID: 31337',
        'Nonce: Abcdefgh12345678XYZ',
        'Issued At: 2025-01-02T03:04:05.678Z',
      ].join('\n'),
    )
  })

  test('writes Solana messages in the CAIP-122 form, the chain as its CAIP-2 reference', () => {
    const message = Siwx.create({
      chainId: solanaMainnet,
      address: solanaAddress,
      domain: 'app.example.com',
      uri: 'https://app.example.com/login',
      statement: 'Sign in to Example',
      nonce: 'Abcdefgh12345678XYZ',
      issuedAt,
      expirationTime: new Date('2025-01-02T03:14:05.678Z'),
      resources: ['https://app.example.com/terms'],
    })
    expect(message).toBe(
      [
        'app.example.com wants you to sign in with your Solana account:',
        solanaAddress,
        '',
        'Sign in to Example',
        '',
        'URI: https://app.example.com/login',
        'Version: 1',
        'Chain ID: 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
        'Nonce: Abcdefgh12345678XYZ',
        'Issued At: 2025-01-02T03:04:05.678Z',
        'Expiration Time: 2025-01-02T03:14:05.678Z',
        'Resources:',
        '- https://app.example.com/terms',
      ].join('\n'),
    )
  })

  test('defaults issuedAt to now and version to 1', () => {
    const before = Date.now()
    const { issuedAt: at, version } = Siwx.parse(Siwx.create({ ...evmFields, issuedAt: undefined }))
    expect(version).toBe('1')
    expect(at.getTime()).toBeGreaterThanOrEqual(before)
    expect(at.getTime()).toBeLessThanOrEqual(Date.now())
  })

  test.each([
    ['a short nonce', { nonce: 'abc123' }, /nonce/],
    ['a nonce with symbols', { nonce: 'abcdefgh-1234567' }, /nonce/],
    ['a statement with a line break', { statement: 'one\ntwo' }, /statement/],
    ['a non-ASCII statement', { statement: 'héllo' }, /statement/],
    ['a domain with a path', { domain: 'example.com/login' }, /domain/],
    ['a domain with user info', { domain: 'user@example.com' }, /domain/],
    ['a relative URI', { uri: '/login' }, /uri/],
    ['a bad checksum', { address: evmAddress.replace('f39Fd', 'F39fd') }, /address/],
    ['a Solana address on an EVM chain', { address: solanaAddress }, /address/],
    ['a Bitcoin chain', { chainId: 'bip122:000000000019d6689c085ae165831e93' }, /chainId/],
    ['a chain id that is not a number', { chainId: 'eip155:abc' }, /chainId/],
    ['chain id 0', { chainId: 'eip155:0' }, /chainId/],
    ['version 2', { version: '2' }, /version/],
    ['too many resources', { resources: new Array(33).fill('https://x.example') }, /resources/],
    ['an unknown field', { extra: 1 }, /Unrecognized key/],
  ])('refuses %s', (_, change, field) => {
    expect(() => Siwx.create({ ...evmFields, ...change } as Siwx.CreateParameters)).toThrow(
      Siwx.InvalidSiwxMessageError,
    )
    expect(() => Siwx.create({ ...evmFields, ...change } as Siwx.CreateParameters)).toThrow(field)
  })

  test('refuses an EVM domain viem cannot write (no top-level domain)', () => {
    expect(() => Siwx.create({ ...evmFields, domain: 'intranet' })).toThrow(
      Siwx.InvalidSiwxMessageError,
    )
  })
})

describe('parse', () => {
  test('reads the EIP-4361 example message', () => {
    expect(Siwx.parse(eip4361Example)).toEqual({
      domain: 'service.invalid',
      address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
      statement: 'I accept the ServiceOrg Terms of Service: https://service.invalid/tos',
      uri: 'https://service.invalid/login',
      version: '1',
      chainId: 'eip155:1',
      nonce: '32891756',
      issuedAt: new Date('2021-09-30T16:25:24Z'),
      resources: [
        'ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/',
        'https://example.com/my-web2-claim.json',
      ],
    })
  })

  test('reads a scheme, time offsets and every optional line, as viem does', () => {
    const parsed = Siwx.parse(eip4361Full)
    expect(parsed).toMatchObject({
      scheme: 'https',
      domain: 'example.com',
      expirationTime: new Date('2021-10-01T14:25:24Z'),
      notBefore: new Date('2021-09-30T16:25:24Z'),
      requestId: 'req-123_~:@',
      resources: ['ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/'],
    })
    const viem = parseSiweMessage(eip4361Full)
    expect({ ...parsed, chainId: viem.chainId }).toEqual(viem)
  })

  test.each([
    ['with every field', { statement: 'Hi there', requestId: 'x', resources: ['https://a.b/c'] }],
    ['without a statement', {}],
    ['with an empty resource list', { resources: [] }],
    ['with times', { expirationTime: new Date(2e12), notBefore: new Date(1.7e12) }],
  ])('round-trips create → parse %s', (_, extra) => {
    for (const fields of [
      { ...evmFields, ...extra },
      {
        ...evmFields,
        ...extra,
        chainId: solanaMainnet,
        address: solanaAddress,
        scheme: undefined,
        domain: 'app.example.com',
        uri: 'https://app.example.com',
      },
    ]) {
      const message = Siwx.create(fields)
      expect(Siwx.parse(message)).toEqual(
        Object.fromEntries(
          Object.entries({ ...fields, version: '1' }).filter(([, value]) => value !== undefined),
        ),
      )
    }
  })

  test('reads a lowercase EVM address as written', () => {
    const message = eip4361Example.replace(
      '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
      '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
    )
    expect(Siwx.parse(message).address).toBe('0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2')
  })

  const lines = eip4361Example.split('\n')
  const without = (prefix: string) => lines.filter((line) => !line.startsWith(prefix)).join('\n')
  test.each([
    ['an empty text', ''],
    ['a trailing newline', `${eip4361Example}\n`],
    ['a leading space', ` ${eip4361Example}`],
    ['CRLF line ends', eip4361Example.replaceAll('\n', '\r\n')],
    ['an unknown line', eip4361Example.replace('Version: 1', 'Version: 1\nColor: blue')],
    ['a missing Version', without('Version:')],
    ['a missing Nonce', without('Nonce:')],
    ['a missing Issued At', without('Issued At:')],
    ['version 2', eip4361Example.replace('Version: 1', 'Version: 2')],
    [
      'lines out of order',
      eip4361Example.replace(/Chain ID: 1\nNonce: 32891756/, 'Nonce: 32891756\nChain ID: 1'),
    ],
    ['a short nonce', eip4361Example.replace('Nonce: 32891756', 'Nonce: 1234')],
    ['a bad checksum', eip4361Example.replace('0xC02aaA39', '0xc02AAA39')],
    [
      'a short address',
      eip4361Example.replace('0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', '0xC02aaA39'),
    ],
    ['a chain id that is not a number', eip4361Example.replace('Chain ID: 1', 'Chain ID: one')],
    ['a leading zero in the chain id', eip4361Example.replace('Chain ID: 1', 'Chain ID: 01')],
    ['a date that is not RFC 3339', eip4361Example.replace('2021-09-30T16:25:24Z', '30/09/2021')],
    ['an impossible date', eip4361Example.replace('2021-09-30T16:25:24Z', '2021-13-45T16:25:24Z')],
    [
      'a date without a zone',
      eip4361Example.replace('2021-09-30T16:25:24Z', '2021-09-30T16:25:24'),
    ],
    ['a Bitcoin account', eip4361Example.replace('Ethereum account', 'Bitcoin account')],
    [
      'a domain with a path',
      eip4361Example.replace('service.invalid wants', 'service.invalid/x wants'),
    ],
    ['a non-ASCII statement', eip4361Example.replace('I accept', 'J’accepte')],
    ['a statement over two lines', eip4361Example.replace('I accept the', 'I accept\nthe')],
    ['an over-long text', eip4361Example.replace('I accept', 'I accept'.repeat(1100))],
    [
      'a resource that is not a URI',
      eip4361Example.replace('- https://example.com/my-web2-claim.json', '- not a uri'),
    ],
    [
      'a Solana address in an Ethereum message',
      eip4361Example.replace('0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', solanaAddress),
    ],
  ])('refuses %s', (_, message) => {
    expect(() => Siwx.parse(message)).toThrow(Siwx.InvalidSiwxMessageError)
    expect(Siwx.validate(message)).toBe(false)
  })

  test('refuses a Solana message with an EVM address or a bad base58 address', () => {
    const solana = Siwx.create({
      ...evmFields,
      chainId: solanaMainnet,
      address: solanaAddress,
      domain: 'example.com',
      scheme: undefined,
      uri: 'https://example.com',
    })
    expect(Siwx.validate(solana)).toBe(true)
    expect(Siwx.validate(solana.replace(solanaAddress, evmAddress))).toBe(false)
    expect(Siwx.validate(solana.replace(solanaAddress, `${solanaAddress.slice(0, -1)}0`))).toBe(
      false,
    )
  })
})

describe('toOrigin', () => {
  test.each([
    [{ domain: 'example.com' }, 'https://example.com'],
    [{ domain: 'Example.COM:443' }, 'https://example.com'],
    [{ scheme: 'http', domain: '127.0.0.1:5170' }, 'http://127.0.0.1:5170'],
    [{ scheme: 'HTTP', domain: 'localhost:80' }, 'http://localhost'],
    [{ scheme: 'https', domain: 'app.example.com:8443' }, 'https://app.example.com:8443'],
    [{ scheme: 'ftp', domain: 'example.com' }, undefined],
    [{ scheme: 'https', domain: 'exa mple.com' }, undefined],
  ])('%j is %s', (message, origin) => {
    expect(Siwx.toOrigin(message)).toBe(origin)
  })
})

describe('toNamespace', () => {
  test.each([
    ['eip155:1', 'eip155'],
    [solanaMainnet, 'solana'],
    ['bip122:000000000019d6689c085ae165831e93', undefined],
    ['__proto__:x', undefined],
  ])('%s is %s', (chainId, namespace) => {
    expect(Siwx.toNamespace(chainId)).toBe(namespace)
  })
})

describe('inv-18 wire shapes are strict and bounded', () => {
  const session = {
    token: 'a'.repeat(43),
    address: evmAddress,
    chainId: 'eip155:1',
    domain: 'example.com',
    uri: 'https://example.com',
    issuedAt: '2025-01-02T03:04:05.678Z',
    expirationTime: null,
    expiresAt: '2025-01-09T03:04:05.678Z',
    message: 'x',
    signature: '0xabcd',
  }

  test('a session, its check and a nonce parse', () => {
    expect(Siwx.SiwxSession.parse(session)).toEqual(session)
    const { token: _, message: __, signature: ___, ...check } = session
    expect(Siwx.SiwxSessionCheck.parse(check)).toEqual(check)
    expect(
      Siwx.SiwxNonce.parse({ nonce: 'a'.repeat(16), expiresAt: session.expiresAt }),
    ).toBeTruthy()
  })

  test.each([
    [Siwx.SiwxSession, { ...session, extra: 1 }],
    [Siwx.SiwxSession, { ...session, token: 'short' }],
    [Siwx.SiwxSession, { ...session, chainId: 'bip122:000000000019d6689c085ae165831e93' }],
    [Siwx.SiwxSession, { ...session, expirationTime: undefined }],
    [Siwx.SiwxSessionRequest, { message: 'x', signature: '0xab', extra: 1 }],
    [Siwx.SiwxSessionRequest, { message: '', signature: '0xab' }],
    [
      Siwx.SiwxSessionRequest,
      { message: 'x'.repeat(Siwx.maxMessageLength + 1), signature: '0xab' },
    ],
    [Siwx.SiwxSessionRequest, { message: 'x', signature: `0x${'ab'.repeat(8193)}` }],
    [Siwx.SiwxSessionRequest, { message: 'x', signature: '0xabc' }],
    [Siwx.SiwxSessionRequest, { message: 'x', signature: 'not base58 0OIl' }],
    [Siwx.SiwxSessionRequest, JSON.parse('{"message":"x","signature":"0xab","__proto__":{"a":1}}')],
    [Siwx.SiwxNonce, { nonce: 'a'.repeat(15), expiresAt: session.expiresAt }],
    [Siwx.SiwxNonce, { nonce: `${'a'.repeat(16)}!`, expiresAt: session.expiresAt }],
  ])('refuses %#', (schema, value) => {
    expect(schema.safeParse(value).success).toBe(false)
  })
})
