import { describe, expect, test } from 'vitest'
import {
  checkSend,
  initialSendState,
  isValidReceiver,
  mayRetryTokens,
  parseAmount,
  receiverPatch,
  type SendState,
  type SendToken,
} from './sendForm.js'

const eth: SendToken = { kind: 'native', symbol: 'ETH', decimals: 18 }
const receiver = '0x1111111111111111111111111111111111111111'

const state = (patch: Partial<SendState>): SendState => ({
  ...initialSendState,
  token: eth,
  sendTokenAmount: '1',
  receiverAddress: receiver,
  ...patch,
})

describe('checkSend', () => {
  test.each([
    { case: 'no amount', patch: { sendTokenAmount: '' } },
    { case: 'a blank amount', patch: { sendTokenAmount: '   ' } },
    { case: 'no receiver', patch: { receiverAddress: '' } },
    { case: 'a blank receiver', patch: { receiverAddress: ' \t' } },
    { case: 'neither', patch: { sendTokenAmount: '', receiverAddress: '', token: null } },
  ])('asks for an amount and a receiver with $case', ({ patch }) => {
    expect(checkSend(state(patch), 'eip155')).toBe('An amount and receiver address are required')
  })

  test.each(['bip122', 'cosmos', ''])('refuses to send on the %j namespace', (namespace) => {
    expect(checkSend(state({ token: null }), namespace)).toBe('Unsupported chain')
  })

  test('asks for a token on EVM', () => {
    expect(checkSend(state({ token: null }), 'eip155')).toBe('A token is required')
  })

  test('checks the amount and receiver before the chain, and the chain before the token', () => {
    expect(checkSend(state({ sendTokenAmount: '', token: null }), 'bip122')).toBe(
      'An amount and receiver address are required',
    )
    expect(checkSend(state({ token: null }), 'bip122')).toBe('Unsupported chain')
  })

  test.each([
    { namespace: 'eip155', token: eth },
    { namespace: 'solana', token: { kind: 'native', symbol: 'SOL', decimals: 9 } as const },
    { namespace: 'solana', token: null },
  ])('passes on $namespace with token $token.symbol', ({ namespace, token }) => {
    expect(checkSend(state({ token }), namespace)).toBeNull()
  })
})

describe('parseAmount', () => {
  test.each([
    { amount: '1', decimals: 18, expected: 10n ** 18n },
    { amount: '42', decimals: 0, expected: 42n },
    { amount: '007', decimals: 2, expected: 700n },
    { amount: '1.5', decimals: 6, expected: 1_500_000n },
    { amount: '0.000001', decimals: 6, expected: 1n },
    { amount: '1.123456', decimals: 6, expected: 1_123_456n },
    { amount: '1.', decimals: 6, expected: 1_000_000n },
    { amount: '.5', decimals: 6, expected: 500_000n },
    { amount: '  2.5 ', decimals: 1, expected: 25n },
    { amount: '\t3\n', decimals: 0, expected: 3n },
    {
      amount: '123456789012345678901234567890',
      decimals: 18,
      expected: 123456789012345678901234567890n * 10n ** 18n,
    },
  ])('reads $amount with $decimals decimals as $expected', ({ amount, decimals, expected }) => {
    expect(parseAmount(amount, decimals)).toBe(expected)
  })

  test.each([
    { case: 'too many fraction digits', amount: '0.0000001', decimals: 6 },
    { case: 'a fraction for a token without decimals', amount: '1.5', decimals: 0 },
    { case: 'zero', amount: '0', decimals: 18 },
    { case: 'zero with decimals', amount: '0.000', decimals: 18 },
    { case: 'a lone point', amount: '.', decimals: 18 },
    { case: 'nothing', amount: '', decimals: 18 },
    { case: 'spaces only', amount: '   ', decimals: 18 },
    { case: 'a negative amount', amount: '-1', decimals: 18 },
    { case: 'a plus sign', amount: '+1', decimals: 18 },
    { case: 'an exponent', amount: '1e18', decimals: 18 },
    { case: 'hex', amount: '0x10', decimals: 18 },
    { case: 'a comma', amount: '1,5', decimals: 18 },
    { case: 'two points', amount: '1.2.3', decimals: 18 },
    { case: 'inner spaces', amount: '1 000', decimals: 18 },
    { case: 'words', amount: 'ten', decimals: 18 },
    { case: 'Infinity', amount: 'Infinity', decimals: 18 },
    { case: 'non-ASCII digits', amount: '١٢', decimals: 0 },
  ])('refuses $case ($amount)', ({ amount, decimals }) => {
    expect(parseAmount(amount, decimals)).toBeNull()
  })
})

describe('isValidReceiver', () => {
  test.each([
    { case: 'with 0x', address: receiver, valid: true },
    { case: 'without 0x', address: receiver.slice(2), valid: true },
    { case: 'mixed case', address: '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01', valid: true },
    { case: 'surrounding spaces', address: ` ${receiver} `, valid: true },
    { case: '39 hex digits', address: `0x${'1'.repeat(39)}`, valid: false },
    { case: '41 hex digits', address: `0x${'1'.repeat(41)}`, valid: false },
    { case: '38 hex digits without 0x', address: '1'.repeat(38), valid: false },
    { case: 'a non-hex digit', address: `0x${'1'.repeat(39)}g`, valid: false },
    { case: 'only 0x', address: '0x', valid: false },
    { case: 'nothing', address: '', valid: false },
    { case: 'an ENS name', address: 'vitalik.eth', valid: false },
  ])('is $valid for an EVM address with $case', ({ address, valid }) => {
    expect(isValidReceiver(address, 'eip155')).toBe(valid)
  })

  test('checks the address against the namespace given', () => {
    const solana = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T'
    expect(isValidReceiver(solana, 'solana')).toBe(true)
    expect(isValidReceiver(solana, 'eip155')).toBe(false)
    expect(isValidReceiver(receiver, 'solana')).toBe(false)
    expect(isValidReceiver(receiver, 'cosmos')).toBe(false)
  })
})

describe('receiverPatch', () => {
  const named = state({
    receiverProfileName: 'porthole-dev.eth',
    receiverProfileImageUrl: 'data:image/png;base64,AA==',
  })

  test('drops the profile with a new address', () => {
    expect(receiverPatch(named, '0x2222222222222222222222222222222222222222')).toEqual({
      receiverAddress: '0x2222222222222222222222222222222222222222',
      receiverProfileName: null,
      receiverProfileImageUrl: null,
    })
    // One character off is another address.
    expect(receiverPatch(named, receiver.slice(0, -1))).toMatchObject({ receiverProfileName: null })
  })

  test('keeps it when only surrounding spaces changed', () => {
    expect(receiverPatch(named, ` ${receiver}\t`)).toEqual({ receiverAddress: ` ${receiver}\t` })
  })
})

describe('mayRetryTokens', () => {
  test.each([
    [null, 0, true],
    [1_000, 1_000, false],
    [1_000, 30_999, false],
    [1_000, 31_000, true],
    [1_000, 120_000, true],
  ])('after a failure at %s, at %i: %s (retry only after 30 s)', (lastRetry, now, expected) => {
    expect(mayRetryTokens(lastRetry, now)).toBe(expected)
  })
})
