import { createHash } from 'node:crypto'
import { describe, expect, test } from 'vitest'
import {
  ApprovalRequest,
  hashRequest,
  maxDepth,
  maxRequestLength,
  toCanonicalJson,
  toSnapshot,
  UnhashableRequestError,
} from './request.js'

const base: ApprovalRequest = {
  method: 'personal_sign',
  params: ['0x68656c6c6f', '0x1111111111111111111111111111111111111111'],
  chainId: 'eip155:31337',
  account: '0x1111111111111111111111111111111111111111',
  origin: 'http://app.localhost:5170',
}

describe('toCanonicalJson', () => {
  test('sorts object keys at every depth and drops undefined members', () => {
    expect(toCanonicalJson({ b: 1, a: { d: [1, { z: 1, y: undefined, x: 'é' }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"x":"é","z":1}]},"b":1}',
    )
  })

  test('gives the same text whatever the key order', () => {
    expect(toCanonicalJson({ a: 1, b: [2, 3] })).toBe(toCanonicalJson({ b: [2, 3], a: 1 }))
  })

  test('writes array holes and undefined items as null, as JSON does', () => {
    expect(toCanonicalJson([undefined, 1])).toBe('[null,1]')
  })

  test('keeps a __proto__ key as data', () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"a":1}')
    expect(toCanonicalJson(value)).toBe('{"__proto__":{"polluted":true},"a":1}')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  const deep = (levels: number) => {
    let value: unknown = 1
    for (let level = 0; level < levels; level++) value = [value]
    return value
  }
  const cyclic: Record<string, unknown> = {}
  cyclic.self = cyclic

  test.each([
    { case: 'a bigint', value: { a: 1n } },
    { case: 'a function', value: { a: () => 1 } },
    { case: 'a symbol', value: [Symbol('s')] },
    { case: 'a cycle', value: cyclic },
    { case: 'a class instance', value: { a: new Date(0) } },
    { case: 'nesting deeper than the limit', value: deep(maxDepth + 2) },
    { case: 'more than the size limit', value: 'x'.repeat(maxRequestLength) },
  ])('refuses $case', ({ value }) => {
    expect(() => toCanonicalJson(value)).toThrow(UnhashableRequestError)
  })

  test('accepts the same value twice when it is not a cycle', () => {
    const shared = { a: 1 }
    expect(toCanonicalJson([shared, shared])).toBe('[{"a":1},{"a":1}]')
  })
})

describe('inv-06 hashRequest', () => {
  test('is SHA-256 of the canonical JSON of method, params, chainId, account and origin', () => {
    const json = toCanonicalJson({
      account: base.account,
      chainId: base.chainId,
      method: base.method,
      origin: base.origin,
      params: base.params,
    })
    expect(hashRequest(base)).toBe(createHash('sha256').update(json, 'utf8').digest('hex'))
    expect(hashRequest(base)).toMatch(/^[0-9a-f]{64}$/)
  })

  test.each([
    { case: 'the method', change: { method: 'eth_signTypedData_v4' } },
    { case: 'a param', change: { params: ['0x68656c6c6e', base.account] } },
    { case: 'the param order', change: { params: [base.account, '0x68656c6c6f'] } },
    { case: 'the chain', change: { chainId: 'eip155:1' } },
    { case: 'the account', change: { account: '0x2222222222222222222222222222222222222222' } },
    { case: 'the origin', change: { origin: 'http://evil.localhost:5170' } },
  ] as const)('changes when $case changes', ({ change }) => {
    expect(hashRequest({ ...base, ...change } as ApprovalRequest)).not.toBe(hashRequest(base))
  })

  test('ignores display-only fields (chain name, site metadata)', () => {
    expect(hashRequest({ ...base, chainName: 'Anvil', site: { name: 'Shop' } })).toBe(
      hashRequest(base),
    )
  })

  test('does not depend on key order inside params', () => {
    const a = { ...base, method: 'eth_sendTransaction', params: [{ to: '0x1', value: '0x2' }] }
    const b = { ...base, method: 'eth_sendTransaction', params: [{ value: '0x2', to: '0x1' }] }
    expect(hashRequest(a as ApprovalRequest)).toBe(hashRequest(b as ApprovalRequest))
  })
})

describe('toSnapshot', () => {
  test('is a deep frozen copy that later changes to the original do not reach', () => {
    const params = [{ to: '0x1', value: '0x2' }]
    const request = { ...base, method: 'eth_sendTransaction', params, site: { name: 'Shop' } }
    const snapshot = toSnapshot(request as ApprovalRequest)
    params[0] = { to: '0xevil', value: '0x999' }
    expect(snapshot.params).toEqual([{ to: '0x1', value: '0x2' }])
    expect(Object.isFrozen(snapshot)).toBe(true)
    expect(Object.isFrozen((snapshot.params as object[])[0])).toBe(true)
    expect(snapshot.site).toEqual({ name: 'Shop' })
    expect(hashRequest(snapshot)).not.toBe(hashRequest(request as ApprovalRequest))
  })

  test('hashes as the request did when it was taken', () => {
    expect(hashRequest(toSnapshot(base))).toBe(hashRequest(base))
  })
})

describe('ApprovalRequest', () => {
  const change = {
    ...base,
    method: 'updateEmail',
    params: { from: 'ada@example.com', to: 'ada@new.example' },
  }

  test("takes the frame's own email change besides the RPCs, and no other method", () => {
    expect(ApprovalRequest.safeParse(change).success).toBe(true)
    expect(ApprovalRequest.safeParse({ ...base, method: 'updateEmailPrimaryOtp' }).success).toBe(
      false,
    )
    expect(ApprovalRequest.safeParse({ ...base, method: 'eth_sign' }).success).toBe(false)
  })

  test('inv-06: an approved email change binds its new address: another is another request', () => {
    const other = { ...change, params: { ...change.params, to: 'mallory@evil.example' } }
    expect(hashRequest(other as ApprovalRequest)).not.toBe(hashRequest(change as ApprovalRequest))
  })
})
