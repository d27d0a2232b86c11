import { describe, expect, test } from 'vitest'
import * as Contract from './Contract.js'
import * as Secure from './Secure.js'

/** The seed's app → frame messages (SPEC section 7), by the names the contract gives them. */
const seedMessages = [
  ['connect email', 'connectEmail'],
  ['connect device', 'connectDevice'],
  ['connect OTP', 'connectOtp'],
  ['connect social', 'connectSocial'],
  ['connect Farcaster', 'connectFarcaster'],
  ['social redirect URI', 'getSocialRedirectUri'],
  ['get user', 'getUser'],
  ['sign out', 'signOut'],
  ['is connected', 'isConnected'],
  ['get chain id', 'getChainId'],
  ['RPC request', 'rpcRequest'],
  ['update email', 'updateEmail'],
  ['update email primary OTP', 'updateEmailPrimaryOtp'],
  ['update email secondary OTP', 'updateEmailSecondaryOtp'],
  ['sync theme', 'syncTheme'],
  ['sync dapp data', 'syncDappData'],
  ['smart account init', 'initSmartAccount'],
  ['set preferred account', 'setPreferredAccount'],
  ['get enabled networks', 'getSmartAccountEnabledNetworks'],
  ['switch network', 'switchNetwork'],
  ['reload', 'reload'],
] as const

describe('secure', () => {
  test.each(seedMessages)(
    'has the seed message "%s" (%s), with params and result schemas',
    (_, method) => {
      const spec = Secure.secure.requests[method]
      expect(spec.params).toBeDefined()
      expect(spec.result).toBeDefined()
    },
  )

  test('has no message the seed does not name, besides ping', () => {
    expect(Object.keys(Secure.secure.requests).sort()).toEqual(
      [...seedMessages.map(([, method]) => method), 'ping'].sort(),
    )
  })

  test('gives both sides parsers for every message', () => {
    const frame = Contract.parsers(Secure.secure, Secure.widget)
    const app = Contract.parsers(Secure.widget, Secure.secure)
    for (const [, method] of seedMessages) {
      expect(typeof frame.params[method]).toBe('function')
      expect(typeof app.results[method]).toBe('function')
    }
  })
})

describe('inv-18 strict parsing', () => {
  const { requests } = Secure.secure

  test.each([
    ['connectEmail', { email: 'ada@example.com' }, true],
    ['connectEmail', { email: 'not an email' }, false],
    ['connectEmail', { email: `${'a'.repeat(250)}@x.io` }, false],
    ['connectEmail', { email: 'ada@example.com', extra: 1 }, false],
    ['connectOtp', { otp: '123456' }, true],
    ['connectOtp', { otp: 123456 }, false],
    ['getSocialRedirectUri', { provider: 'google' }, true],
    ['getSocialRedirectUri', { provider: 'myspace' }, false],
    ['rpcRequest', { method: 'personal_sign', params: ['0x00', '0x1'] }, true],
    ['rpcRequest', { method: '', params: [] }, false],
    ['rpcRequest', { method: 'eth_call', chainId: 'mainnet' }, false],
    ['rpcRequest', { method: 'personal_sign', origin: 'https://host.example' }, true],
    ['rpcRequest', { method: 'personal_sign', origin: 'http://localhost:3000' }, true],
    ['rpcRequest', { method: 'personal_sign', origin: 'https://host.example/' }, false],
    ['rpcRequest', { method: 'personal_sign', origin: 'null' }, false],
    ['rpcRequest', { method: 'personal_sign', origin: 'javascript:alert(1)' }, false],
    ['switchNetwork', { chainId: 'eip155:1' }, true],
    ['setPreferredAccount', { type: 'smartAccount' }, true],
    ['setPreferredAccount', { type: 'root' }, false],
    [
      'syncDappData',
      {
        projectId: 'p',
        sdkVersion: '4',
        metadata: { name: 'n', description: '', url: 'javascript:alert(1)', icons: [] },
      },
      false,
    ],
    // A `__proto__` key, as JSON would carry it, is an unknown key like any other.
    ['getUser', JSON.parse('{"__proto__":{"chainId":"eip155:1"}}'), false],
  ] as const)('%s params %j: %s', (method, params, ok) => {
    expect(requests[method].params.safeParse(params).success).toBe(ok)
  })

  test.each([
    ['connectEmail', { action: 'VERIFY_OTP' }, true],
    ['connectEmail', { action: 'LOGIN' }, false],
    ['updateEmail', { action: 'VERIFY_SECONDARY_OTP' }, true],
    ['updateEmail', { action: 'VERIFY_OTP' }, false],
    ['isConnected', { isConnected: 'yes' }, false],
    [
      'getUser',
      { address: '0x1', chainId: 'eip155:1', accounts: [{ address: '0x1', type: 'eoa' }] },
      true,
    ],
    ['getUser', { address: '0x1', chainId: 'eip155:1', privateKey: '0x..' }, false],
  ] as const)('%s result %j: %s', (method, result, ok) => {
    expect(requests[method].result.safeParse(result).success).toBe(ok)
  })
})

describe('requestTimeouts', () => {
  test.each([
    ['connectEmail', 120_000],
    ['connectDevice', 120_000],
    ['connectOtp', 120_000],
    ['connectSocial', 120_000],
    ['getSocialRedirectUri', 120_000],
    ['signOut', 3000],
  ] as const)('%s waits %i ms (SPEC 9)', (method, timeout) => {
    expect(Secure.requestTimeouts[method]).toBe(timeout)
  })
})
