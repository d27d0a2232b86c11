import { RpcError } from '@porthole/protocol/Errors'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import {
  parseChainRequest,
  parsePersonalSign,
  parseTransaction,
  parseTypedDataV4,
  toParamList,
} from './walletRequests.ts'

/** Anvil's first default dev account. */
const account = privateKeyToAccount(
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
)
const other = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

/** The `{ code, message }` a call throws, or undefined when it returns. */
function thrown(call: () => unknown) {
  try {
    call()
  } catch (error) {
    if (error instanceof RpcError) return { code: error.code, message: error.message }
    throw error
  }
  return undefined
}

describe('toParamList', () => {
  test('reads absent params as none and refuses a non-array', () => {
    expect(toParamList(undefined)).toEqual([])
    expect(toParamList(['0x1'])).toEqual(['0x1'])
    expect(thrown(() => toParamList({ chainId: '0x1' }))).toEqual({
      code: -32602,
      message: 'Invalid params: params must be an array',
    })
  })
})

describe('parseChainRequest', () => {
  test('reads the hex chain id of the request object', () => {
    expect(parseChainRequest([{ chainId: '0x2105', chainName: 'Base' }])).toEqual({
      chainId: 8453,
      request: { chainId: '0x2105', chainName: 'Base' },
    })
  })

  test.each([
    ['no object', [], 'expected object'],
    ['a decimal chain id', [{ chainId: '8453' }], 'chainId must be a non-zero hex string'],
    ['chain id zero', [{ chainId: '0x00' }], 'chainId must be a non-zero hex string'],
  ])('refuses %s with -32602', (_, params, why) => {
    expect(thrown(() => parseChainRequest(params))).toEqual({
      code: -32602,
      message: `Invalid params: ${why}`,
    })
  })
})

describe('parsePersonalSign', () => {
  test('signs hex as raw bytes and other text as it is', () => {
    expect(parsePersonalSign(account, ['0x1234', account.address])).toEqual({ raw: '0x1234' })
    expect(parsePersonalSign(account, ['gm', account.address.toLowerCase()])).toBe('gm')
  })

  test.each([
    [
      'a missing message',
      [undefined, account.address],
      -32602,
      'Invalid params: expected a message',
    ],
    ['a missing address', ['0x1234'], -32602, 'Invalid params: expected an address'],
    ['another account', ['0x1234', other], 4100, `Unknown account ${other}.`],
  ])('refuses %s', (_, params, code, message) => {
    expect(thrown(() => parsePersonalSign(account, params))).toEqual({ code, message })
  })
})

describe('parseTypedDataV4', () => {
  const typedData = {
    domain: { name: 'Porthole' },
    types: { Greeting: [{ name: 'text', type: 'string' }] },
    primaryType: 'Greeting',
    message: { text: 'gm' },
  }

  test('reads the typed data as JSON or as an object', () => {
    expect(parseTypedDataV4(account, [account.address, JSON.stringify(typedData)])).toEqual(
      typedData,
    )
    expect(parseTypedDataV4(account, [account.address, typedData])).toEqual(typedData)
  })

  test.each([
    ['JSON that does not parse', [account.address, '{'], 'typed data is not JSON'],
    ['data without types', [account.address, '{"message":{}}'], 'expected typed data'],
    ['a missing address', [undefined, typedData], 'expected an address'],
  ])('refuses %s with -32602', (_, params, why) => {
    expect(thrown(() => parseTypedDataV4(account, params))).toEqual({
      code: -32602,
      message: `Invalid params: ${why}`,
    })
  })
})

describe('parseTransaction', () => {
  test('reads quantities as hex and `input` as data, with no fee when none is asked', () => {
    expect(
      parseTransaction(account, [
        { from: account.address, to: other, value: '0xde0b6b3a7640000', input: '0xabcd' },
      ]),
    ).toEqual({
      to: other,
      data: '0xabcd',
      value: 10n ** 18n,
      gas: undefined,
      nonce: undefined,
    })
  })

  test('reads a contract creation, a nonce, and a legacy or an EIP-1559 fee', () => {
    const from = account.address
    expect(
      parseTransaction(account, [{ from, data: '0x60', nonce: '0x7', gasPrice: '0x2' }]),
    ).toMatchObject({ to: null, data: '0x60', nonce: 7, gasPrice: 2n })
    const eip1559 = parseTransaction(account, [{ from, to: other, maxFeePerGas: '0x3' }])
    expect(eip1559).toMatchObject({ maxFeePerGas: 3n, maxPriorityFeePerGas: undefined })
    expect(eip1559).not.toHaveProperty('gasPrice')
  })

  test.each([
    ['no transaction', [], -32602, 'Invalid params: expected a transaction'],
    ['another sender', [{ from: other }], 4100, `Unknown account ${other}.`],
    [
      'a decimal value',
      [{ from: account.address, value: '100' }],
      -32602,
      'Invalid params: value must be hex',
    ],
    [
      'a short recipient',
      [{ from: account.address, to: '0x1234' }],
      -32602,
      'Invalid params: to must be an address',
    ],
  ])('refuses %s', (_, params, code, message) => {
    expect(thrown(() => parseTransaction(account, params))).toEqual({ code, message })
  })
})
