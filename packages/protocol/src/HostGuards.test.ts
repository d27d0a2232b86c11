import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import * as Host from './Host.js'
import {
  parseAlert,
  parseHostWalletRequest,
  parseProviderEvent,
  parseStandardWalletRequest,
  parseState,
  standardFeatures,
} from './HostGuards.js'

const accepts = (parse: (value: unknown) => unknown, value: unknown) => {
  try {
    parse(value)
    return true
  } catch {
    return false
  }
}

const state = fc.record(
  {
    open: fc.oneof(fc.boolean(), fc.constant('true')),
    view: fc.constantFrom('Connect', 'Account', 'Nope'),
    status: fc.constantFrom('connected', 'disconnected', 'weird'),
    caipAddress: fc.constantFrom(null, 'eip155:1:0xabc', 'eip155:1', 'EIP155:1:0x1', 5),
    address: fc.oneof(fc.constant(null), fc.string({ maxLength: 200 })),
    chainId: fc.constantFrom(
      null,
      'eip155:31337',
      'eip155',
      'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    ),
    connector: fc.oneof(fc.constant(null), fc.string()),
    session: fc.oneof(
      fc.constant(null),
      fc.record(
        {
          data: fc.oneof(fc.dictionary(fc.string(), fc.anything()), fc.array(fc.nat())),
          message: fc.string(),
          signature: fc.string(),
          cacao: fc.anything(),
          extra: fc.nat(),
        },
        { requiredKeys: [] },
      ),
    ),
    extra: fc.nat(),
  },
  { requiredKeys: ['open', 'view', 'status', 'caipAddress', 'address', 'chainId', 'connector'] },
)

describe('inv-18 parseState', () => {
  test('agrees with the zod State schema', () => {
    fc.assert(
      fc.property(fc.oneof(state, fc.anything()), (value) => {
        expect(accepts(parseState, value)).toBe(Host.State.safeParse(value).success)
      }),
      { numRuns: 3_000 },
    )
  }, 60_000)

  test('accepts the initial state', () => {
    expect(parseState(Host.initialState)).toEqual(Host.initialState)
  })
})

describe('inv-18 parseProviderEvent', () => {
  test('agrees with the zod ProviderEvent schema', () => {
    const event = fc.record(
      { event: fc.constantFrom('connect', 'chainChanged', 'x'), data: fc.anything(), y: fc.nat() },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(fc.oneof(event, fc.anything()), (value) => {
        expect(accepts(parseProviderEvent, value)).toBe(Host.ProviderEvent.safeParse(value).success)
      }),
    )
  })
})

describe('inv-18 parseAlert', () => {
  test('agrees with the zod Alert schema', () => {
    const alert = fc.record(
      {
        code: fc.constantFrom('UNVERIFIED_DOMAIN', 'IFRAME_LOAD_FAILED', 'NOPE'),
        message: fc.string({ maxLength: 600 }),
        y: fc.nat(),
      },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(fc.oneof(alert, fc.anything()), (value) => {
        expect(accepts(parseAlert, value)).toBe(Host.Alert.safeParse(value).success)
      }),
    )
  })
})

describe('inv-18 parseHostWalletRequest', () => {
  test('agrees with the zod HostWalletRequest schema', () => {
    const request = fc.record(
      {
        uuid: fc.oneof(fc.uuid(), fc.string({ maxLength: 200 }), fc.nat()),
        method: fc.oneof(fc.constantFrom('', 'eth_accounts'), fc.string({ maxLength: 200 })),
        params: fc.oneof(
          fc.array(fc.anything()),
          fc.dictionary(fc.string(), fc.anything()),
          fc.constantFrom(null, 'x', 1),
        ),
        y: fc.nat(),
      },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(fc.oneof(request, fc.anything()), (value) => {
        expect(accepts(parseHostWalletRequest, value)).toBe(
          Host.HostWalletRequest.safeParse(value).success,
        )
      }),
      { numRuns: 2000 },
    )
    // 2,000 runs take about a second alone, five on a loaded two-core machine.
  }, 30_000)
})

describe('inv-18 parseStandardWalletRequest', () => {
  test('agrees with the zod StandardWalletRequest schema', () => {
    const request = fc.record(
      {
        id: fc.oneof(fc.constant('standard:0'), fc.string({ maxLength: 200 }), fc.nat()),
        feature: fc.constantFrom(...standardFeatures, 'solana:signIn', ''),
        input: fc.oneof(
          fc.dictionary(fc.string(), fc.anything()),
          fc.array(fc.anything()),
          fc.constantFrom(null, undefined, 'x', 1),
        ),
        y: fc.nat(),
      },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(fc.oneof(request, fc.anything()), (value) => {
        expect(accepts(parseStandardWalletRequest, value)).toBe(
          Host.StandardWalletRequest.safeParse(value).success,
        )
      }),
      { numRuns: 2000 },
    )
  }, 30_000)
})
